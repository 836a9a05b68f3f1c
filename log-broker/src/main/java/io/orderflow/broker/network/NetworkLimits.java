package io.orderflow.broker.network;

import java.net.InetAddress;
import java.util.Map;

/**
 * Limits that protect the broker from its clients, named after Kafka's settings.
 *
 * @param maxRequestBytes {@code socket.request.max.bytes}: a larger frame closes the connection before any of it is
 *     read into memory
 * @param maxConnections {@code max.connections}: the broker's connections on all listeners together; further ones
 *     are accepted and closed at once
 * @param maxConnectionsPerIp {@code max.connections.per.ip}: the same, for the connections from one address
 * @param maxConnectionsPerIpOverrides {@code max.connections.per.ip.overrides}: a limit of its own for some addresses
 * @param connectionsMaxIdleMs {@code connections.max.idle.ms}: a connection that has completed no request for this
 *     long, and is not handling one, is closed
 * @param queuedMaxRequestBytes {@code queued.max.request.bytes}: the bytes of request frames being read and decoded at once,
 *     -1 unbounded, 0 a quarter of the heap ({@link RequestMemory})
 */
public record NetworkLimits(
        int maxRequestBytes,
        int maxConnections,
        int maxConnectionsPerIp,
        Map<InetAddress, Integer> maxConnectionsPerIpOverrides,
        long connectionsMaxIdleMs,
        long queuedMaxRequestBytes) {

    public static final int DEFAULT_MAX_REQUEST_BYTES = 100 * 1024 * 1024;
    public static final int DEFAULT_MAX_CONNECTIONS = 10_000;
    public static final int DEFAULT_MAX_CONNECTIONS_PER_IP = 2_000;
    public static final long DEFAULT_CONNECTIONS_MAX_IDLE_MS = 600_000;

    public static final NetworkLimits DEFAULTS = new NetworkLimits(DEFAULT_MAX_REQUEST_BYTES, DEFAULT_MAX_CONNECTIONS);

    public NetworkLimits {
        maxConnectionsPerIpOverrides = Map.copyOf(maxConnectionsPerIpOverrides);
    }

    /** The given request and connection limits, and the defaults for the rest. */
    public NetworkLimits(int maxRequestBytes, int maxConnections) {
        this(
                maxRequestBytes,
                maxConnections,
                Math.min(maxConnections, DEFAULT_MAX_CONNECTIONS_PER_IP),
                Map.of(),
                DEFAULT_CONNECTIONS_MAX_IDLE_MS,
                0);
    }

    /** How many connections {@code address} may have open at once. */
    public int maxConnections(InetAddress address) {
        return maxConnectionsPerIpOverrides.getOrDefault(address, maxConnectionsPerIp);
    }
}
