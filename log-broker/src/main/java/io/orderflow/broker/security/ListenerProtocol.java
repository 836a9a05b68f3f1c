package io.orderflow.broker.security;

import java.util.Locale;

/** A listener's security protocol, as Kafka's {@code listener.security.protocol.map} names it. */
public enum ListenerProtocol {
    PLAINTEXT(false, false),
    SSL(true, false),
    SASL_PLAINTEXT(false, true),
    SASL_SSL(true, true);

    private final boolean tls;
    private final boolean sasl;

    ListenerProtocol(boolean tls, boolean sasl) {
        this.tls = tls;
        this.sasl = sasl;
    }

    public boolean usesTls() {
        return tls;
    }

    public boolean usesSasl() {
        return sasl;
    }

    /** The protocol named {@code name} (any case). */
    public static ListenerProtocol parse(String name) {
        try {
            return valueOf(name.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    "Unknown security protocol " + name + "; one of PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL", e);
        }
    }
}
