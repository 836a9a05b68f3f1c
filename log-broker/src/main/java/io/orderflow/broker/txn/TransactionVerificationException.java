package io.orderflow.broker.txn;

import io.orderflow.broker.log.LogException;

/**
 * A transactional write the coordinator cannot place in an open transaction (KIP-890's server-side defence): its
 * producer id belongs to no transactional id, its transaction is not open, or the partition (or the group's offsets)
 * was never added to it. Nothing is written. Maps to INVALID_TXN_STATE.
 */
public final class TransactionVerificationException extends LogException {
    public TransactionVerificationException(String message) {
        super(message);
    }
}
