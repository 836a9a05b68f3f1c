package io.orderflow.broker.handler;

import io.orderflow.broker.security.ConnectionSession;
import io.orderflow.broker.security.Logins;
import io.orderflow.broker.security.SaslAuthenticationException;
import io.orderflow.broker.security.SaslExchange;
import java.time.Clock;
import org.apache.kafka.common.message.SaslAuthenticateResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.SaslAuthenticateRequest;
import org.apache.kafka.common.requests.SaslAuthenticateResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * SaslAuthenticate (v0-v2): one token of the login the last SaslHandshake began. When the login completes the
 * connection acts as its principal; from v1 the answer carries {@code session_lifetime_ms} when
 * {@code connections.max.reauth.ms} is set, and the client logs in again before it ends (KIP-368).
 *
 * <p>A failed login is answered {@code SASL_AUTHENTICATION_FAILED} with a message that does not say what was
 * wrong, after the delay {@link Logins} sets, and the connection closes. A token without a preceding
 * handshake is {@code ILLEGAL_SASL_STATE}, and on a SASL listener the connection closes too (on another listener
 * it stays open, as in Kafka).
 */
public final class SaslAuthenticateHandler implements ApiHandler<SaslAuthenticateRequest> {
    private static final Logger log = LoggerFactory.getLogger(SaslAuthenticateHandler.class);

    private final Logins logins;
    private final Clock clock;
    private final long reauthMs;

    public SaslAuthenticateHandler(Logins logins, Clock clock, long reauthMs) {
        this.logins = logins;
        this.clock = clock;
        this.reauthMs = reauthMs;
    }

    @Override
    public AbstractResponse handle(ClientInfo client, SaslAuthenticateRequest request) {
        ConnectionSession session = client.session();
        SaslExchange exchange = session.login();
        SaslAuthenticateResponseData data = new SaslAuthenticateResponseData().setAuthBytes(new byte[0]);
        if (exchange == null) {
            if (session.protocol().usesSasl()) {
                session.closeAfterReply();
            }
            return new SaslAuthenticateResponse(data.setErrorCode(Errors.ILLEGAL_SASL_STATE.code())
                    .setErrorMessage("SaslAuthenticate without a SaslHandshake before it"));
        }
        byte[] answer;
        try {
            answer = exchange.evaluate(request.data().authBytes());
        } catch (SaslAuthenticationException e) {
            return refuse(client, session, exchange.mechanism(), e.reason(), e.getMessage(), data);
        }
        data.setAuthBytes(answer);
        if (!exchange.complete()) {
            return new SaslAuthenticateResponse(data.setErrorCode(Errors.NONE.code()));
        }
        long now = clock.millis();
        long expiresAt = reauthMs > 0 ? now + reauthMs : Long.MAX_VALUE;
        if (!session.loggedIn(exchange.principal(), expiresAt)) {
            return refuse(
                    client,
                    session,
                    exchange.mechanism(),
                    "re-authentication as " + exchange.principal() + " instead of " + session.principal(),
                    "Cannot change principals during re-authentication",
                    data);
        }
        logins.succeeded(exchange.mechanism());
        log.atDebug()
                .addKeyValue("connection", client.connectionId())
                .addKeyValue("principal", exchange.principal())
                .addKeyValue("mechanism", exchange.mechanism())
                .log("SASL login");
        return new SaslAuthenticateResponse(data.setErrorCode(Errors.NONE.code())
                .setSessionLifetimeMs(reauthMs > 0 && request.version() >= 1 ? reauthMs : 0));
    }

    /**
     * A bare token after a v0 SaslHandshake: the answer's bytes, or empty when the login failed (after the delay
     * {@link Logins} sets), in which case the connection closes without an answer, as Kafka closes it.
     */
    public java.util.Optional<byte[]> rawToken(ClientInfo client, byte[] token) {
        ConnectionSession session = client.session();
        SaslExchange exchange = session.login();
        byte[] answer;
        try {
            answer = exchange.evaluate(token);
        } catch (SaslAuthenticationException e) {
            session.closeAfterReply();
            delay(logins.failed(exchange.mechanism(), session.clientAddress(), client.connectionId(), e.reason()));
            return java.util.Optional.empty();
        }
        if (exchange.complete()) {
            long expiresAt = reauthMs > 0 ? clock.millis() + reauthMs : Long.MAX_VALUE;
            if (!session.loggedIn(exchange.principal(), expiresAt)) {
                session.closeAfterReply();
                delay(logins.failed(
                        exchange.mechanism(),
                        session.clientAddress(),
                        client.connectionId(),
                        "re-authentication as somebody else"));
                return java.util.Optional.empty();
            }
            logins.succeeded(exchange.mechanism());
        }
        return java.util.Optional.of(answer);
    }

    private static void delay(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private SaslAuthenticateResponse refuse(
            ClientInfo client,
            ConnectionSession session,
            String mechanism,
            String reason,
            String message,
            SaslAuthenticateResponseData data) {
        session.closeAfterReply();
        delay(logins.failed(mechanism, session.clientAddress(), client.connectionId(), reason));
        return new SaslAuthenticateResponse(data.setAuthBytes(new byte[0])
                .setErrorCode(Errors.SASL_AUTHENTICATION_FAILED.code())
                .setErrorMessage(message));
    }
}
