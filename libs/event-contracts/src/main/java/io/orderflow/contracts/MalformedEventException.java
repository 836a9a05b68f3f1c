package io.orderflow.contracts;

/**
 * The bytes are not a valid event: not JSON, not an object, a required envelope field missing or of the wrong type,
 * or a payload that does not fit its declared type and version. Retrying cannot help.
 */
public final class MalformedEventException extends UndecodableEventException {

    public MalformedEventException(String problem) {
        super(problem, null);
    }

    public MalformedEventException(String problem, Throwable cause) {
        super(problem, cause);
    }
}
