package io.orderflow.broker.security;

import java.util.Set;

/**
 * What one connection is, security-wise: the listener it came in on, who it acts as, and the state of its SASL
 * login. On a listener without SASL the principal is known at once ({@code User:ANONYMOUS}, or the client
 * certificate's subject on TLS with client authentication). On a SASL listener it is known once a login
 * completes; until then only ApiVersions, SaslHandshake and SaslAuthenticate are served, and the connection is
 * closed on anything else (as Kafka does).
 *
 * <p><b>Re-authentication</b> (KIP-368): with {@code connections.max.reauth.ms} set, a login lasts that long; the
 * client logs in again on the same connection before then (as the same principal; another one fails the login).
 * A request other than the three above after the session expired closes the connection.
 *
 * <p>Thread-safety: used by its connection's reading thread, one request at a time; the principal is volatile so
 * the writing thread's logs read it safely.
 */
public final class ConnectionSession {
    private final String listener;
    private final ListenerProtocol protocol;
    private final String clientAddress;
    private final Set<String> mechanisms;
    private volatile KafkaPrincipal principal;
    private SaslExchange exchange;
    private long expiresAtMs = Long.MAX_VALUE;
    private boolean closeAfterReply;
    private boolean rawTokens;

    private ConnectionSession(
            String listener,
            ListenerProtocol protocol,
            String clientAddress,
            Set<String> mechanisms,
            KafkaPrincipal principal) {
        this.listener = listener;
        this.protocol = protocol;
        this.clientAddress = clientAddress;
        this.mechanisms = Set.copyOf(mechanisms);
        this.principal = principal;
    }

    /**
     * A new connection's session: on a SASL listener nobody yet, else {@code tlsPrincipal} (the client
     * certificate's subject) or {@code User:ANONYMOUS}.
     */
    public static ConnectionSession open(
            String listener,
            ListenerProtocol protocol,
            String clientAddress,
            Set<String> mechanisms,
            KafkaPrincipal tlsPrincipal) {
        KafkaPrincipal principal =
                protocol.usesSasl() ? null : tlsPrincipal != null ? tlsPrincipal : KafkaPrincipal.ANONYMOUS;
        return new ConnectionSession(listener, protocol, clientAddress, mechanisms, principal);
    }

    /** An anonymous plaintext connection's session from the loopback address, for tests. */
    public static ConnectionSession plaintext() {
        return open("PLAINTEXT", ListenerProtocol.PLAINTEXT, "127.0.0.1", Set.of(), null);
    }

    /** The client's IP address, as ACLs match hosts. */
    public String clientAddress() {
        return clientAddress;
    }

    public String listener() {
        return listener;
    }

    public ListenerProtocol protocol() {
        return protocol;
    }

    /** The SASL mechanisms this listener offers. */
    public Set<String> mechanisms() {
        return mechanisms;
    }

    /** Who the connection acts as; null on a SASL listener before the first login. */
    public KafkaPrincipal principal() {
        return principal;
    }

    /** Whether requests other than ApiVersions and the SASL ones may be served at {@code nowMs}. */
    public boolean mayServe(long nowMs) {
        return principal != null && nowMs < expiresAtMs;
    }

    /**
     * A SaslHandshake chose a mechanism: the next tokens go to {@code exchange}, in SaslAuthenticate requests or,
     * after a v0 handshake ({@code raw}), as bare size-prefixed frames without a Kafka header, as Kafka's first SASL
     * protocol sent them (librdkafka insists that v0 is offered).
     */
    public void beginLogin(SaslExchange exchange, boolean raw) {
        this.exchange = exchange;
        this.rawTokens = raw;
    }

    /** Whether the next frame is a bare SASL token (after a v0 handshake) rather than a Kafka request. */
    public boolean expectsRawToken() {
        return rawTokens && exchange != null;
    }

    /** The login in progress, or null when no SaslHandshake preceded. */
    public SaslExchange login() {
        return exchange;
    }

    /**
     * The login completed as {@code who}; it lasts until {@code expiresAtMs} ({@code Long.MAX_VALUE}: for ever).
     *
     * @return false when this was a re-authentication as somebody else; the connection must close
     */
    public boolean loggedIn(KafkaPrincipal who, long expiresAtMs) {
        exchange = null;
        rawTokens = false;
        if (principal != null && !principal.equals(who)) {
            return false;
        }
        this.principal = who;
        this.expiresAtMs = expiresAtMs;
        return true;
    }

    /** The login failed or the client broke the protocol: answer, then close. */
    public void closeAfterReply() {
        exchange = null;
        rawTokens = false;
        closeAfterReply = true;
    }

    public boolean mustClose() {
        return closeAfterReply;
    }
}
