package io.orderflow.broker.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.SslConfigs;
import org.apache.kafka.common.errors.SslAuthenticationException;
import org.apache.kafka.common.errors.UnsupportedSaslMechanismException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The security settings one by one, each read back through what a client sees: listener names mapped to protocols,
 * advertised addresses, required client certificates, the SASL mechanisms offered, {@code
 * allow.everyone.if.no.acl.found}, and settings the broker refuses to start with.
 */
class SecuritySettingsTest {
    @TempDir
    Path dataDir;

    @Test
    void listenerNamesAreMappedToProtocolsAndAdvertisedAsConfigured() throws Exception {
        Map<String, String> settings = new HashMap<>(Map.of(
                "listeners", "INTERNAL://127.0.0.1:0,EXTERNAL://127.0.0.1:0",
                "advertised.listeners", "EXTERNAL://localhost:0",
                "listener.security.protocol.map", "INTERNAL:PLAINTEXT,EXTERNAL:SASL_PLAINTEXT",
                "scram.bootstrap.credentials", "SCRAM-SHA-512=[name=admin,password=pw]"));
        try (TestBroker broker = TestBroker.start(dataDir, settings)) {
            Map<String, Object> external = new HashMap<>(
                    Map.of(
                            CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG,
                            "127.0.0.1:" + broker.broker().port("EXTERNAL"),
                            CommonClientConfigs.SECURITY_PROTOCOL_CONFIG,
                            "SASL_PLAINTEXT",
                            "sasl.mechanism",
                            "SCRAM-SHA-512",
                            "sasl.jaas.config",
                            "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"admin\" password=\"pw\";"));
            try (Admin admin = Admin.create(external)) {
                var node = admin.describeCluster()
                        .nodes()
                        .get(15, TimeUnit.SECONDS)
                        .iterator()
                        .next();
                assertThat(node.host()).isEqualTo("localhost");
                assertThat(node.port()).isEqualTo(broker.broker().port("EXTERNAL"));
            }
            try (Admin admin = Admin.create(Map.of(
                    CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG,
                    "127.0.0.1:" + broker.broker().port("INTERNAL")))) {
                var node = admin.describeCluster()
                        .nodes()
                        .get(15, TimeUnit.SECONDS)
                        .iterator()
                        .next();
                assertThat(node.host()).isEqualTo("127.0.0.1");
                assertThat(node.port()).isEqualTo(broker.broker().port("INTERNAL"));
            }
        }
    }

    @Test
    void requiredClientCertificatesRefuseAClientWithoutOne() throws Exception {
        TestCertificates tls = TestCertificates.get();
        try (TestBroker broker = TestBroker.start(
                dataDir, SecureListenersTest.secureSettings(tls, Map.of("ssl.client.auth", "required")))) {
            try (Admin anonymous = Admin.create(SecureListenersTest.client(broker, "SSL", null, null, null))) {
                assertThatThrownBy(() -> anonymous.describeCluster().clusterId().get(15, TimeUnit.SECONDS))
                        .hasCauseInstanceOf(SslAuthenticationException.class);
            }
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

    @Test
    void onlyTheEnabledMechanismsAreOffered() throws Exception {
        try (TestBroker broker = TestBroker.start(
                dataDir,
                SecureListenersTest.secureSettings(
                        TestCertificates.get(), Map.of("sasl.enabled.mechanisms", "SCRAM-SHA-512")))) {
            try (Admin sha256 = Admin.create(SecureListenersTest.client(
                    broker, "SASL_SSL", "SCRAM-SHA-256", "admin", SecureListenersTest.ADMIN_PASSWORD))) {
                assertThatThrownBy(() -> sha256.describeCluster().clusterId().get(15, TimeUnit.SECONDS))
                        .hasCauseInstanceOf(UnsupportedSaslMechanismException.class);
            }
            try (Admin sha512 = Admin.create(SecureListenersTest.admin(broker))) {
                assertThat(sha512.describeCluster().clusterId().get(15, TimeUnit.SECONDS))
                        .isNotBlank();
            }
        }
    }

    @Test
    void allowEveryoneIfNoAclFoundOpensOnlyResourcesWithoutAcls() throws Exception {
        Map<String, String> settings = new HashMap<>(SecureListenersTest.secureSettings(
                TestCertificates.get(),
                Map.of(
                        "authorizer.class.name", SecurityConfig.STANDARD_AUTHORIZER,
                        "super.users", "User:admin",
                        "allow.everyone.if.no.acl.found", "true")));
        try (TestBroker broker = TestBroker.start(dataDir, settings)) {
            try (Admin admin = Admin.create(SecureListenersTest.admin(broker))) {
                admin.createTopics(List.of(new NewTopic("open", 1, (short) 1), new NewTopic("guarded", 1, (short) 1)))
                        .all()
                        .get(15, TimeUnit.SECONDS);
                admin.createAcls(List.of(AuthorizationTest.allow(
                                "User:admin",
                                org.apache.kafka.common.resource.ResourceType.TOPIC,
                                "guarded",
                                org.apache.kafka.common.resource.PatternType.LITERAL,
                                org.apache.kafka.common.acl.AclOperation.READ)))
                        .all()
                        .get(15, TimeUnit.SECONDS);
            }
            try (Admin anonymous = Admin.create(Map.of(
                    CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG,
                    "127.0.0.1:" + broker.broker().port("PLAINTEXT")))) {
                assertThat(anonymous.listTopics().names().get(15, TimeUnit.SECONDS))
                        .contains("open")
                        .doesNotContain("guarded");
            }
        }
    }

    @Test
    void settingsThatCannotWorkAreRefusedNamingTheSetting() {
        Map<Map<String, String>, String> refused = Map.of(
                Map.of("listeners", "SASL_SSL://127.0.0.1:0"), "ssl.keystore.location",
                Map.of("listeners", "PLAINTEXT://127.0.0.1:0", "advertised.listeners", "OTHER://h:1"),
                        "advertised.listeners",
                Map.of("listeners", "CUSTOM://127.0.0.1:0"), "listener.security.protocol.map",
                Map.of("listener.security.protocol.map", "A:KERBEROS", "listeners", "A://127.0.0.1:0"), "KERBEROS",
                Map.of("sasl.enabled.mechanisms", "GSSAPI"), "sasl.enabled.mechanisms",
                Map.of("authorizer.class.name", "kafka.security.authorizer.AclAuthorizer"), "authorizer.class.name",
                Map.of("scram.bootstrap.credentials", "admin:pw"), "scram.bootstrap.credentials",
                Map.of("ssl.client.auth", "sometimes", "ssl.keystore.location", "/k.p12"), "ssl.client.auth",
                Map.of("super.users", "admin"), "TYPE:NAME");
        refused.forEach((settings, named) -> assertThatThrownBy(() -> TestBroker.config(dataDir, settings))
                .as(settings.toString())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(named));
    }
}
