package io.orderflow.broker.log;

/**
 * What the producer state remembers of one appended batch of an idempotent producer: enough to recognise a
 * retry of it (its sequence range) and to answer the retry with the offsets the batch was first given.
 *
 * @param firstSequence the batch's base sequence
 * @param lastSequence its last sequence, after wraparound at {@link Integer#MAX_VALUE}
 * @param firstOffset the log offset of its first record
 * @param lastOffset the log offset of its last record
 * @param maxTimestamp its largest record timestamp; the producer's last timestamp, which expiry reads
 */
record BatchMetadata(int firstSequence, int lastSequence, long firstOffset, long lastOffset, long maxTimestamp) {

    /** The metadata of {@code batch}, whose base offset must already be the one it is (or will be) stored at. */
    static BatchMetadata of(BatchHeader batch) {
        return new BatchMetadata(
                batch.baseSequence(),
                batch.lastSequence(),
                batch.baseOffset(),
                batch.lastOffset(),
                batch.maxTimestamp());
    }

    boolean hasSequenceRange(int first, int last) {
        return firstSequence == first && lastSequence == last;
    }
}
