package io.orderflow.ops.bench.kafkaperf;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.process.ApacheKafkaLauncher;
import io.orderflow.process.LocalCertificates;
import io.orderflow.process.OrderflowBrokerLauncher;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code --security sasl_ssl}'s one login: the same client properties for every tool, and no password shown. */
class SaslSslTest {
    @TempDir
    Path workDir;

    @Test
    void clientPropertiesLogInWithScramOverTlsTrustingTheLocalCa() {
        LocalCertificates certificates = new LocalCertificates(Path.of("/work/tls"), "store-secret");

        assertThat(SaslSsl.clientProperties(certificates, "user-secret"))
                .containsExactly(
                        "security.protocol=SASL_SSL",
                        "sasl.mechanism=SCRAM-SHA-512",
                        "sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required"
                                + " username=\"perf\" password=\"user-secret\";",
                        "ssl.truststore.location=/work/tls/truststore.p12",
                        "ssl.truststore.password=store-secret");
    }

    @Test
    void createdOnceUnderTheWorkDirectoryWithAnOwnerOnlyClientConfigAndNoPasswordInItsDescription() throws Exception {
        SaslSsl saslSsl = SaslSsl.create(workDir);
        LocalCertificates certificates = LocalCertificates.open(workDir.resolve("tls"), List.of());

        Path config = saslSsl.clientConfig();
        assertThat(config).isEqualTo(workDir.resolve("tls").resolve("perf-client.properties"));
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(config)))
                .isEqualTo("rw-------");
        Properties properties = new Properties();
        try (Reader in = Files.newBufferedReader(config)) {
            properties.load(in);
        }
        assertThat(properties)
                .containsEntry("security.protocol", "SASL_SSL")
                .containsEntry(
                        "ssl.truststore.location", certificates.truststore().toString())
                .containsEntry("ssl.truststore.password", certificates.password());
        String password = properties.getProperty("sasl.jaas.config").replaceAll(".*password=\"([^\"]+)\";$", "$1");
        assertThat(password).hasSizeGreaterThanOrEqualTo(20);
        assertThat(saslSsl.ourListenerSettings())
                .containsAll(certificates.brokerSettings())
                .contains("scram.bootstrap.credentials=SCRAM-SHA-512=[name=perf,password=" + password + "]");
        assertThat(saslSsl.describe()).doesNotContain(password, certificates.password());
        assertThat(saslSsl.kafka(new ApacheKafkaLauncher(workDir)).describe())
                .contains("SASL_SSL")
                .doesNotContain(password, certificates.password());
        assertThat(saslSsl.ours(new OrderflowBrokerLauncher(workDir, List.of())).describe())
                .contains("SASL_SSL")
                .doesNotContain(password, certificates.password());
    }
}
