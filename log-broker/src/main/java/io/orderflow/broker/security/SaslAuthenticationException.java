package io.orderflow.broker.security;

/**
 * A failed SASL login. The message is what the client is told and never says which part was wrong (unknown user
 * or wrong password read the same); {@link #reason()} is for the broker's log and never contains a secret.
 */
public final class SaslAuthenticationException extends RuntimeException {
    private final String reason;

    public SaslAuthenticationException(String mechanism, String reason) {
        super("Authentication failed during authentication due to invalid credentials with SASL mechanism "
                + mechanism);
        this.reason = reason;
    }

    public String reason() {
        return reason;
    }
}
