package io.orderflow.broker.quota;

/** A quota alteration or filter that the protocol's rules refuse; answered INVALID_REQUEST with its message. */
public final class InvalidQuotaException extends RuntimeException {
    public InvalidQuotaException(String message) {
        super(message);
    }
}
