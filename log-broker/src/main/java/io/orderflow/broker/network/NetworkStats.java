package io.orderflow.broker.network;

import java.util.concurrent.atomic.LongAdder;

/** Bytes in and out, connections accepted, refused and closed for idleness, and rejected frames, for metrics. Thread-safe. */
public final class NetworkStats {
    private final LongAdder bytesIn = new LongAdder();
    private final LongAdder bytesOut = new LongAdder();
    private final LongAdder rejected = new LongAdder();
    private final LongAdder accepted = new LongAdder();
    private final LongAdder refused = new LongAdder();
    private final LongAdder closedIdle = new LongAdder();

    void received(long bytes) {
        bytesIn.add(bytes);
    }

    void sent(long bytes) {
        bytesOut.add(bytes);
    }

    void rejected() {
        rejected.increment();
    }

    void accepted() {
        accepted.increment();
    }

    void refused() {
        refused.increment();
    }

    void closedIdle() {
        closedIdle.increment();
    }

    /** Connections closed as soon as they were accepted: over {@code max.connections} or a per-address limit. */
    public long refusedConnections() {
        return refused.sum();
    }

    /** Connections closed after {@code connections.max.idle.ms} without a request. */
    public long idleConnectionsClosed() {
        return closedIdle.sum();
    }

    public long bytesIn() {
        return bytesIn.sum();
    }

    public long bytesOut() {
        return bytesOut.sum();
    }

    public long rejectedFrames() {
        return rejected.sum();
    }

    public long acceptedConnections() {
        return accepted.sum();
    }
}
