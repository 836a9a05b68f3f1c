package io.orderflow.broker.log;

/**
 * An idempotent producer sent a batch with an epoch older than the one this partition has seen from it: a
 * zombie instance that was fenced by a newer one. Nothing of the append is stored. Maps to
 * INVALID_PRODUCER_EPOCH.
 */
public final class InvalidProducerEpochException extends LogException {
    private final String partition;
    private final long producerId;
    private final short epoch;
    private final short currentEpoch;
    private final long offset;

    public InvalidProducerEpochException(
            String partition, long producerId, short epoch, short currentEpoch, long offset) {
        super("Producer " + producerId + " sent a batch with epoch " + epoch + " to " + partition + " (at offset "
                + offset + "), older than its current epoch " + currentEpoch);
        this.partition = partition;
        this.producerId = producerId;
        this.epoch = epoch;
        this.currentEpoch = currentEpoch;
        this.offset = offset;
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

    /** The newest epoch the partition knows for this producer. */
    public short currentEpoch() {
        return currentEpoch;
    }

    /** The offset the batch would have been stored at. */
    public long offset() {
        return offset;
    }
}
