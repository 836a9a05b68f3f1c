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
        Step step = step(client, exchange, request.data().authBytes());
        if (step.refusal() != null) {
            return new SaslAuthenticateResponse(
                    data.setErrorCode(Errors.SASL_AUTHENTICATION_FAILED.code()).setErrorMessage(step.refusal()));
        }
        data.setAuthBytes(step.answer());
        return new SaslAuthenticateResponse(data.setErrorCode(Errors.NONE.code())
                .setSessionLifetimeMs(exchange.complete() && reauthMs > 0 && request.version() >= 1 ? reauthMs : 0));
    }

    /**
     * A bare token after a v0 SaslHandshake: the answer's bytes, or empty when the login failed (after the delay
     * {@link Logins} sets), in which case the connection closes without an answer, as Kafka closes it.
     */
    public java.util.Optional<byte[]> rawToken(ClientInfo client, byte[] token) {
        Step step = step(client, client.session().login(), token);
        return step.refusal() != null ? java.util.Optional.empty() : java.util.Optional.of(step.answer());
    }

    /** One token's outcome: the answer to send, or the message of a refusal (the connection then closes). */
    private record Step(byte[] answer, String refusal) {}

    /**
     * Feeds {@code token} to the login; when it completes, the connection acts as its principal for the session's
     * lifetime. A failure is counted, logged and delayed here, whichever way the token came.
     */
    private Step step(ClientInfo client, SaslExchange exchange, byte[] token) {
        ConnectionSession session = client.session();
        byte[] answer;
        try {
            answer = exchange.evaluate(token);
        } catch (SaslAuthenticationException e) {
            return refuse(client, exchange.mechanism(), e.reason(), e.getMessage());
        }
        if (!exchange.complete()) {
            return new Step(answer, null);
        }
        long expiresAt = reauthMs > 0 ? clock.millis() + reauthMs : Long.MAX_VALUE;
        if (!session.loggedIn(exchange.principal(), expiresAt)) {
            return refuse(
                    client,
                    exchange.mechanism(),
                    "re-authentication as " + exchange.principal() + " instead of " + session.principal(),
                    "Cannot change principals during re-authentication");
        }
        logins.succeeded(exchange.mechanism());
        log.atDebug()
                .addKeyValue("connection", client.connectionId())
                .addKeyValue("principal", exchange.principal())
                .addKeyValue("mechanism", exchange.mechanism())
                .log("SASL login");
        return new Step(answer, null);
    }

    private static void delay(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private Step refuse(ClientInfo client, String mechanism, String reason, String message) {
        ConnectionSession session = client.session();
        session.closeAfterReply();
        delay(logins.failed(mechanism, session.clientAddress(), client.connectionId(), reason));
        return new Step(new byte[0], message);
    }
}
