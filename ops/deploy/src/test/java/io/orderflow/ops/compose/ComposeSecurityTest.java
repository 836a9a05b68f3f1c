package io.orderflow.ops.compose;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.orderflow.contracts.Topics;
import io.orderflow.kafka.KafkaClientSettings;
import io.orderflow.platform.ComposeSecurity;
import io.orderflow.process.LocalCertificates;
import io.orderflow.process.OrderflowBrokerLauncher;
import io.orderflow.process.RunningBroker;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * docker compose's two security steps (ops/platform's {@link ComposeSecurity}) without Docker: {@code make-secrets}
 * into a folder, our broker started with the {@code broker.properties} it wrote, {@code grant} against it, and a
 * service's configuration file used as the service uses it. Then a rotation as docs/security.md describes it: a
 * deleted password file made anew and set on the broker by the next {@code grant}, as {@code ./run-platform} sets
 * every password at each start (the same {@code PlatformSecrets} and {@code authorize}).
 */
class ComposeSecurityTest {

    /** Shared: the certificates are made once (keytool takes seconds); each test runs make-secrets again. */
    @TempDir
    static Path work;

    @Test
    void makeSecretsWritesTheBrokersAndEachServicesSettingsOwnerOnlyWithTheComposeNameInTheCertificate()
            throws Exception {
        Path secrets = work.resolve("secrets");

        assertThat(execute("make-secrets", secrets.toString())).isZero();

        Properties broker = load(secrets.resolve("broker.properties"));
        assertThat(broker.getProperty("authorizer.class.name")).endsWith("StandardAuthorizer");
        assertThat(broker.getProperty("super.users")).isEqualTo("User:admin");
        assertThat(broker.getProperty("ssl.keystore.location")).startsWith(secrets.toString());
        Properties inventory = load(secrets.resolve("services").resolve("inventory-service.properties"));
        assertThat(inventory.getProperty("kafka.security.protocol")).isEqualTo("SASL_SSL");
        assertThat(inventory.getProperty("kafka.sasl.jaas.config")).contains("username=\"inventory-service\"");
        assertThat(inventory.getProperty("orderflow.admin.token"))
                .isEqualTo(Files.readString(secrets.resolve("admin-token")).trim());
        assertThat(Files.getPosixFilePermissions(secrets.resolve("services").resolve("inventory-service.properties")))
                .containsExactlyInAnyOrder(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE);
        KeyStore keystore = KeyStore.getInstance("PKCS12");
        try (var in = Files.newInputStream(secrets.resolve("tls").resolve("broker.p12"))) {
            keystore.load(
                    in,
                    Files.readString(secrets.resolve("tls").resolve("store-password"))
                            .trim()
                            .toCharArray());
        }
        X509Certificate certificate = (X509Certificate) keystore.getCertificate("broker");
        assertThat(certificate.getSubjectAlternativeNames())
                .extracting(name -> (Object) name.get(1))
                .contains("log-broker", "localhost");

        assertThat(execute("make-secrets", "--security", "plaintext", secrets.toString()))
                .isZero();
        Properties plaintext = load(secrets.resolve("services").resolve("inventory-service.properties"));
        assertThat(plaintext.stringPropertyNames()).containsExactly("orderflow.admin.token");
        assertThat(plaintext.getProperty("orderflow.admin.token"))
                .isEqualTo(inventory.getProperty("orderflow.admin.token"));
    }

    @Test
    void grantGivesEachServiceItsAclsOnABrokerStartedWithTheWrittenSettingsAndSetsARotatedPassword() throws Exception {
        Path secrets = work.resolve("secrets");
        assertThat(execute("make-secrets", secrets.toString())).isZero();
        List<String> settings = new ArrayList<>();
        load(secrets.resolve("broker.properties")).forEach((key, value) -> settings.add(key + "=" + value));
        LocalCertificates certificates = LocalCertificates.open(secrets.resolve("tls"), List.of());
        OrderflowBrokerLauncher launcher = OrderflowBrokerLauncher.onClasspath(
                        System.getProperty("java.class.path"), List.of("-Xmx256m"), List.of())
                .withListener(new OrderflowBrokerLauncher.Listener("SASL_SSL", settings, certificates.clientSockets()));

        try (RunningBroker broker = launcher.start(work.resolve("broker-run"), work.resolve("broker.log"))) {
            assertThat(execute("grant", "--bootstrap-servers", broker.bootstrapServers(), secrets.toString()))
                    .isZero();

            KafkaClientSettings inventory = service(secrets, "inventory-service", broker.bootstrapServers());
            try (Admin admin = Admin.create(inventory.admin(Map.of()))) {
                assertThat(admin.listTopics().names().get(30, TimeUnit.SECONDS)).contains(Topics.ORDERS);
            }
            try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(
                    inventory.producer(Map.of(ProducerConfig.MAX_BLOCK_MS_CONFIG, 15000)),
                    new StringSerializer(),
                    new ByteArraySerializer())) {
                assertThat(producer.send(new ProducerRecord<>("inventory-service_retry_1000", "k", new byte[] {1}))
                                .get(30, TimeUnit.SECONDS)
                                .offset())
                        .isZero();
                assertThatThrownBy(() -> producer.send(new ProducerRecord<>(Topics.ORDERS, "k", new byte[] {1}))
                                .get(30, TimeUnit.SECONDS))
                        .hasCauseInstanceOf(TopicAuthorizationException.class);
            }
            // A rotation: the password file deleted, the secrets made and granted again, as a restarted stack does.
            Path passwordFile = secrets.resolve("users").resolve("inventory-service");
            String oldPassword = Files.readString(passwordFile).trim();
            Files.delete(passwordFile);
            assertThat(execute("make-secrets", secrets.toString())).isZero();
            assertThat(execute("grant", "--bootstrap-servers", broker.bootstrapServers(), secrets.toString()))
                    .isZero();

            assertThat(Files.readString(passwordFile).trim()).isNotEqualTo(oldPassword);
            try (Admin stale = Admin.create(inventory.admin(Map.of(
                    AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 15000,
                    AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 10000)))) {
                assertThatThrownBy(() -> stale.listTopics().names().get())
                        .as("the old password")
                        .hasCauseInstanceOf(SaslAuthenticationException.class);
            }
            KafkaClientSettings rotated = service(secrets, "inventory-service", broker.bootstrapServers());
            try (Admin admin = Admin.create(rotated.admin(Map.of()))) {
                assertThat(admin.listTopics().names().get(30, TimeUnit.SECONDS)).contains(Topics.ORDERS);
            }
        }
    }

    /** A service's {@code kafka.*} settings from its configuration file, as Quarkus reads them. */
    private static KafkaClientSettings service(Path secrets, String instance, String bootstrapServers)
            throws Exception {
        KafkaClientSettings settings = KafkaClientSettings.plaintext(bootstrapServers);
        Properties file = load(secrets.resolve("services").resolve(instance + ".properties"));
        for (String key : file.stringPropertyNames()) {
            if (key.startsWith("kafka.")) {
                settings = settings.with(key.substring("kafka.".length()), file.getProperty(key));
            }
        }
        return settings;
    }

    private static Properties load(Path file) throws Exception {
        Properties properties = new Properties();
        try (Reader reader = Files.newBufferedReader(file)) {
            properties.load(reader);
        }
        return properties;
    }

    private static int execute(String... args) {
        return new CommandLine(new ComposeSecurity()).execute(args);
    }
}
