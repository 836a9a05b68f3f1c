package io.orderflow.broker.log;

/**
 * An idempotent producer's batch does not continue its sequence: within an epoch the base sequence must be
 * one more than the last sequence stored (wrapping from {@link Integer#MAX_VALUE} to 0), and a new epoch must
 * start at 0. Batches were lost or reordered between the producer and us, so storing this one would leave a
 * gap or a reordering the producer believes did not happen. Nothing of the append is stored. Maps to
 * OUT_OF_ORDER_SEQUENCE_NUMBER.
 */
public final class OutOfOrderSequenceException extends LogException {
    private final String partition;
    private final long producerId;
    private final short epoch;
    private final short currentEpoch;
    private final int expectedSequence;
    private final int receivedSequence;
    private final long offset;

    /**
     * @param epoch the batch's epoch; when it differs from {@code currentEpoch} the batch opens a new epoch and
     *     {@code expectedSequence} is 0
     */
    public OutOfOrderSequenceException(
            String partition,
            long producerId,
            short epoch,
            short currentEpoch,
            int expectedSequence,
            int receivedSequence,
            long offset) {
        super(message(partition, producerId, epoch, currentEpoch, expectedSequence, receivedSequence, offset));
        this.partition = partition;
        this.producerId = producerId;
        this.epoch = epoch;
        this.currentEpoch = currentEpoch;
        this.expectedSequence = expectedSequence;
        this.receivedSequence = receivedSequence;
        this.offset = offset;
    }

    private static String message(
            String partition,
            long producerId,
            short epoch,
            short currentEpoch,
            int expectedSequence,
            int receivedSequence,
            long offset) {
        String where = " in " + partition + " at offset " + offset + ": expected " + expectedSequence;
        return epoch == currentEpoch
                ? "Out of order sequence from producer " + producerId + " (epoch " + epoch + ")" + where + ", received "
                        + receivedSequence
                : "Out of order sequence from producer " + producerId + " opening epoch " + epoch + " (current "
                        + currentEpoch + ")" + where + " (a new epoch starts at 0), received " + receivedSequence;
    }

    public String partition() {
        return partition;
    }

    public long producerId() {
        return producerId;
    }

    /** The epoch the rejected batch carried. */
    public short epoch() {
        return epoch;
    }

    /** The producer's epoch before this batch, as far as this append has seen. */
    public short currentEpoch() {
        return currentEpoch;
    }

    public int expectedSequence() {
        return expectedSequence;
    }

    /** The base sequence of the rejected batch. */
    public int receivedSequence() {
        return receivedSequence;
    }

    /** The offset the batch would have been stored at. */
    public long offset() {
        return offset;
    }
}
