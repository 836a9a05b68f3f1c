package io.orderflow.broker.log;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Group commit across the partitions of one log directory, in rounds: a round fsyncs every partition that has
 * appends waiting to be durable, in parallel on the flusher threads, and only when the last of those fsyncs is done
 * does it publish what they made durable: first every partition's durable end offset (so its high watermark), then, to
 * every partition, the fetches and producers waiting for it. Partitions asking while a round runs are taken by the
 * next one, so a burst costs about two rounds whatever the number of partitions and producers. The partitions of one
 * request are scheduled in one call ({@link PartitionLog#awaitDurable(Map)}) once all are appended, so they are
 * always in the same round: scheduled one by one, the first would start a round alone whenever none was running, and
 * the rest would wait for the next.
 *
 * <p><b>Why rounds and not each partition on its own.</b> A producer's request usually writes several partitions (the
 * relay's batches hold every order of a poll, spread by key). With each partition fsynced and published on its own,
 * those partitions became readable a few milliseconds apart, and a consumer of all of them received the request's
 * records in as many fetch responses: more, smaller batches, each with its own database transaction, so a consumer
 * near its capacity fell behind. Published together, one fetch returns them together, as on a broker that exposes
 * records on append. The producer waits no longer: its answer already waited for its slowest partition.
 *
 * <p><b>Failure.</b> A partition whose fsync fails fails its own waiters (the caller sees the storage error); the
 * round's other partitions are published as usual.
 *
 * <p>Thread-safe. Runs fsyncs and completions on {@code flusher}; it never blocks a thread waiting for another.
 */
final class CommitRounds {
    private final Executor flusher;
    /** Partitions waiting for the next round, in the order they asked. */
    private final Set<GroupCommit> queued = new LinkedHashSet<>();

    private boolean running;

    /** @param flusher runs the fsyncs; not the network threads' pool */
    CommitRounds(Executor flusher) {
        this.flusher = flusher;
    }

    /**
     * Has {@code commits}' partitions fsynced by the next round, starting one if none runs. Partitions scheduled in
     * one call are always in the same round: a Produce schedules all its partitions once every one is appended,
     * since the first of them alone would start a round the others could not join.
     */
    void schedule(Collection<GroupCommit> commits) {
        List<GroupCommit> round;
        synchronized (this) {
            queued.addAll(commits);
            if (running) {
                return;
            }
            running = true;
            round = takeQueued();
        }
        start(round);
    }

    private List<GroupCommit> takeQueued() {
        List<GroupCommit> round = new ArrayList<>(queued);
        queued.clear();
        return round;
    }

    private void start(List<GroupCommit> round) {
        long[] durable = new long[round.size()];
        RuntimeException[] failed = new RuntimeException[round.size()];
        // The last fsync to finish publishes the round; the counter orders every fsync's result before it.
        AtomicInteger remaining = new AtomicInteger(round.size());
        for (int i = 0; i < round.size(); i++) {
            int index = i;
            flusher.execute(() -> {
                try {
                    durable[index] = round.get(index).flushNow();
                } catch (RuntimeException e) {
                    failed[index] = e;
                }
                if (remaining.decrementAndGet() == 0) {
                    finish(round, durable, failed);
                }
            });
        }
    }

    private void finish(List<GroupCommit> round, long[] durable, RuntimeException[] failed) {
        List<Runnable> completions = new ArrayList<>(round.size());
        for (int i = 0; i < round.size(); i++) {
            completions.add(
                    failed[i] == null
                            ? round.get(i).markDurable(durable[i])
                            : round.get(i).failWaiters(failed[i]));
        }
        // Every high watermark has moved before anyone is told, so a fetch woken by one partition reads them all.
        completions.forEach(Runnable::run);
        List<GroupCommit> next;
        synchronized (this) {
            // A partition asked again during the round may have been covered by its fsync in it.
            queued.removeIf(commit -> !commit.hasWaiters());
            if (queued.isEmpty()) {
                running = false;
                return;
            }
            next = takeQueued();
        }
        start(next);
    }
}
