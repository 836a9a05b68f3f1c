package io.orderflow.broker.network;

import java.util.concurrent.atomic.LongAdder;

/** Bytes in and out, connections and rejected frames, for metrics. Thread-safe. */
public final class NetworkStats {
    private final LongAdder bytesIn = new LongAdder();
    private final LongAdder bytesOut = new LongAdder();
    private final LongAdder rejected = new LongAdder();
    private final LongAdder accepted = new LongAdder();

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
