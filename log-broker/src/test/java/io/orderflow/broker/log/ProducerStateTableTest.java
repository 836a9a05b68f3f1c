package io.orderflow.broker.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ProducerStateTableTest {
    private static final long T0 = 1_700_000_000_000L;

    private final ProducerStateTable table = new ProducerStateTable("orders-3");
    private long logEnd;

    /** A batch as a producer sends it, before the partition gives it offsets. */
    record Batch(long producerId, short epoch, int baseSequence, int records, long timestamp) {
        BatchHeader at(long baseOffset) {
            return header(producerId, epoch, baseSequence, records, baseOffset, timestamp);
        }
    }

    static BatchHeader header(
            long producerId, short epoch, int baseSequence, int records, long baseOffset, long timestamp) {
        return new BatchHeader(
                baseOffset,
                BatchHeader.MIN_BATCH_LENGTH + 10 * records,
                BatchHeader.CURRENT_MAGIC,
                0,
                (short) 0,
                records - 1,
                timestamp,
                timestamp,
                producerId,
                epoch,
                baseSequence,
                records);
    }

    static Batch batch(long producerId, int epoch, int baseSequence, int records) {
        return new Batch(producerId, (short) epoch, baseSequence, records, T0);
    }

    /**
     * Checks and commits an append the way {@link PartitionLog} does: offsets from the log end, stop at the
     * first duplicate, commit once every batch passed. Returns the duplicate's metadata, or null when stored.
     */
    private BatchMetadata append(Batch... batches) {
        ProducerAppend append = table.prepare();
        long next = logEnd;
        for (Batch b : batches) {
            BatchHeader h = b.at(next);
            BatchMetadata original = append.check(h);
            if (original != null) {
                return original;
            }
            next = h.nextOffset();
        }
        append.commit();
        logEnd = next;
        return null;
    }

    private ProducerEntry entry(long producerId) {
        return table.entry(producerId).orElseThrow();
    }

    @Test
    void answersARetryOfEachOfTheLastFiveBatchesWithItsOriginalOffsets() {
        for (int i = 0; i < 5; i++) {
            assertThat(append(batch(7, 0, 2 * i, 2))).isNull();
        }
        assertThat(logEnd).isEqualTo(10);
        for (int i = 0; i < 5; i++) {
            BatchMetadata original = append(batch(7, 0, 2 * i, 2));
            assertThat(original).isNotNull();
            assertThat(original.firstOffset()).isEqualTo(2L * i);
            assertThat(original.lastOffset()).isEqualTo(2L * i + 1);
            assertThat(original.firstSequence()).isEqualTo(2 * i);
            assertThat(original.lastSequence()).isEqualTo(2 * i + 1);
        }
        assertThat(logEnd).as("retries store nothing").isEqualTo(10);
    }

    @Test
    void forgetsTheSixthMostRecentBatch() {
        for (int i = 0; i < 6; i++) {
            append(batch(7, 0, 2 * i, 2));
        }
        assertThat(entry(7).batches()).hasSize(ProducerEntry.BATCHES_RETAINED);
        OutOfOrderSequenceException e =
                catchThrowableOfType(OutOfOrderSequenceException.class, () -> append(batch(7, 0, 0, 2)));
        assertThat(e.expectedSequence()).isEqualTo(12);
        assertThat(e.receivedSequence()).isZero();
        assertThat(append(batch(7, 0, 2, 2)).firstOffset())
                .as("the fifth most recent is still known")
                .isEqualTo(2);
    }

    @Test
    void aRetryMustMatchTheWholeSequenceRangeOfTheOriginal() {
        append(batch(7, 0, 0, 5));
        OutOfOrderSequenceException e =
                catchThrowableOfType(OutOfOrderSequenceException.class, () -> append(batch(7, 0, 0, 3)));
        assertThat(e.expectedSequence()).isEqualTo(5);
        assertThat(e.receivedSequence()).isZero();
    }

    @Test
    void rejectsAnOutOfOrderSequenceNamingEveryValue() {
        append(batch(7, 2, 0, 5));
        logEnd = 40;
        OutOfOrderSequenceException e =
                catchThrowableOfType(OutOfOrderSequenceException.class, () -> append(batch(7, 2, 3, 2)));
        assertThat(e.partition()).isEqualTo("orders-3");
        assertThat(e.producerId()).isEqualTo(7);
        assertThat(e.epoch()).isEqualTo((short) 2);
        assertThat(e.currentEpoch()).isEqualTo((short) 2);
        assertThat(e.expectedSequence()).isEqualTo(5);
        assertThat(e.receivedSequence()).isEqualTo(3);
        assertThat(e.offset()).isEqualTo(40);
        assertThat(e.getMessage()).contains("orders-3", "producer 7", "epoch 2", "expected 5", "received 3", "40");
        assertThat(entry(7).lastSequence()).isEqualTo(4);
    }

    @Test
    void rejectsAGapInTheSequence() {
        append(batch(7, 0, 0, 5));
        OutOfOrderSequenceException e =
                catchThrowableOfType(OutOfOrderSequenceException.class, () -> append(batch(7, 0, 6, 1)));
        assertThat(e.expectedSequence()).isEqualTo(5);
        assertThat(e.receivedSequence()).isEqualTo(6);
        assertThat(append(batch(7, 0, 5, 1))).isNull();
    }

    @Test
    void wrapsTheSequenceAroundAfterIntegerMaxValue() {
        append(batch(7, 0, Integer.MAX_VALUE - 1, 2));
        assertThat(entry(7).lastSequence()).isEqualTo(Integer.MAX_VALUE);
        assertThatThrownBy(() -> append(batch(7, 0, 1, 1))).isInstanceOf(OutOfOrderSequenceException.class);
        assertThat(append(batch(7, 0, 0, 3))).isNull();
        assertThat(entry(7).lastSequence()).isEqualTo(2);
    }

    @Test
    void recognisesARetryOfABatchThatWrappedItsSequence() {
        append(batch(7, 0, Integer.MAX_VALUE - 1, 4));
        assertThat(entry(7).lastSequence()).isEqualTo(1);
        assertThat(append(batch(7, 0, Integer.MAX_VALUE - 1, 4)).lastOffset()).isEqualTo(3);
        assertThat(append(batch(7, 0, 2, 1))).isNull();
    }

    @Test
    void rejectsAnOlderEpochNamingEveryValue() {
        append(batch(7, 3, 0, 1));
        InvalidProducerEpochException e =
                catchThrowableOfType(InvalidProducerEpochException.class, () -> append(batch(7, 2, 1, 1)));
        assertThat(e.partition()).isEqualTo("orders-3");
        assertThat(e.producerId()).isEqualTo(7);
        assertThat(e.epoch()).isEqualTo((short) 2);
        assertThat(e.currentEpoch()).isEqualTo((short) 3);
        assertThat(e.offset()).isEqualTo(1);
        assertThat(e.getMessage()).contains("orders-3", "7", "epoch 2", "current epoch 3");
    }

    @Test
    void fencesARetryFromAnOlderEpochInsteadOfAnsweringIt() {
        append(batch(7, 0, 0, 1));
        append(batch(7, 1, 0, 1));
        assertThatThrownBy(() -> append(batch(7, 0, 0, 1))).isInstanceOf(InvalidProducerEpochException.class);
    }

    @Test
    void requiresANewEpochToStartAtSequenceZero() {
        append(batch(7, 0, 0, 5));
        OutOfOrderSequenceException e =
                catchThrowableOfType(OutOfOrderSequenceException.class, () -> append(batch(7, 1, 5, 1)));
        assertThat(e.epoch()).isEqualTo((short) 1);
        assertThat(e.currentEpoch()).isZero();
        assertThat(e.expectedSequence()).isZero();
        assertThat(e.receivedSequence()).isEqualTo(5);
        assertThat(e.getMessage()).contains("producer 7", "epoch 1", "current 0", "expected 0", "received 5");
    }

    @Test
    void aNewEpochForgetsTheBatchesOfTheOldOne() {
        append(batch(7, 0, 0, 1), batch(7, 0, 1, 1));
        append(batch(7, 1, 0, 2));
        assertThat(entry(7).epoch()).isEqualTo((short) 1);
        assertThat(entry(7).batches()).extracting(BatchMetadata::firstOffset).containsExactly(2L);
    }

    @Test
    void acceptsAnUnknownProducerAtAnySequenceAndEpoch() {
        assertThat(append(batch(9, 4, 1234, 3))).isNull();
        assertThat(entry(9).epoch()).isEqualTo((short) 4);
        assertThatThrownBy(() -> append(batch(9, 4, 1238, 1))).isInstanceOf(OutOfOrderSequenceException.class);
        assertThat(append(batch(9, 4, 1237, 1))).isNull();
    }

    @Test
    void acceptsAProducerAtAnySequenceAgainAfterItExpired() {
        append(new Batch(9, (short) 0, 0, 1, T0));
        table.removeExpired(T0 + 1000, 1000);
        assertThat(append(batch(9, 0, 50, 1))).isNull();
    }

    @Test
    void checksLaterBatchesOfAnAppendAgainstTheEarlierOnes() {
        append(batch(7, 0, 0, 2));
        assertThat(append(batch(7, 0, 2, 2), batch(7, 0, 4, 2))).isNull();
        assertThat(entry(7).lastSequence()).isEqualTo(5);

        assertThatThrownBy(() -> append(batch(7, 0, 6, 1), batch(7, 0, 6, 1)))
                .as("a batch repeated within one append is out of order, not a retry (retries are looked up"
                        + " in the stored state only)")
                .isInstanceOf(OutOfOrderSequenceException.class);
        assertThatThrownBy(() -> append(batch(7, 0, 6, 1), batch(7, 1, 0, 1), batch(7, 0, 7, 1)))
                .as("an epoch raised earlier in the append fences a later batch")
                .isInstanceOf(InvalidProducerEpochException.class);
        assertThatThrownBy(() -> append(batch(7, 0, 6, 1), batch(7, 1, 3, 1)))
                .as("an epoch raised within the append must start at 0")
                .isInstanceOf(OutOfOrderSequenceException.class);
        assertThat(entry(7).lastSequence()).as("failed appends applied nothing").isEqualTo(5);
        assertThat(entry(7).epoch()).isZero();
    }

    @Test
    void checksOnlyTheEpochOfLaterBatchesOfANewProducersFirstAppend() {
        // Kafka waives the sequence check while the producer had no epoch before the append.
        assertThat(append(batch(9, 0, 10, 1), batch(9, 0, 30, 1))).isNull();
        assertThat(entry(9).lastSequence()).isEqualTo(30);
        assertThatThrownBy(() -> append(batch(9, 1, 0, 1), batch(9, 0, 0, 1)))
                .isInstanceOf(InvalidProducerEpochException.class);
    }

    @Test
    void aRetryLaterInAnAppendAnswersTheWholeAppendAndStoresNothing() {
        append(batch(7, 0, 0, 2));
        BatchMetadata original = append(batch(8, 0, 0, 1), batch(7, 0, 0, 2));
        assertThat(original.firstOffset()).isZero();
        assertThat(table.entry(8)).isEmpty();
    }

    @Test
    void appliesNothingUntilCommit() {
        ProducerAppend append = table.prepare();
        assertThat(append.check(batch(7, 0, 0, 3).at(0))).isNull();
        assertThat(append.check(batch(7, 0, 3, 1).at(3))).isNull();
        assertThat(table.entry(7)).isEmpty();
        assertThat(table.producerCount()).isZero();
        append.commit();
        assertThat(entry(7).batches())
                .containsExactly(new BatchMetadata(0, 2, 0, 2, T0), new BatchMetadata(3, 3, 3, 3, T0));
        assertThat(entry(7).lastTimestamp()).isEqualTo(T0);
    }

    @Test
    void anAppendThatFailedACheckCannotBeCommitted() {
        append(batch(7, 0, 0, 1));
        ProducerAppend append = table.prepare();
        assertThat(append.check(batch(8, 0, 0, 1).at(1))).isNull();
        assertThatThrownBy(() -> append.check(batch(7, 0, 5, 1).at(2))).isInstanceOf(OutOfOrderSequenceException.class);
        assertThatThrownBy(append::commit).isInstanceOf(IllegalStateException.class);
        assertThat(table.entry(8)).isEmpty();
    }

    @Test
    void anAppendPreparedBeforeAnotherCommittedIsRefused() {
        ProducerAppend stale = table.prepare();
        append(batch(7, 0, 0, 1));
        assertThatThrownBy(() -> stale.check(batch(7, 0, 0, 1).at(1))).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(stale::commit).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void anAppendCommitsOnlyOnce() {
        ProducerAppend append = table.prepare();
        append.check(batch(7, 0, 0, 1).at(0));
        append.commit();
        assertThatThrownBy(append::commit).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void rejectsANegativeSequenceFromAnIdempotentProducer() {
        assertThatThrownBy(() -> append(batch(9, 0, -5, 1)))
                .isInstanceOf(InvalidRecordBatchException.class)
                .hasMessageContaining("orders-3")
                .hasMessageContaining("producer 9")
                .hasMessageContaining("-5");
        assertThat(table.entry(9)).isEmpty();
    }

    @Test
    void batchesWithoutAProducerIdAlwaysPass() {
        ProducerAppend append = table.prepare();
        BatchHeader plain = header(-1, (short) -1, -1, 3, 0, T0);
        assertThat(append.check(plain)).isNull();
        assertThat(append.check(plain)).isNull();
        append.commit();
        table.replay(plain);
        assertThat(table.producerCount()).isZero();
    }

    @Test
    void expiresProducersWhoseLastBatchIsAtLeastTheExpirationOld() {
        append(new Batch(1, (short) 0, 0, 1, T0));
        append(new Batch(2, (short) 0, 0, 1, T0 + 500));
        append(new Batch(3, (short) 0, 0, 1, T0 + 5_000));

        assertThat(table.removeExpired(T0 + 10_000, 10_000)).isEqualTo(1);
        assertThat(table.entry(1)).isEmpty();
        assertThat(table.producerCount()).isEqualTo(2);

        assertThat(table.removeExpired(T0 + 10_499, 10_000)).isZero();
        assertThat(table.removeExpired(T0 + 15_000, 10_000)).isEqualTo(2);
        assertThat(table.producerCount()).isZero();
    }

    @Test
    void expiryReadsTheLastBatchNotTheFirst() {
        append(new Batch(1, (short) 0, 0, 1, T0));
        append(new Batch(1, (short) 0, 1, 1, T0 + 9_000));
        assertThat(table.removeExpired(T0 + 10_000, 10_000)).isZero();
        assertThat(entry(1).lastTimestamp()).isEqualTo(T0 + 9_000);
    }

    @Test
    void replayRebuildsWhatTheChecksBuilt() {
        append(batch(7, 0, 0, 2), batch(8, 3, 100, 1));
        for (int i = 0; i < 6; i++) {
            append(batch(7, 0, 2 + i, 1));
        }
        append(batch(8, 4, 0, 1));

        List<Batch> stored = new ArrayList<>(List.of(batch(7, 0, 0, 2), batch(8, 3, 100, 1)));
        for (int i = 0; i < 6; i++) {
            stored.add(batch(7, 0, 2 + i, 1));
        }
        stored.add(batch(8, 4, 0, 1));
        ProducerStateTable rebuilt = new ProducerStateTable("orders-3");
        long offset = 0;
        for (Batch b : stored) {
            BatchHeader h = b.at(offset);
            rebuilt.replay(h);
            offset = h.nextOffset();
        }

        assertThat(rebuilt.entries()).isEqualTo(table.entries());
    }

    @Test
    void clearForgetsEveryProducer() {
        append(batch(7, 0, 0, 1), batch(8, 0, 0, 1));
        table.clear();
        assertThat(table.producerCount()).isZero();
        assertThat(append(batch(7, 0, 9, 1))).isNull();
    }
}
