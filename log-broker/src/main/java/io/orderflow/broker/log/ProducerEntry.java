package io.orderflow.broker.log;

import java.util.ArrayList;
import java.util.List;

/**
 * The state of one idempotent producer in one partition: its current epoch, the metadata of its last
 * {@value #BATCHES_RETAINED} batches of that epoch (oldest first), and the timestamp of its last batch.
 *
 * <p>Five, as in Kafka, because a producer has at most five requests in flight per connection
 * ({@code max.in.flight.requests.per.connection}), so a retry can only duplicate one of its last five
 * batches. Batches of an older epoch are forgotten when a new epoch appears: the producer that sent them is
 * gone, and a retry from it is fenced by its epoch anyway.
 *
 * <p>Immutable: an append builds the next entry and the table swaps it in on commit, so a rejected append
 * leaves nothing half-applied.
 *
 * @param batches oldest first, at most {@value #BATCHES_RETAINED}, all of {@code epoch}; may be empty only in
 *     a snapshot written by hand or a future version
 */
record ProducerEntry(
        long producerId, short epoch, long lastTimestamp, List<BatchMetadata> batches, long txnFirstOffset) {
    static final int BATCHES_RETAINED = 5;
    /** Kafka's {@code RecordBatch.NO_PRODUCER_EPOCH}: the epoch of a producer we know nothing about. */
    static final short NO_EPOCH = -1;
    /** Kafka's {@code RecordBatch.NO_SEQUENCE}. */
    static final int NO_SEQUENCE = -1;
    /** {@link #txnFirstOffset} of a producer with no transaction open in this partition. */
    static final long NO_TRANSACTION = -1;

    ProducerEntry {
        if (batches.size() > BATCHES_RETAINED) {
            throw new IllegalArgumentException(
                    "producer " + producerId + " has " + batches.size() + " batches, at most " + BATCHES_RETAINED);
        }
        batches = List.copyOf(batches);
    }

    /** An entry with no transaction open. */
    ProducerEntry(long producerId, short epoch, long lastTimestamp, List<BatchMetadata> batches) {
        this(producerId, epoch, lastTimestamp, batches, NO_TRANSACTION);
    }

    /** The entry of a producer seen for the first time, with {@code batch} its only batch. */
    static ProducerEntry first(long producerId, short epoch, BatchMetadata batch) {
        return new ProducerEntry(producerId, epoch, batch.maxTimestamp(), List.of(batch));
    }

    /**
     * The entry after {@code batch} of {@code batchEpoch} is appended: a different epoch replaces the retained
     * batches, the same epoch adds to them and drops the oldest beyond {@value #BATCHES_RETAINED}.
     */
    ProducerEntry with(short batchEpoch, BatchMetadata batch) {
        if (batchEpoch != epoch) {
            return new ProducerEntry(producerId, batchEpoch, batch.maxTimestamp(), List.of(batch), txnFirstOffset);
        }
        int keep = Math.min(batches.size(), BATCHES_RETAINED - 1);
        List<BatchMetadata> next = new ArrayList<>(keep + 1);
        next.addAll(batches.subList(batches.size() - keep, batches.size()));
        next.add(batch);
        return new ProducerEntry(producerId, epoch, batch.maxTimestamp(), next, txnFirstOffset);
    }

    /** True while a transaction of this producer is open here: data written, no marker yet. */
    boolean inTransaction() {
        return txnFirstOffset != NO_TRANSACTION;
    }

    /** The entry once a transactional batch at {@code offset} opened a transaction (unchanged if one is open). */
    ProducerEntry openingTransactionAt(long offset) {
        return inTransaction() ? this : new ProducerEntry(producerId, epoch, lastTimestamp, batches, offset);
    }

    /**
     * The entry after a transaction marker of {@code markerEpoch}: no transaction open; a newer epoch (the coordinator
     * ended the transaction while fencing the producer) replaces the epoch and forgets the retained batches, so the
     * producer's next batch of that epoch starts at sequence 0.
     */
    ProducerEntry afterMarker(short markerEpoch, long timestamp) {
        return markerEpoch == epoch
                ? new ProducerEntry(producerId, epoch, Math.max(lastTimestamp, timestamp), batches, NO_TRANSACTION)
                : new ProducerEntry(
                        producerId, markerEpoch, Math.max(lastTimestamp, timestamp), List.of(), NO_TRANSACTION);
    }

    /** The last sequence stored, or {@link #NO_SEQUENCE} when no batch is retained. */
    int lastSequence() {
        return batches.isEmpty() ? NO_SEQUENCE : batches.getLast().lastSequence();
    }

    /**
     * The retained batch that {@code batch} repeats (same epoch, same first and last sequence), or null. A
     * retried batch always carries exactly the sequence range of the original, so a range match is a retry.
     */
    BatchMetadata duplicateOf(BatchHeader batch) {
        if (batch.producerEpoch() != epoch) {
            return null;
        }
        int first = batch.baseSequence();
        int last = batch.lastSequence();
        for (BatchMetadata retained : batches) {
            if (retained.hasSequenceRange(first, last)) {
                return retained;
            }
        }
        return null;
    }
}
