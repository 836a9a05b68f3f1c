package io.orderflow.broker.network;

import io.orderflow.broker.security.ListenerProtocol;
import java.net.InetSocketAddress;
import java.util.Set;
import java.util.function.Supplier;
import javax.net.ssl.SSLEngine;

/**
 * One Kafka listener: its name (as in {@code listeners}), the address it binds, its security protocol, a new
 * server-side {@link SSLEngine} per connection when the protocol uses TLS, and the SASL mechanisms it offers when
 * it uses SASL.
 */
public record Listener(
        String name,
        InetSocketAddress address,
        ListenerProtocol protocol,
        Supplier<SSLEngine> tlsEngines,
        Set<String> saslMechanisms) {
    public Listener {
        if (protocol.usesTls() && tlsEngines == null) {
            throw new IllegalArgumentException("Listener " + name + " uses TLS but has no TLS settings");
        }
        saslMechanisms = Set.copyOf(saslMechanisms);
    }

    /** A PLAINTEXT listener on {@code address}. */
    public static Listener plaintext(InetSocketAddress address) {
        return new Listener("PLAINTEXT", address, ListenerProtocol.PLAINTEXT, null, Set.of());
    }
}
