package io.orderflow.broker.log;

/**
 * A well-formed batch we will not store: transactional or control batches (we do not implement
 * transactions), an empty append. Maps to INVALID_RECORD.
 */
public final class InvalidRecordBatchException extends LogException {
    public InvalidRecordBatchException(String partition, String problem) {
        super("Invalid record batch for " + partition + ": " + problem);
    }
}
