package io.orderflow.broker.network;

import java.net.InetAddress;
import java.util.HashMap;
import java.util.Map;

/**
 * The broker's open connections, counted on all its listeners together and per client address, against
 * {@code max.connections} and {@code max.connections.per.ip} (with its overrides), as Kafka counts them. A connection
 * over either limit is closed as soon as it is accepted, before any thread is started for it. Thread-safe.
 */
public final class ConnectionQuotas {
    private final NetworkLimits limits;
    private final Map<InetAddress, Integer> perAddress = new HashMap<>();
    private int open;

    public ConnectionQuotas(NetworkLimits limits) {
        this.limits = limits;
    }

    /**
     * Counts a new connection from {@code address} if both limits allow it.
     *
     * @return null if it was counted, else the name of the setting it would exceed
     */
    synchronized String tryOpen(InetAddress address) {
        if (open >= limits.maxConnections()) {
            return "max.connections";
        }
        int fromAddress = perAddress.getOrDefault(address, 0);
        if (fromAddress >= limits.maxConnections(address)) {
            return limits.maxConnectionsPerIpOverrides().containsKey(address)
                    ? "max.connections.per.ip.overrides"
                    : "max.connections.per.ip";
        }
        open++;
        perAddress.put(address, fromAddress + 1);
        return null;
    }

    /** Uncounts a connection {@link #tryOpen} counted. */
    synchronized void closed(InetAddress address) {
        open--;
        perAddress.computeIfPresent(address, (a, n) -> n == 1 ? null : n - 1);
    }

    /** The connections open now. */
    public synchronized int open() {
        return open;
    }

    /** The connections open now from {@code address}. */
    public synchronized int open(InetAddress address) {
        return perAddress.getOrDefault(address, 0);
    }
}
