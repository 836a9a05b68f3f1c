package io.orderflow.broker.security;

import java.nio.charset.StandardCharsets;

/**
 * SASL/PLAIN (RFC 4616): one message {@code [authzid] NUL authcid NUL passwd}. The password is checked against
 * the user's SCRAM credentials (the broker keeps no other kind), by deriving the stored key from it; it is
 * offered only on TLS listeners, since the password crosses the wire. An authorisation id other than the user's
 * own is refused, as Kafka refuses it.
 */
public final class PlainServerExchange implements SaslExchange {
    public static final String MECHANISM = "PLAIN";

    private final CredentialStore credentials;
    private KafkaPrincipal principal;

    public PlainServerExchange(CredentialStore credentials) {
        this.credentials = credentials;
    }

    @Override
    public byte[] evaluate(byte[] clientToken) {
        if (principal != null) {
            throw new SaslAuthenticationException(MECHANISM, "a token after the login completed");
        }
        String message = new String(clientToken, StandardCharsets.UTF_8);
        int first = message.indexOf('\0');
        int second = first < 0 ? -1 : message.indexOf('\0', first + 1);
        if (first < 0 || second < 0 || message.indexOf('\0', second + 1) >= 0) {
            throw new SaslAuthenticationException(MECHANISM, "the message is not authzid NUL authcid NUL passwd");
        }
        String authzid = message.substring(0, first);
        String user = message.substring(first + 1, second);
        char[] password = message.substring(second + 1).toCharArray();
        if (user.isEmpty() || password.length == 0) {
            throw new SaslAuthenticationException(MECHANISM, "an empty username or password");
        }
        if (!authzid.isEmpty() && !authzid.equals(user)) {
            throw new SaslAuthenticationException(MECHANISM, "authorization id differs from the username");
        }
        boolean matches = false;
        for (ScramMechanism mechanism : ScramMechanism.values()) {
            var credential = credentials.credential(user, mechanism);
            if (credential.isPresent() && credential.get().matches(password)) {
                matches = true;
                break;
            }
        }
        java.util.Arrays.fill(password, '\0');
        if (!matches) {
            throw new SaslAuthenticationException(MECHANISM, "unknown user or wrong password for " + user);
        }
        principal = KafkaPrincipal.user(user);
        return new byte[0];
    }

    @Override
    public boolean complete() {
        return principal != null;
    }

    @Override
    public KafkaPrincipal principal() {
        return principal;
    }

    @Override
    public String mechanism() {
        return MECHANISM;
    }
}
