package io.orderflow.broker.log;

import java.util.HashMap;
import java.util.Map;

/**
 * The producer-state side of one append (one produce request's batches for a partition): checks each batch
 * against the producer's epoch and sequence before anything is written, and applies them all once the
 * bytes are in the log. Obtained from {@link ProducerStateTable#prepare()}.
 *
 * <p>The rules are Kafka's ({@code ProducerAppendInfo}, {@code UnifiedLog.analyzeAndValidateProducerState}):
 *
 * <ol>
 *   <li><b>Duplicate.</b> A batch with the producer's stored epoch and the sequence range of one of its
 *       retained batches is a retry: {@link #check} returns the original's metadata and the caller stores
 *       nothing. Duplicates are looked up in the committed state only, not among earlier batches of this
 *       append (as in Kafka).
 *   <li><b>Epoch.</b> An epoch below the producer's current one (including one raised by an earlier batch of
 *       this append) is a fenced producer: {@link InvalidProducerEpochException}.
 *   <li><b>New epoch.</b> A batch that raises the epoch must start at sequence 0, unless the partition knows no
 *       epoch for the producer (a producer id never seen, or whose state was expired or lost with the log
 *       that held it): then any sequence is accepted, since we cannot tell a gap from forgotten history.
 *   <li><b>Same epoch.</b> The base sequence must follow the last stored one ({@code last + 1}, or 0 after
 *       {@link Integer#MAX_VALUE}), where "last stored" includes earlier batches of this append. Kafka waives
 *       this check too while the producer had no epoch before this append: for a producer first seen in this
 *       append, none of the append's batches is sequence-checked, only their epochs. We keep that.
 * </ol>
 *
 * <p>A transactional batch opens the producer's transaction here if none is open (its offset becomes the
 * transaction's first, which holds the last stable offset back until a marker closes it); a non-transactional batch
 * while one is open is refused ({@link InvalidTxnStateException}), as in Kafka.
 *
 * Violations of 3 and 4 throw {@link OutOfOrderSequenceException}. A batch with a producer id and a negative
 * base sequence is malformed ({@link InvalidRecordBatchException}, as Kafka's {@code LogValidator} does).
 * After a throw this object is spent: {@link #commit} refuses, and the caller writes nothing.
 *
 * <p>Not thread-safe; used under the partition's append lock, like the table it came from. The table must
 * not change between {@link ProducerStateTable#prepare()} and {@link #commit()}; both methods check it.
 */
final class ProducerAppend {
    private final ProducerStateTable table;
    private final long preparedAtVersion;
    /** A coordinator's own transactional write: no sequences (Kafka's {@code AppendOrigin.COORDINATOR}). */
    private final boolean coordinator;
    /** Producers this append touched: their entry as it will be after the append. */
    private final Map<Long, ProducerEntry> updated = new HashMap<>(4);

    private boolean spent;

    ProducerAppend(ProducerStateTable table, long preparedAtVersion, boolean coordinator) {
        this.table = table;
        this.preparedAtVersion = preparedAtVersion;
        this.coordinator = coordinator;
    }

