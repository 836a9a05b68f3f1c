package io.orderflow.consumer;

/**
 * An event that can never be applied, whatever the retries: its record goes to the dead-letter topic at once, whatever
 * its cause ({@link FailureKind#PERMANENT}).
 */
public class RejectedEventException extends RuntimeException {
    public RejectedEventException(String message) {
        super(message);
    }

    public RejectedEventException(String message, Throwable cause) {
        super(message, cause);
    }
}
