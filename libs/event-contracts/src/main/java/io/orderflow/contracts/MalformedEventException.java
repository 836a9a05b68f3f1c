package io.orderflow.contracts;

/**
 * The bytes are not a valid event: not JSON, not an object, a required envelope field missing or of the wrong type,
 * a payload that does not fit its declared type and version, or a text field that no consumer could store
 * ({@link StorableText}: a control character, an unpaired surrogate, more characters than the field allows). The message
 * names the field. Retrying cannot help: consumers dead-letter the record at once.
 */
public final class MalformedEventException extends UndecodableEventException {

    public MalformedEventException(String problem) {
        super(problem, null);
    }

    public MalformedEventException(String problem, Throwable cause) {
        super(problem, cause);
    }
}
