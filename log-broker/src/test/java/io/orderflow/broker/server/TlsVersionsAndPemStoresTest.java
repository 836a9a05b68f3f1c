package io.orderflow.broker.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.Certificate;
import java.util.Base64;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.crypto.Cipher;
import javax.crypto.EncryptedPrivateKeyInfo;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;
import javax.crypto.spec.PBEParameterSpec;
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

    @Test
    void anEncryptedPemKeyIsReadWithSslKeyPassword() throws Exception {
        TestCertificates tls = TestCertificates.get();
        KeyStore store = KeyStore.getInstance("PKCS12");
        try (var in = Files.newInputStream(tls.brokerKeystore())) {
            store.load(in, tls.password().toCharArray());
        }
        PrivateKey key = (PrivateKey) store.getKey("broker", tls.password().toCharArray());
        // PKCS#12's PBE (openssl pkcs8 -topk8 -v1 PBE-SHA1-3DES); the JDK names it in the key's DER.
        String algorithm = "PBEWithSHA1AndDESede";
        byte[] salt = new byte[16];
        new SecureRandom().nextBytes(salt);
        char[] keyPassword = "the-key-password".toCharArray();
        Cipher cipher = Cipher.getInstance(algorithm);
        cipher.init(
                Cipher.ENCRYPT_MODE,
                SecretKeyFactory.getInstance(algorithm).generateSecret(new PBEKeySpec(keyPassword)),
                new PBEParameterSpec(salt, 10_000));
        byte[] encrypted = cipher.doFinal(key.getEncoded());
        byte[] der = new EncryptedPrivateKeyInfo(cipher.getParameters(), encrypted).getEncoded();
        StringBuilder pem = new StringBuilder("-----BEGIN ENCRYPTED PRIVATE KEY-----\n")
                .append(Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der))
                .append("\n-----END ENCRYPTED PRIVATE KEY-----\n");
        for (Certificate c : store.getCertificateChain("broker")) {
            pem.append("-----BEGIN CERTIFICATE-----\n")
                    .append(Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(c.getEncoded()))
                    .append("\n-----END CERTIFICATE-----\n");
        }
        Path encryptedPem = dataDir.resolveSibling(dataDir.getFileName() + "-encrypted.pem");
        Files.writeString(encryptedPem, pem);

        Map<String, String> settings = new java.util.HashMap<>(SecureListenersTest.secureSettings(
                tls,
                Map.of(
                        "ssl.keystore.type", "PEM",
                        "ssl.keystore.location", encryptedPem.toString(),
                        "ssl.key.password", "the-key-password")));
        settings.remove("ssl.keystore.password");
        try (TestBroker broker = TestBroker.start(dataDir, settings)) {
            try (Admin admin = Admin.create(SecureListenersTest.admin(broker))) {
                assertThat(admin.describeCluster().clusterId().get(15, TimeUnit.SECONDS))
                        .isNotBlank();
            }
        }
        settings.put("ssl.key.password", "not-the-key-password");
        assertThatThrownBy(() -> TestBroker.start(dataDir, settings))
                .hasMessageContaining("key store")
                .hasMessageContaining(encryptedPem.toString());
    }

    @Test
    void aJksKeyStoreAndAPemTrustStoreForClientCertificatesWork() throws Exception {
        TestCertificates tls = TestCertificates.get();
        KeyStore pkcs12 = KeyStore.getInstance("PKCS12");
        try (var in = Files.newInputStream(tls.brokerKeystore())) {
            pkcs12.load(in, tls.password().toCharArray());
        }
        KeyStore jks = KeyStore.getInstance("JKS");
        jks.load(null, null);
        jks.setKeyEntry(
                "broker",
                pkcs12.getKey("broker", tls.password().toCharArray()),
                tls.password().toCharArray(),
                pkcs12.getCertificateChain("broker"));
        Path jksFile = dataDir.resolveSibling(dataDir.getFileName() + "-broker.jks");
        try (var out = Files.newOutputStream(jksFile)) {
            jks.store(out, tls.password().toCharArray());
        }
        Map<String, String> settings = new java.util.HashMap<>(SecureListenersTest.secureSettings(
                tls,
                Map.of(
                        "ssl.keystore.type", "JKS",
                        "ssl.keystore.location", jksFile.toString(),
                        "ssl.truststore.type", "PEM",
                        "ssl.truststore.location", tls.clientPemTruststore().toString(),
                        "ssl.client.auth", "required")));
        settings.remove("ssl.truststore.password");
        try (TestBroker broker = TestBroker.start(dataDir, settings)) {
            Map<String, Object> withCertificate = SecureListenersTest.client(broker, "SSL", null, null, null);
            withCertificate.put(
                    SslConfigs.SSL_KEYSTORE_LOCATION_CONFIG,
                    tls.clientKeystore().toString());
            withCertificate.put(SslConfigs.SSL_KEYSTORE_PASSWORD_CONFIG, tls.password());
            try (Admin admin = Admin.create(withCertificate)) {
                assertThat(admin.describeCluster().clusterId().get(15, TimeUnit.SECONDS))
                        .isNotBlank();
            }
        }
    }
}
