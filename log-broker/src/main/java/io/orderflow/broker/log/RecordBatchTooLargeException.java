package io.orderflow.broker.log;

/** A batch larger than the topic's {@code max.message.bytes}. Maps to MESSAGE_TOO_LARGE. */
public final class RecordBatchTooLargeException extends LogException {
    private final int size;
    private final int limit;

    public RecordBatchTooLargeException(String partition, int size, int limit) {
        super("Record batch of " + size + " bytes for " + partition + " exceeds max.message.bytes=" + limit);
        this.size = size;
        this.limit = limit;
    }

    public int size() {
        return size;
    }

    public int limit() {
        return limit;
    }
}
