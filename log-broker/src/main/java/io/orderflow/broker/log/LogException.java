package io.orderflow.broker.log;

/**
 * The root of the storage layer's typed failures. Each subclass names the values involved; the broker's
 * request handlers map each subclass to exactly one Kafka error code, in one table.
 */
public abstract class LogException extends RuntimeException {
    protected LogException(String message) {
        super(message);
    }

    protected LogException(String message, Throwable cause) {
        super(message, cause);
    }
}