    /**
     * Checks one batch whose base offset is already the one it will be stored at.
     *
     * @return null when the batch may be appended (it is then remembered for {@link #commit}); the original
     *     batch's metadata when {@code batch} duplicates one of the producer's retained batches, in which case
     *     the caller appends nothing and answers with the original offsets
     * @throws InvalidProducerEpochException when the batch's epoch is older than the producer's
     * @throws OutOfOrderSequenceException when its base sequence does not continue the producer's sequence
     * @throws InvalidRecordBatchException when it has a producer id but a negative base sequence
     */
    BatchMetadata check(BatchHeader batch) {
        ensureUsable();
        if (!batch.hasProducerId()) {
            if (batch.isTransactional()) {
                spent = true;
                throw new InvalidRecordBatchException(
                        table.partitionName(), "a transactional batch must carry a producer id");
            }
            return null;
        }
        long producerId = batch.producerId();
        if (coordinator) {
            return checkCoordinatorWrite(batch);
        }
        if (batch.baseSequence() < 0) {
            spent = true;
            throw new InvalidRecordBatchException(
                    table.partitionName(),
                    "producer " + producerId + " sent base sequence " + batch.baseSequence()
                            + "; an idempotent batch's sequence is never negative");
        }
        ProducerEntry committed = table.committedEntry(producerId);
        if (committed != null) {
            BatchMetadata original = committed.duplicateOf(batch);
            if (original != null) {
                return original;
            }
        }
        ProducerEntry current = updated.getOrDefault(producerId, committed);
        short epoch = batch.producerEpoch();
        short currentEpoch = current == null ? ProducerEntry.NO_EPOCH : current.epoch();
        int sequence = batch.baseSequence();
        if (epoch < currentEpoch) {
            spent = true;
            throw new InvalidProducerEpochException(
                    table.partitionName(), producerId, epoch, currentEpoch, batch.baseOffset());
        }
        if (epoch != currentEpoch) {
            if (sequence != 0 && currentEpoch != ProducerEntry.NO_EPOCH) {
                throw outOfOrder(batch, currentEpoch, 0);
            }
        } else {
            boolean epochKnownBefore = committed != null && committed.epoch() != ProducerEntry.NO_EPOCH;
            int last = current == null ? ProducerEntry.NO_SEQUENCE : current.lastSequence();
            if (epochKnownBefore && sequence != next(last)) {
                throw outOfOrder(batch, currentEpoch, next(last));
            }
        }
        BatchMetadata metadata = BatchMetadata.of(batch);
        ProducerEntry next =
                current == null ? ProducerEntry.first(producerId, epoch, metadata) : current.with(epoch, metadata);
        if (batch.isTransactional()) {
            next = next.openingTransactionAt(batch.baseOffset());
        } else if (current != null && current.inTransaction()) {
            spent = true;
            throw new InvalidTxnStateException(
                    table.partitionName(),
                    "producer " + producerId + " sent a non-transactional batch while its transaction from offset "
                            + current.txnFirstOffset() + " is open");
        }
        updated.put(producerId, next);
        return null;
    }

    /**
     * A group coordinator's transactional offsets, written for a producer: its epoch is checked (a fenced producer's
     * offsets are refused) and its transaction opened, but there are no sequences to check.
     */
    private BatchMetadata checkCoordinatorWrite(BatchHeader batch) {
        long producerId = batch.producerId();
        ProducerEntry current = updated.getOrDefault(producerId, table.committedEntry(producerId));
        short epoch = batch.producerEpoch();
        if (current != null && epoch < current.epoch()) {
            spent = true;
            throw new InvalidProducerEpochException(
                    table.partitionName(), producerId, epoch, current.epoch(), batch.baseOffset());
        }
        ProducerEntry next = current == null
                ? new ProducerEntry(producerId, epoch, batch.maxTimestamp(), java.util.List.of())
                : current.epoch() == epoch
                        ? current
                        : new ProducerEntry(
                                producerId, epoch, batch.maxTimestamp(), java.util.List.of(), current.txnFirstOffset());
        updated.put(producerId, batch.isTransactional() ? next.openingTransactionAt(batch.baseOffset()) : next);
        return null;
    }

    /** Applies every batch that passed {@link #check}; call once the batches are written to the log. */
    void commit() {
        ensureUsable();
        spent = true;
        table.apply(updated.values());
    }

    /** The sequence that follows {@code last}; 0 after {@link Integer#MAX_VALUE} and after none. */
    static int next(int last) {
        return last == Integer.MAX_VALUE ? 0 : last + 1;
    }

    private OutOfOrderSequenceException outOfOrder(BatchHeader batch, short currentEpoch, int expected) {
        spent = true;
        return new OutOfOrderSequenceException(
                table.partitionName(),
                batch.producerId(),
                batch.producerEpoch(),
                currentEpoch,
                expected,
                batch.baseSequence(),
                batch.baseOffset());
    }

    private void ensureUsable() {
        if (spent) {
            throw new IllegalStateException("This append to " + table.partitionName()
                    + " was already committed or failed a check; prepare a new one");
        }
        table.ensureUnchangedSince(preparedAtVersion);
    }
}
