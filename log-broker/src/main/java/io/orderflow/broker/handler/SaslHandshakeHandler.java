package io.orderflow.broker.handler;

import io.orderflow.broker.security.ConnectionSession;
import io.orderflow.broker.security.CredentialStore;
import io.orderflow.broker.security.PlainServerExchange;
import io.orderflow.broker.security.SaslExchange;
import io.orderflow.broker.security.ScramMechanism;
import io.orderflow.broker.security.ScramServerExchange;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.message.SaslHandshakeResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.SaslHandshakeRequest;
import org.apache.kafka.common.requests.SaslHandshakeResponse;

/**
 * SaslHandshake (v0-v1): the client names a mechanism; from v1 the SaslAuthenticate requests that follow carry its
 * tokens, after v0 the tokens follow as bare size-prefixed frames (see {@link SaslAuthenticateHandler#rawToken}).
 * Sent again on an authenticated connection, it starts a re-authentication (KIP-368). On a listener without SASL
 * it is {@code ILLEGAL_SASL_STATE} and nothing else happens, as in Kafka. On a SASL listener a second handshake
 * before the login completed is {@code ILLEGAL_SASL_STATE} and a mechanism the listener does not offer is
 * {@code UNSUPPORTED_SASL_MECHANISM} with the ones it does; the connection closes after either answer, as Kafka
 * closes it.
 */
public final class SaslHandshakeHandler implements ApiHandler<SaslHandshakeRequest> {
    private final CredentialStore credentials;

    public SaslHandshakeHandler(CredentialStore credentials) {
        this.credentials = credentials;
    }

    @Override
    public AbstractResponse handle(ClientInfo client, SaslHandshakeRequest request) {
        ConnectionSession session = client.session();
        List<String> offered = new ArrayList<>(session.mechanisms());
        offered.sort(null);
        SaslHandshakeResponseData data = new SaslHandshakeResponseData().setMechanisms(offered);
        if (!session.protocol().usesSasl()) {
            return new SaslHandshakeResponse(data.setErrorCode(Errors.ILLEGAL_SASL_STATE.code()));
        }
        if (session.login() != null) {
            session.closeAfterReply();
            return new SaslHandshakeResponse(data.setErrorCode(Errors.ILLEGAL_SASL_STATE.code()));
        }
        String mechanism = request.data().mechanism();
        if (!session.mechanisms().contains(mechanism)) {
            session.closeAfterReply();
            return new SaslHandshakeResponse(data.setErrorCode(Errors.UNSUPPORTED_SASL_MECHANISM.code()));
        }
        SaslExchange exchange = mechanism.equals(PlainServerExchange.MECHANISM)
                ? new PlainServerExchange(credentials)
                : new ScramServerExchange(ScramMechanism.forSaslName(mechanism).orElseThrow(), credentials);
        session.beginLogin(exchange, request.version() == 0);
        return new SaslHandshakeResponse(data.setErrorCode(Errors.NONE.code()));
    }
}
