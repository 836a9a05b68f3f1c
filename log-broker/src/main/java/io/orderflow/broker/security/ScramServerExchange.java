package io.orderflow.broker.security;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The server's side of a SCRAM login (RFC 5802, with RFC 7677's SHA-256; SHA-512 alike), two round trips:
 *
 * <pre>
 * client-first  n,,n=user,r=cnonce                      -> server-first  r=cnonce+snonce,s=salt,i=iterations
 * client-final  c=biws,r=cnonce+snonce,p=proof          -> server-final  v=server signature
 * </pre>
 *
 * The proof is checked as RFC 5802 section 3 says: {@code ClientKey = proof XOR HMAC(StoredKey, AuthMessage)} must
 * hash to the stored key. The server nonce is fresh for every exchange, so a recorded client-final message is
 * useless in another exchange. Channel binding is refused ({@code p=} in the GS2 header), as Kafka refuses it; an
 * authorisation id must name the user itself. Kafka's extensions in client-first ({@code tokenauth=...}) are
 * accepted only when false (no delegation tokens here).
 *
 * <p>Every failure is a {@link SaslAuthenticationException}; unknown users and wrong passwords read the same to
 * the client. Not thread-safe: one exchange per login.
 */
public final class ScramServerExchange implements SaslExchange {
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final int MAX_MESSAGE_BYTES = 4096;

    private enum State {
        RECEIVE_FIRST,
        RECEIVE_FINAL,
        COMPLETE,
        FAILED
    }

    private final ScramMechanism mechanism;
    private final CredentialStore credentials;
    private final Supplier<String> serverNonces;
    private State state = State.RECEIVE_FIRST;
    private String gs2Header;
    private String clientFirstBare;
    private String serverFirst;
    private String nonce;
    private String user;
    private ScramCredential credential;

    public ScramServerExchange(ScramMechanism mechanism, CredentialStore credentials) {
        this(mechanism, credentials, ScramServerExchange::randomNonce);
    }

    /** With the server nonces given, for RFC 7677's worked example. */
    ScramServerExchange(ScramMechanism mechanism, CredentialStore credentials, Supplier<String> serverNonces) {
        this.mechanism = mechanism;
        this.credentials = credentials;
        this.serverNonces = serverNonces;
    }

    private static String randomNonce() {
        byte[] nonce = new byte[24];
        RANDOM.nextBytes(nonce);
        return Base64.getEncoder().withoutPadding().encodeToString(nonce);
    }

    @Override
    public byte[] evaluate(byte[] clientToken) {
        try {
            if (clientToken.length > MAX_MESSAGE_BYTES) {
                throw fail("a message of " + clientToken.length + " bytes");
            }
            String message = new String(clientToken, StandardCharsets.UTF_8);
            return switch (state) {
                case RECEIVE_FIRST -> serverFirst(message).getBytes(StandardCharsets.UTF_8);
                case RECEIVE_FINAL -> serverFinal(message).getBytes(StandardCharsets.UTF_8);
                case COMPLETE, FAILED -> throw fail("a message after the exchange ended");
            };
        } catch (SaslAuthenticationException e) {
            state = State.FAILED;
            throw e;
        }
    }

    private String serverFirst(String message) {
        // gs2-header: cbind-flag "," [authzid] ","
        int firstComma = message.indexOf(',');
        int secondComma = firstComma < 0 ? -1 : message.indexOf(',', firstComma + 1);
        if (secondComma < 0) {
            throw fail("client-first message without a GS2 header");
        }
        String cbind = message.substring(0, firstComma);
        if (!cbind.equals("n") && !cbind.equals("y")) {
            throw fail("channel binding requested (" + (cbind.startsWith("p=") ? "p=..." : "invalid flag") + ")");
        }
        String authzid = message.substring(firstComma + 1, secondComma);
        gs2Header = message.substring(0, secondComma + 1);
        clientFirstBare = message.substring(secondComma + 1);
        Map<String, String> attributes = attributes(clientFirstBare);
        String encodedUser = required(attributes, "n");
        String clientNonce = required(attributes, "r");
        if (attributes.containsKey("m")) {
            throw fail("mandatory extension m= is not supported");
        }
        String tokenAuth = attributes.get("tokenauth");
        if (tokenAuth != null && !tokenAuth.equalsIgnoreCase("false")) {
            throw fail("delegation token login (tokenauth) is not supported");
        }
        if (clientNonce.isEmpty() || !printable(clientNonce)) {
            throw fail("a client nonce that is empty or not printable");
        }
        user = decodeName(encodedUser);
        if (!authzid.isEmpty()
                && !(authzid.startsWith("a=")
                        && decodeName(authzid.substring(2)).equals(user))) {
            throw fail("authorization id differs from the username");
        }
        credential = credentials
                .credential(user, mechanism)
                .orElseThrow(() -> fail("no " + mechanism.saslName() + " credential for user " + user));
        nonce = clientNonce + serverNonces.get();
        serverFirst = "r=" + nonce + ",s=" + Base64.getEncoder().encodeToString(credential.salt()) + ",i="
                + credential.iterations();
        state = State.RECEIVE_FINAL;
        return serverFirst;
    }

