package io.orderflow.broker.log;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;

/**
 * Group commit for one partition: appenders ask for their offsets to be durable; one fsync covers every
 * append written before it started, and appends that arrive while an fsync runs share the next one. So the
 * number of fsyncs per second is bounded by the disk, not by the number of producers, and a burst of
 * appends costs about two fsyncs.
 *
 * <p>The fsyncs are run by the log directory's {@link CommitRounds}, never on the caller's thread (a network thread
 * waiting for durability is not blocked), and published with those of the other partitions in the same round.
 * Thread-safe.
 */
final class GroupCommit {
    private final LongSupplier flushAll;
    private final LongConsumer onDurable;
    private final CommitRounds rounds;
    private final TreeMap<Long, List<CompletableFuture<Void>>> waiters = new TreeMap<>();
    private long durableOffset;

    /**
     * @param flushAll fsyncs everything written so far and returns the log end offset that is now durable
     * @param onDurable told each time the durable end offset advances (outside any lock)
     * @param rounds runs the fsyncs
     * @param durableOffset the end offset already durable when the log was opened
     */
    GroupCommit(LongSupplier flushAll, LongConsumer onDurable, CommitRounds rounds, long durableOffset) {
        this.flushAll = flushAll;
        this.onDurable = onDurable;
        this.rounds = rounds;
        this.durableOffset = durableOffset;
    }

    /** Completes when every offset below {@code endOffset} is on disk. */
    CompletableFuture<Void> awaitDurable(long endOffset) {
        CompletableFuture<Void> future = enlist(endOffset);
        if (!future.isDone()) {
            rounds.schedule(List.of(this));
        }
        return future;
    }

    /**
     * Registers a wait for {@code endOffset} without asking for a round: the caller schedules this partition with
     * others ({@link CommitRounds#schedule}) unless the returned future is already complete.
     */
    CompletableFuture<Void> enlist(long endOffset) {
        CompletableFuture<Void> future = new CompletableFuture<>();
        synchronized (this) {
            if (endOffset <= durableOffset) {
                return CompletableFuture.completedFuture(null);
            }
            waiters.computeIfAbsent(endOffset, k -> new ArrayList<>()).add(future);
        }
        return future;
    }

    CommitRounds rounds() {
        return rounds;
    }

    synchronized long durableOffset() {
        return durableOffset;
    }

    synchronized boolean hasWaiters() {
        return !waiters.isEmpty();
    }

    /** Records a flush done elsewhere (segment roll, periodic flush, shutdown). */
    void flushed(long endOffset) {
        markDurable(endOffset).run();
    }

    /** fsyncs the partition; returns the end offset now durable. Called by {@link CommitRounds}. */
    long flushNow() {
        return flushAll.getAsLong();
    }

    /**
     * Advances the durable end offset to {@code endOffset} now (and so the high watermark); returns what tells the
     * waiters, for the caller to run once every partition of its round has advanced.
     */
    Runnable markDurable(long endOffset) {
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
        return () -> {
            onDurable.accept(durable);
            done.forEach(f -> f.complete(null));
        };
    }

    /** Takes every waiter: the fsync failed, so none of them is durable; returns what tells them. */
    Runnable failWaiters(RuntimeException cause) {
        List<CompletableFuture<Void>> failed = new ArrayList<>();
        synchronized (this) {
            waiters.values().forEach(failed::addAll);
            waiters.clear();
        }
        return () -> failed.forEach(f -> f.completeExceptionally(cause));
    }
}
