package io.orderflow.broker.protocol;

/**
 * A frame that is not a request we can read: too short, an unknown API key, a version the codec does not know,
 * bytes that do not parse. Kafka's answer, and ours, is to close the connection: there is no correlation id
 * we could trust to answer with. The connection closes the same way on the handler layer's subclasses, requests it
 * read but will not answer: one for an API or version the broker does not advertise, one whose error answer
 * cannot be built.
 */
public class MalformedRequestException extends RuntimeException {
    public MalformedRequestException(String message) {
        super(message);
    }

    public MalformedRequestException(String message, Throwable cause) {
        super(message + ": " + cause, cause);
    }
}
