package io.orderflow.broker.log;

/**
 * A record without a key in an append to a compacted topic ({@code cleanup.policy} with {@code compact}). Compaction
 * keeps the latest record of each key, so a keyless record has no place in such a log; Apache Kafka's
 * {@code LogValidator} refuses it the same way. Nothing of the append is stored. Maps to INVALID_RECORD.
 */
public final class RecordWithoutKeyException extends LogException {
    private final String partition;
    private final int batchIndex;
    private final int recordIndex;

    public RecordWithoutKeyException(String partition, int batchIndex, int recordIndex) {
        super("Record " + recordIndex + " of batch " + batchIndex + " for " + partition
                + " has no key; a compacted topic keeps the latest record of each key, so every record needs one");
        this.partition = partition;
        this.batchIndex = batchIndex;
        this.recordIndex = recordIndex;
    }

    /** The partition's name, e.g. {@code orders-3}. */
    public String partition() {
        return partition;
    }

    /** Which batch of the append holds it, 0 for the first. */
    public int batchIndex() {
        return batchIndex;
    }

    /** The record's position in its batch (its offset delta), 0 for the first. */
    public int recordIndex() {
        return recordIndex;
    }
}
