package io.orderflow.broker.txn;

import io.orderflow.broker.log.LogException;

/**
 * The transaction log could not make a state change durable (the disk failed or was too slow): nothing changed. Maps
 * to COORDINATOR_NOT_AVAILABLE, which clients retry, as Kafka answers a failed write to its transaction log.
 */
public final class TransactionLogUnavailableException extends LogException {
    public TransactionLogUnavailableException(String transactionalId, Throwable cause) {
        super(
                "The state of transactional id " + transactionalId + " could not be written: " + cause.getMessage(),
                cause);
    }
}
