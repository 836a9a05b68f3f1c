package io.orderflow.broker.server;

import io.orderflow.process.LocalCertificates;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Key and trust stores for TLS tests, made once per test JVM by {@link LocalCertificates} (the JDK's keytool): a
 * local CA, the broker's key and chain for {@code localhost} and {@code 127.0.0.1} (PKCS12 and PEM), a client's key
 * and chain ({@code CN=orderflow-client,O=orderflow}) for client-certificate logins, and the CA as PKCS12 and PEM
 * trust stores, which the clients and the broker (for client certificates) both trust.
 */
public record TestCertificates(
        Path brokerKeystore,
        Path brokerPemKeystore,
        Path brokerTruststore,
        Path clientKeystore,
        Path clientTruststore,
        Path clientPemTruststore,
        String password) {

    public static final String CLIENT_DN = LocalCertificates.CLIENT_DN;
    private static TestCertificates made;

    /** A socket factory for raw TLS clients that trusts the test CA. */
    public javax.net.ssl.SSLSocketFactory clientSockets() throws IOException {
        return new LocalCertificates(clientTruststore.getParent(), password).clientSockets();
    }

    /** The stores, made on first use in a directory of their own. */
    public static synchronized TestCertificates get() {
        if (made == null) {
            try {
                LocalCertificates ca = LocalCertificates.open(Files.createTempDirectory("orderflow-tls"), List.of());
                made = new TestCertificates(
                        ca.brokerKeystore(),
                        ca.brokerPem(),
                        ca.truststore(),
                        ca.clientKeystore(),
                        ca.truststore(),
                        ca.caPem(),
                        ca.password());
            } catch (IOException e) {
                throw new IllegalStateException("Cannot make the test certificates", e);
            }
        }
        return made;
    }
}
