package io.orderflow.process;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The local CA's files: made once, kept private, and a broker chain that verifies against the CA. */
class LocalCertificatesTest {
    @TempDir
    Path dir;

    @Test
    void madeOnceWithABrokerChainSignedByTheCaAndReadBackAfterwards() throws Exception {
        LocalCertificates made = LocalCertificates.open(dir.resolve("secrets"), List.of("broker"));
        KeyStore broker = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(made.brokerKeystore())) {
            broker.load(in, made.password().toCharArray());
        }
        var chain = broker.getCertificateChain("broker");
        assertThat(chain).hasSize(2);
        X509Certificate leaf = (X509Certificate) chain[0];
        X509Certificate ca = (X509Certificate) chain[1];
        leaf.verify(ca.getPublicKey());
        assertThat(leaf.getSubjectX500Principal().getName()).isEqualTo("CN=localhost,O=orderflow");
        assertThat(leaf.getSubjectAlternativeNames())
                .extracting(n -> (Object) n.get(1))
                .contains((Object) "localhost", "127.0.0.1", "broker");
        assertThat(Files.readString(made.brokerPem())).startsWith("-----BEGIN PRIVATE KEY-----");
        assertThat(Files.readString(made.caPem())).contains("BEGIN CERTIFICATE");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(made.brokerKeystore())))
                .isEqualTo("rw-------");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve("secrets"))))
                .isEqualTo("rwx------");

        LocalCertificates again = LocalCertificates.open(dir.resolve("secrets"), List.of());
        assertThat(again.password()).isEqualTo(made.password());
        assertThat(Files.readString(again.caPem())).isEqualTo(Files.readString(made.caPem()));
    }
}
