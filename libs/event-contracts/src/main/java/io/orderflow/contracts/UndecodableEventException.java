package io.orderflow.contracts;

/**
 * A record value that this reader cannot turn into an event. The subclass says why, and its message names the values
 * involved: consumers dead-letter a {@link MalformedEventException} or {@link UnsupportedEventVersionException} at once
 * (no retry changes the bytes) and skip an {@link UnknownEventTypeException} (a type newer than the reader).
 *
 * <p>Unchecked because it is thrown from deep inside decoding and consumers handle it at one place, their poll loop.
 */
public abstract sealed class UndecodableEventException extends RuntimeException
        permits MalformedEventException, UnknownEventTypeException, UnsupportedEventVersionException {

    UndecodableEventException(String message, Throwable cause) {
        super(message, cause);
    }
}
