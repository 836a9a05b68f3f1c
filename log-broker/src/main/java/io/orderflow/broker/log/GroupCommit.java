package io.orderflow.broker.log;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;

/**
 * Group commit for one partition: appenders ask for their offsets to be durable; one fsync covers every
 * append written before it started, and appends that arrive while an fsync runs share the next one. So the
 * number of fsyncs per second is bounded by the disk, not by the number of producers, and a burst of
 * appends costs about two fsyncs.
 *
 * <p>The fsync runs on {@code executor}, never on the caller's thread, so a network thread waiting for
 * durability is not blocked. Thread-safe.
 */
final class GroupCommit {
    private final LongSupplier flushAll;
    private final LongConsumer onDurable;
    private final Executor executor;
    private final TreeMap<Long, List<CompletableFuture<Void>>> waiters = new TreeMap<>();
    private long durableOffset;
    private boolean flushing;

    /**
     * @param flushAll fsyncs everything written so far and returns the log end offset that is now durable
     * @param onDurable told each time the durable end offset advances (outside any lock)
     * @param durableOffset the end offset already durable when the log was opened
     */
    GroupCommit(LongSupplier flushAll, LongConsumer onDurable, Executor executor, long durableOffset) {
        this.flushAll = flushAll;
        this.onDurable = onDurable;
        this.executor = executor;
        this.durableOffset = durableOffset;
    }

    /** Completes when every offset below {@code endOffset} is on disk. */
    CompletableFuture<Void> awaitDurable(long endOffset) {
        CompletableFuture<Void> future = new CompletableFuture<>();
        boolean start;
        synchronized (this) {
            if (endOffset <= durableOffset) {
                return CompletableFuture.completedFuture(null);
            }
            waiters.computeIfAbsent(endOffset, k -> new ArrayList<>()).add(future);
            start = !flushing;
            flushing = true;
        }
        if (start) {
            executor.execute(this::flushUntilNoWaiters);
        }
        return future;
    }

    synchronized long durableOffset() {
        return durableOffset;
    }

    /** Records a flush done elsewhere (segment roll, periodic flush, shutdown). */
    void flushed(long endOffset) {
        complete(endOffset);
    }

    private void flushUntilNoWaiters() {
        while (true) {
            long durable;
            try {
                durable = flushAll.getAsLong();
            } catch (RuntimeException e) {
                List<CompletableFuture<Void>> failed = new ArrayList<>();
                synchronized (this) {
                    waiters.values().forEach(failed::addAll);
                    waiters.clear();
                    flushing = false;
                }
                failed.forEach(f -> f.completeExceptionally(e));
                return;
            }
            complete(durable);
            synchronized (this) {
                if (waiters.isEmpty()) {
                    flushing = false;
                    return;
                }
            }
        }
    }

    private void complete(long endOffset) {
        List<CompletableFuture<Void>> done = new ArrayList<>();
        long durable;
        synchronized (this) {
            if (endOffset > durableOffset) {
                durableOffset = endOffset;
            }
            durable = durableOffset;
            Map<Long, List<CompletableFuture<Void>>> head = waiters.headMap(durableOffset, true);
            head.values().forEach(done::addAll);
            head.clear();
        }
        onDurable.accept(durable);
        done.forEach(f -> f.complete(null));
    }
}
