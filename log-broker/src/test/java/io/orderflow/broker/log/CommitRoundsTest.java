package io.orderflow.broker.log;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayDeque;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class CommitRoundsTest {
    /** The flusher threads, run by hand: each task is one partition's fsync. */
    private final Queue<Runnable> fsyncs = new ArrayDeque<>();

    private final CommitRounds rounds = new CommitRounds(fsyncs::add);

    /** A partition whose log end the test sets; its fsync makes that end durable. */
    private static final class Partition {
        final AtomicLong logEnd = new AtomicLong();
        final AtomicLong highWatermarkSeenByOther = new AtomicLong(-1);
        GroupCommit commit;
        RuntimeException failNextFsync;

        Partition(CommitRounds rounds, Partition[] other) {
            commit = new GroupCommit(
                    () -> {
                        RuntimeException failure = failNextFsync;
                        failNextFsync = null;
                        if (failure != null) {
                            throw failure;
                        }
                        return logEnd.get();
                    },
                    durable -> {
                        if (other[0] != null) {
                            highWatermarkSeenByOther.set(other[0].commit.durableOffset());
                        }
                    },
                    rounds,
                    0);
        }
    }

    /** Starts a round for another partition and leaves its fsync unrun: the partitions asking next share a round. */
    private void holdARoundOpen() {
        Partition first = new Partition(rounds, new Partition[1]);
        first.logEnd.set(1);
        first.commit.awaitDurable(1);
    }

    private void runOneFsync() {
        fsyncs.remove().run();
    }

    @Test
    void aPartitionAskingAloneWhileARoundRunsIsInTheNextRound() {
        Partition[] bRef = new Partition[1];
        Partition a = new Partition(rounds, bRef);
        Partition b = new Partition(rounds, new Partition[] {a});
        bRef[0] = b;
        a.logEnd.set(3);
        b.logEnd.set(5);

        CompletableFuture<Void> aDurable = a.commit.awaitDurable(3);
        CompletableFuture<Void> bDurable = b.commit.awaitDurable(5);
        assertThat(fsyncs).as("one round: a's fsync, and b's joined it").hasSize(1);
        runOneFsync();
        assertThat(fsyncs).as("b asked while a's round ran: the next round").hasSize(1);
        assertThat(aDurable).isCompleted();
        runOneFsync();

        assertThat(bDurable).isCompleted();
        assertThat(b.commit.durableOffset()).isEqualTo(5);
    }

    @Test
    void partitionsAskedTogetherShareTheRoundTheyStart() {
        Partition a = new Partition(rounds, new Partition[1]);
        Partition b = new Partition(rounds, new Partition[1]);
        a.logEnd.set(3);
        b.logEnd.set(5);

        CompletableFuture<Void> aDurable = a.commit.enlist(3);
        CompletableFuture<Void> bDurable = b.commit.enlist(5);
        assertThat(fsyncs).as("enlisting asks for no round").isEmpty();
        rounds.schedule(List.of(a.commit, b.commit));

        assertThat(fsyncs).as("one round holding both fsyncs").hasSize(2);
        runOneFsync();
        assertThat(aDurable).as("the round's other fsync is not done yet").isNotDone();
        runOneFsync();
        assertThat(aDurable).isCompleted();
        assertThat(bDurable).isCompleted();
        assertThat(fsyncs).as("no second round").isEmpty();
    }

    @Test
    void noPartitionOfARoundIsReadableBeforeAllOfItsFsyncsAreDoneAndEachIsToldOnlyAfterAllMoved() {
        Partition[] bRef = new Partition[1];
        Partition a = new Partition(rounds, bRef);
        Partition b = new Partition(rounds, new Partition[] {a});
        bRef[0] = b;
        // Both ask before any round starts: hold the first round open with a third partition's fsync.
        holdARoundOpen();
        a.logEnd.set(3);
        b.logEnd.set(5);
        CompletableFuture<Void> aDurable = a.commit.awaitDurable(3);
        CompletableFuture<Void> bDurable = b.commit.awaitDurable(5);
        runOneFsync(); // the first round ends; a and b are the next one

        assertThat(fsyncs).hasSize(2);
        runOneFsync();
        assertThat(a.commit.durableOffset())
                .as("a's fsync is done, b's is not: nothing of the round is published")
                .isZero();
        assertThat(aDurable).isNotDone();
        runOneFsync();

        assertThat(aDurable).isCompleted();
        assertThat(bDurable).isCompleted();
        assertThat(a.highWatermarkSeenByOther)
                .as("when a's waiters are told, b has already advanced")
                .hasValue(5);
        assertThat(b.highWatermarkSeenByOther).hasValue(3);
        assertThat(fsyncs).as("nothing left to commit").isEmpty();
    }

    @Test
    void aFailedFsyncFailsOnlyItsOwnPartitionsWaiters() {
        holdARoundOpen();
        Partition a = new Partition(rounds, new Partition[1]);
        Partition b = new Partition(rounds, new Partition[1]);
        a.logEnd.set(2);
        b.logEnd.set(2);
        a.failNextFsync = new LogStorageException("Cannot fsync a", new java.io.IOException("EIO"));
        CompletableFuture<Void> aDurable = a.commit.awaitDurable(2);
        CompletableFuture<Void> bDurable = b.commit.awaitDurable(2);
        runOneFsync();

        runOneFsync();
        runOneFsync();

        assertThat(aDurable).isCompletedExceptionally();
        assertThat(a.commit.durableOffset()).isZero();
        assertThat(bDurable).isCompleted();
        CompletableFuture<Void> again = a.commit.awaitDurable(2);
        runOneFsync();
        assertThat(again).as("the next fsync of a succeeds").isCompleted();
    }

    @Test
    void aPartitionAlreadyDurableAsksForNoRound() {
        Partition a = new Partition(rounds, new Partition[1]);
        a.logEnd.set(4);
        a.commit.awaitDurable(4);
        runOneFsync();

        assertThat(a.commit.awaitDurable(4)).isCompleted();
        assertThat(fsyncs).isEmpty();
    }
}
