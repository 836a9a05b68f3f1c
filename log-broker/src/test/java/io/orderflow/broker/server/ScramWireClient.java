package io.orderflow.broker.server;

import io.orderflow.broker.security.ScramMechanism;
import io.orderflow.frames.WireClient;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.apache.kafka.common.message.SaslAuthenticateRequestData;
import org.apache.kafka.common.message.SaslHandshakeRequestData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.SaslAuthenticateRequest;
import org.apache.kafka.common.requests.SaslAuthenticateResponse;
import org.apache.kafka.common.requests.SaslHandshakeRequest;
import org.apache.kafka.common.requests.SaslHandshakeResponse;

/**
 * A SCRAM login spoken frame by frame over a {@link WireClient}, at a chosen SaslAuthenticate version, computing
 * the client proof as RFC 5802 says: for tests that need the wire itself (versions, replays, broken messages)
 * rather than kafka-clients' login.
 */
final class ScramWireClient {
    /** Salted passwords by mechanism, password, salt and iterations: Hi() is slow on purpose, and tests log in often. */
    private static final java.util.Map<String, byte[]> SALTED = new java.util.concurrent.ConcurrentHashMap<>();

    private static final String CLIENT_NONCE = "fyko+d2lbbFgONRv9qkxdawL";

    private final WireClient wire;
    private int correlationId = 1;

    ScramWireClient(WireClient wire) {
        this.wire = wire;
    }

    Errors handshake(String mechanism) throws IOException {
        return handshake(mechanism, (short) 1);
    }

    Errors handshake(String mechanism, short version) throws IOException {
        RequestHeader header = wire.send(
                new SaslHandshakeRequest.Builder(new SaslHandshakeRequestData().setMechanism(mechanism)).build(version),
                correlationId++);
        return Errors.forCode(
                ((SaslHandshakeResponse) wire.receive(header)).data().errorCode());
    }

    SaslAuthenticateResponse authenticate(byte[] token, short version) throws IOException {
        RequestHeader header = wire.send(
                new SaslAuthenticateRequest.Builder(new SaslAuthenticateRequestData().setAuthBytes(token))
                        .build(version),
                correlationId++);
        return (SaslAuthenticateResponse) wire.receive(header);
    }

    /** What one login exchanged: the final answer and the client-final message sent (for replays). */
    record Login(SaslAuthenticateResponse answer, String clientFinal) {
        Errors error() {
            return Errors.forCode(answer.data().errorCode());
        }
    }

    /**
     * A v0 handshake and a SCRAM login in bare size-prefixed tokens, as Kafka's first SASL protocol (and librdkafka's
     * check of it) has it.
     *
     * @return the server's final message, or empty when the broker closed the connection instead (a failed login)
     */
    java.util.Optional<String> loginWithBareTokens(ScramMechanism mechanism, String user, String password)
            throws IOException {
        if (handshake(mechanism.saslName(), (short) 0) != Errors.NONE) {
            throw new IllegalStateException("the v0 handshake was refused");
        }
        String clientFirstBare = "n=" + user + ",r=" + CLIENT_NONCE;
        wire.sendRaw(WireClient.withSize(("n,," + clientFirstBare).getBytes(StandardCharsets.UTF_8)));
        String serverFirst;
        try {
            serverFirst = new String(wire.receiveFrame().array(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return java.util.Optional.empty();
        }
        String clientFinal = clientFinal(mechanism, password, clientFirstBare, serverFirst);
        wire.sendRaw(WireClient.withSize(clientFinal.getBytes(StandardCharsets.UTF_8)));
        try {
            return java.util.Optional.of(new String(wire.receiveFrame().array(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            return java.util.Optional.empty();
        }
    }

    /** A handshake and a SCRAM login as {@code user}; stops at the first error. */
    Login login(ScramMechanism mechanism, String user, String password, short version) throws IOException {
        Errors handshake = handshake(mechanism.saslName());
        if (handshake != Errors.NONE) {
            throw new IllegalStateException("handshake answered " + handshake);
        }
        String clientFirstBare = "n=" + user + ",r=" + CLIENT_NONCE;
        SaslAuthenticateResponse first =
                authenticate(("n,," + clientFirstBare).getBytes(StandardCharsets.UTF_8), version);
        if (Errors.forCode(first.data().errorCode()) != Errors.NONE) {
            return new Login(first, null);
        }
        String serverFirst = new String(first.data().authBytes(), StandardCharsets.UTF_8);
        String clientFinal = clientFinal(mechanism, password, clientFirstBare, serverFirst);
        return new Login(authenticate(clientFinal.getBytes(StandardCharsets.UTF_8), version), clientFinal);
    }

    /** The client-final message answering {@code serverFirst}, with the proof RFC 5802 defines. */
    private static String clientFinal(
            ScramMechanism mechanism, String password, String clientFirstBare, String serverFirst) {
        String nonce = null;
        byte[] salt = null;
        int iterations = 0;
        for (String attribute : serverFirst.split(",")) {
            switch (attribute.charAt(0)) {
                case 'r' -> nonce = attribute.substring(2);
                case 's' -> salt = Base64.getDecoder().decode(attribute.substring(2));
                case 'i' -> iterations = Integer.parseInt(attribute.substring(2));
                default -> {}
            }
        }
        String withoutProof = "c=biws,r=" + nonce;
        String authMessage = clientFirstBare + "," + serverFirst + "," + withoutProof;
        byte[] saltFinal = salt;
        int iterationsFinal = iterations;
        byte[] salted = SALTED.computeIfAbsent(
                mechanism + " " + password + " " + Base64.getEncoder().encodeToString(salt) + " " + iterations,
                k -> mechanism.saltedPassword(password.toCharArray(), saltFinal, iterationsFinal));
        byte[] clientKey = mechanism.hmac(salted, "Client Key".getBytes(StandardCharsets.US_ASCII));
        byte[] signature = mechanism.hmac(mechanism.hash(clientKey), authMessage.getBytes(StandardCharsets.UTF_8));
        byte[] proof = new byte[clientKey.length];
        for (int i = 0; i < proof.length; i++) {
            proof[i] = (byte) (clientKey[i] ^ signature[i]);
        }
        String clientFinal = withoutProof + ",p=" + Base64.getEncoder().encodeToString(proof);
        return clientFinal;
    }
}
