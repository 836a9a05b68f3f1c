package io.orderflow.broker.security;

/**
 * The server's side of one SASL login on one connection: fed each token the client sends in a SaslAuthenticate
 * request, it answers with the token to send back, until {@link #complete()}. Not thread-safe; a connection's
 * requests are handled one at a time.
 */
public sealed interface SaslExchange permits ScramServerExchange, PlainServerExchange {
    /**
     * @return the token to send back
     * @throws SaslAuthenticationException when the login fails; the exchange is over
     */
    byte[] evaluate(byte[] clientToken);

    boolean complete();

    /** Who logged in; only once {@link #complete()}. */
    KafkaPrincipal principal();

    String mechanism();
}
