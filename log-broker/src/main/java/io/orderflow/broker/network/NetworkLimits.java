package io.orderflow.broker.network;

/**
 * Limits that protect the broker from its clients, named after Kafka's settings.
 *
 * @param maxRequestBytes {@code socket.request.max.bytes}: a larger frame closes the connection before any of
 *     it is read into memory
 * @param maxConnections {@code max.connections}: further connections are accepted and closed at once
 */
public record NetworkLimits(int maxRequestBytes, int maxConnections) {
    public static final NetworkLimits DEFAULTS = new NetworkLimits(100 * 1024 * 1024, 10_000);
}
