package io.orderflow.contracts;

/**
 * A record value that this reader cannot turn into an event. Consumers catch this one type to dead-letter the record;
 * the subclass says why, and its message names the values involved.
 *
 * <p>Unchecked because it is thrown from deep inside decoding and consumers handle it at one place, their poll loop.
 */
public abstract sealed class UndecodableEventException extends RuntimeException
        permits MalformedEventException, UnknownEventTypeException, UnsupportedEventVersionException {

    UndecodableEventException(String message, Throwable cause) {
        super(message, cause);
    }
}
