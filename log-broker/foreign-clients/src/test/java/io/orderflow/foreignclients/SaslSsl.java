package io.orderflow.foreignclients;

import java.nio.file.Path;
import java.util.Map;

/**
 * How a client logs in to a {@code SASL_SSL} listener: the SCRAM mechanism, a user and password, and the CA
 * certificate (PEM) it trusts the broker's certificate by. Host names are verified: the broker's certificate names
 * {@code 127.0.0.1}, the address it advertises.
 *
 * <p>The scripts this module runs (KafkaJS's {@code client.js}, {@link JavaClientScenario}) take it from the
 * environment, {@link #environment()}; kcat takes it as {@code -X} settings.
 */
record SaslSsl(String mechanism, String username, String password, Path caPem) {
    static final String MECHANISM = "SASL_MECHANISM";
    static final String USERNAME = "SASL_USERNAME";
    static final String PASSWORD = "SASL_PASSWORD";
    static final String CA = "SSL_CA_LOCATION";

    /** The same login with another password, for the refusals. */
    SaslSsl withPassword(String other) {
        return new SaslSsl(mechanism, username, other, caPem);
    }

    /** For the scripts: {@code SASL_MECHANISM} (e.g. {@code SCRAM-SHA-512}), the user, password and CA file. */
    Map<String, String> environment() {
        return Map.of(MECHANISM, mechanism, USERNAME, username, PASSWORD, password, CA, caPem.toString());
    }

    @Override
    public String toString() {
        return mechanism + " login of " + username + " trusting " + caPem;
    }
}
