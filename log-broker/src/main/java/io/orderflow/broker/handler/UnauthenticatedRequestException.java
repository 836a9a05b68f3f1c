package io.orderflow.broker.handler;

/**
 * A request that needs a logged-in connection arrived on a SASL listener before the login, or after the login's
 * session expired ({@code connections.max.reauth.ms}). Kafka closes such a connection without an answer, and so
 * does the connection that catches this.
 */
public final class UnauthenticatedRequestException extends RuntimeException {
    public UnauthenticatedRequestException(String message) {
        super(message);
    }
}