    private String serverFinal(String message) {
        int proofAt = message.lastIndexOf(",p=");
        if (proofAt < 0) {
            throw fail("client-final message without a proof");
        }
        String withoutProof = message.substring(0, proofAt);
        Map<String, String> attributes = attributes(withoutProof);
        String channelBinding = required(attributes, "c");
        String finalNonce = required(attributes, "r");
        if (!channelBinding.equals(Base64.getEncoder().encodeToString(gs2Header.getBytes(StandardCharsets.UTF_8)))) {
            throw fail("channel binding data differs from the GS2 header");
        }
        // RFC 5802 wants the nonce repeated exactly; librdkafka before 2.6.1 sends the client nonce before it once
        // more. Apache Kafka accepts that (since 3.8.1) by checking the end, and so do we: the server nonce, fresh for
        // this exchange, must still be there, so a recorded message stays useless.
        if (!finalNonce.endsWith(nonce)) {
            throw fail("a nonce that is not this exchange's");
        }
        byte[] proof;
        try {
            proof = Base64.getDecoder().decode(message.substring(proofAt + 3));
        } catch (IllegalArgumentException e) {
            throw fail("a proof that is not base64");
        }
        byte[] authMessage =
                (clientFirstBare + "," + serverFirst + "," + withoutProof).getBytes(StandardCharsets.UTF_8);
        byte[] clientSignature = mechanism.hmac(credential.storedKey(), authMessage);
        if (proof.length != clientSignature.length) {
            throw fail("wrong password for user " + user);
        }
        byte[] clientKey = new byte[proof.length];
        for (int i = 0; i < proof.length; i++) {
            clientKey[i] = (byte) (proof[i] ^ clientSignature[i]);
        }
        if (!MessageDigest.isEqual(mechanism.hash(clientKey), credential.storedKey())) {
            throw fail("wrong password for user " + user);
        }
        state = State.COMPLETE;
        byte[] serverSignature = mechanism.hmac(credential.serverKey(), authMessage);
        return "v=" + Base64.getEncoder().encodeToString(serverSignature);
    }

    /** {@code key=value} pairs separated by commas; a key without '=' or an empty message fails. */
    private Map<String, String> attributes(String text) {
        Map<String, String> attributes = new LinkedHashMap<>();
        for (String part : text.split(",", -1)) {
            int eq = part.indexOf('=');
            if (eq <= 0) {
                throw fail("a malformed attribute");
            }
            attributes.putIfAbsent(part.substring(0, eq), part.substring(eq + 1));
        }
        return attributes;
    }

    private String required(Map<String, String> attributes, String key) {
        String value = attributes.get(key);
        if (value == null) {
            throw fail("attribute " + key + "= missing");
        }
        return value;
    }

    /** A SCRAM username: {@code =2C} is ',' and {@code =3D} is '='; any other '=' is malformed. */
    private String decodeName(String encoded) {
        StringBuilder name = new StringBuilder(encoded.length());
        for (int i = 0; i < encoded.length(); i++) {
            char c = encoded.charAt(i);
            if (c != '=') {
                name.append(c);
            } else if (encoded.startsWith("=2C", i)) {
                name.append(',');
                i += 2;
            } else if (encoded.startsWith("=3D", i)) {
                name.append('=');
                i += 2;
            } else {
                throw fail("a username with a bare '='");
            }
        }
        if (name.isEmpty()) {
            throw fail("an empty username");
        }
        return name.toString();
    }

    private static boolean printable(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x21 || c > 0x7e || c == ',') {
                return false;
            }
        }
        return true;
    }

    private SaslAuthenticationException fail(String reason) {
        return new SaslAuthenticationException(mechanism.saslName(), reason);
    }

    @Override
    public boolean complete() {
        return state == State.COMPLETE;
    }

    @Override
    public KafkaPrincipal principal() {
        if (state != State.COMPLETE) {
            throw new IllegalStateException("The SCRAM exchange has not completed");
        }
        return KafkaPrincipal.user(user);
    }

    @Override
    public String mechanism() {
        return mechanism.saslName();
    }
}
