package io.orderflow.broker.handler;

import io.orderflow.broker.security.ConnectionSession;
import io.orderflow.broker.security.KafkaPrincipal;

/**
 * Who sent a request: for logs, metrics and group membership ({@code client.id}, host), and for authorisation
 * (the connection's {@link ConnectionSession}: its listener and principal).
 */
public record ClientInfo(String connectionId, String clientId, String host, ConnectionSession session) {
    /** An anonymous plaintext client, for tests. */
    public ClientInfo(String connectionId, String clientId, String host) {
        this(connectionId, clientId, host, ConnectionSession.plaintext());
    }

    /** Who the connection acts as; {@code User:ANONYMOUS} without authentication. */
    public KafkaPrincipal principal() {
        KafkaPrincipal principal = session.principal();
        return principal == null ? KafkaPrincipal.ANONYMOUS : principal;
    }
}
