package io.orderflow.broker.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.config.SslConfigs;
import org.apache.kafka.common.errors.SslAuthenticationException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * TLS versions and store formats as kafka-clients meets them: TLS 1.2 and 1.3 both by default, only what {@code
 * ssl.enabled.protocols} names otherwise; a PEM key store on the broker and a PEM trust store on the client.
 */
class TlsVersionsAndPemStoresTest {
    @TempDir
    Path dataDir;

    private static Map<String, Object> withTls(Map<String, Object> client, String version) {
        client.put(SslConfigs.SSL_PROTOCOL_CONFIG, version);
        client.put(SslConfigs.SSL_ENABLED_PROTOCOLS_CONFIG, version);
        return client;
    }

    @Test
    void tls12AndTls13ClientsBothConnectByDefault() throws Exception {
        try (TestBroker broker =
                TestBroker.start(dataDir, SecureListenersTest.secureSettings(TestCertificates.get(), Map.of()))) {
            for (String version : new String[] {"TLSv1.2", "TLSv1.3"}) {
                try (Admin admin = Admin.create(withTls(SecureListenersTest.admin(broker), version))) {
                    assertThat(admin.describeCluster().clusterId().get(15, TimeUnit.SECONDS))
                            .as(version)
                            .isNotBlank();
                }
            }
        }
    }

    @Test
    void aPemKeyStoreServesAPemTrustingClientAndTls12IsRefusedWhenOnlyTls13IsEnabled() throws Exception {
        TestCertificates tls = TestCertificates.get();
        Map<String, String> settings = SecureListenersTest.secureSettings(
                tls,
                Map.of(
                        "ssl.keystore.type", "PEM",
                        "ssl.keystore.location", tls.brokerPemKeystore().toString(),
                        "ssl.enabled.protocols", "TLSv1.3"));
        try (TestBroker broker = TestBroker.start(dataDir, settings)) {
            Map<String, Object> pemClient = SecureListenersTest.admin(broker);
            pemClient.put(SslConfigs.SSL_TRUSTSTORE_TYPE_CONFIG, "PEM");
            pemClient.put(
                    SslConfigs.SSL_TRUSTSTORE_LOCATION_CONFIG,
                    tls.clientPemTruststore().toString());
            pemClient.remove(SslConfigs.SSL_TRUSTSTORE_PASSWORD_CONFIG);
            try (Admin admin = Admin.create(pemClient)) {
                assertThat(admin.describeCluster().clusterId().get(15, TimeUnit.SECONDS))
                        .isNotBlank();
            }
            try (Admin admin = Admin.create(withTls(SecureListenersTest.admin(broker), "TLSv1.2"))) {
                assertThatThrownBy(() -> admin.describeCluster().clusterId().get(15, TimeUnit.SECONDS))
                        .hasCauseInstanceOf(SslAuthenticationException.class);
            }
        }
    }
}
