package io.orderflow.broker.log;

/**
 * A batch that contradicts the producer's transaction on this partition: a non-transactional batch while its
 * transaction is open, or a transactional batch for a partition its transaction never added. Nothing of the append
 * is stored. Maps to INVALID_TXN_STATE.
 */
public final class InvalidTxnStateException extends LogException {
    public InvalidTxnStateException(String partition, String problem) {
        super("Invalid transaction state on " + partition + ": " + problem);
    }
}
