package io.orderflow.platform;

/** A command line the launcher does not understand; the message names the argument. */
public final class InvalidArgumentsException extends IllegalArgumentException {

    InvalidArgumentsException(String message) {
        super(message);
    }
}
