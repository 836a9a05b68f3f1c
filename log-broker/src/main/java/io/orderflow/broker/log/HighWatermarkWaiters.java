package io.orderflow.broker.log;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;

/**
 * Fetches waiting for data (Kafka's long poll, {@code max.wait.ms}): each waits for the high watermark to pass
 * an offset and is woken when it does. Thread-safe.
 */
final class HighWatermarkWaiters {
    private final TreeMap<Long, List<CompletableFuture<Void>>> waiting = new TreeMap<>();
    private long highWatermark;

    HighWatermarkWaiters(long highWatermark) {
        this.highWatermark = highWatermark;
    }

    /** Completes once the high watermark is above {@code offset}; at once if it already is. */
    CompletableFuture<Void> await(long offset) {
        synchronized (this) {
            if (offset < highWatermark) {
                return CompletableFuture.completedFuture(null);
            }
            CompletableFuture<Void> future = new CompletableFuture<>();
            waiting.computeIfAbsent(offset, k -> new ArrayList<>()).add(future);
            return future;
        }
    }

    void advanceTo(long newHighWatermark) {
        List<CompletableFuture<Void>> ready = new ArrayList<>();
        synchronized (this) {
            if (newHighWatermark <= highWatermark) {
                return;
            }
            highWatermark = newHighWatermark;
            Map<Long, List<CompletableFuture<Void>>> head = waiting.headMap(newHighWatermark, false);
            head.values().forEach(ready::addAll);
            head.clear();
        }
        ready.forEach(f -> f.complete(null));
    }

    /** Abandoned waits (a fetch that timed out) are dropped so they do not pile up. */
    synchronized void forget(CompletableFuture<Void> future) {
        waiting.values().forEach(list -> list.remove(future));
        waiting.values().removeIf(List::isEmpty);
    }
}
