package io.orderflow.platform;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.orderflow.contracts.Topics;
import io.orderflow.kafka.KafkaClientSettings;
import io.orderflow.postgres.PostgresConfiguration;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Rotating a principal's password as docs/security.md says: delete its file and start the platform again. The broker
 * and PostgreSQL only (no services), on SASL_SSL, in a folder of the test's own.
 */
class SecretRotationTest {

    @TempDir
    Path work;

    @Test
    void aDeletedPasswordIsMadeAnewAndTakesEffectAtTheNextStartWithTheDataKept() throws Exception {
        LaunchOptions options = new LaunchOptions(
                false,
                work.resolve("postgres"),
                0,
                work.resolve("broker"),
                0,
                0,
                false,
                LaunchOptions.DEFAULT_APPLICATIONS,
                false,
                true,
                false,
                0,
                0,
                0,
                LaunchOptions.Tracing.OFF,
                null,
                LaunchOptions.Security.SASL_SSL,
                null);
        Path passwordFile = PlatformSecrets.beside(work.resolve("postgres"))
                .resolve("users")
                .resolve("ops-load");
        KafkaClientSettings oldLoad;
        try (LocalPlatform platform = LocalPlatform.start(PostgresConfiguration.embedded(), options)) {
            assertThat(platform.secured()).isTrue();
            try (Admin admin =
                    Admin.create(platform.cluster(PlatformPrincipals.ADMIN).admin(Map.of()))) {
                admin.createTopics(List.of(new NewTopic(Topics.ORDERS, 1, (short) 1)))
                        .all()
                        .get(30, TimeUnit.SECONDS);
            }
            oldLoad = platform.cluster("ops-load");
            assertThat(produce(oldLoad)).isZero();
        }
        String oldPassword = Files.readString(passwordFile).trim();

        Files.delete(passwordFile);

        try (LocalPlatform again = LocalPlatform.start(PostgresConfiguration.embedded(), options)) {
            assertThat(Files.readString(passwordFile).trim()).isNotEqualTo(oldPassword);
            // The old login against the broker's new port (0 picks a free one at each start).
            KafkaClientSettings oldLogin = again.cluster("ops-load")
                    .with("sasl.jaas.config", oldLoad.asMap().get("sasl.jaas.config"));
            try (Admin stale = Admin.create(oldLogin.admin(Map.of(
                    AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 15000,
                    AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 10000)))) {
                assertThatThrownBy(() -> stale.listTopics().names().get())
                        .as("the old password")
                        .hasCauseInstanceOf(SaslAuthenticationException.class);
            }
            assertThat(produce(again.cluster("ops-load")))
                    .as("the next offset: the first record is kept")
                    .isOne();
        }
    }

    /** Writes one record to {@code orders} as {@code cluster} says; returns its offset. */
    private static long produce(KafkaClientSettings cluster) throws Exception {
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(
                cluster.producer(Map.of(ProducerConfig.MAX_BLOCK_MS_CONFIG, 15000)),
                new StringSerializer(),
                new StringSerializer())) {
            return producer.send(new ProducerRecord<>(Topics.ORDERS, "order-1", "created"))
                    .get(30, TimeUnit.SECONDS)
                    .offset();
        }
    }
}
