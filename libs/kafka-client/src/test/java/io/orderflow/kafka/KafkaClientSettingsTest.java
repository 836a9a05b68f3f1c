package io.orderflow.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.smallrye.config.EnvConfigSource;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfigBuilder;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.eclipse.microprofile.config.Config;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KafkaClientSettingsTest {

    private static final String JAAS = "org.apache.kafka.common.security.scram.ScramLoginModule required"
            + " username=\"outbox-relay\" password=\"s3cret\";";

    private static Config config(Map<String, String> properties, Map<String, String> environment) {
        return new SmallRyeConfigBuilder()
                .withSources(new PropertiesConfigSource(properties, "test", 100))
                .withSources(new EnvConfigSource(environment, 300))
                .build();
    }

    @Test
    void aServiceConfigurationGivesEveryKafkaClientKeyUnderTheKafkaPrefix() {
        KafkaClientSettings settings = KafkaClientSettings.fromConfig(config(
                Map.of(
                        "kafka.bootstrap.servers", "localhost:9093",
                        "kafka.security.protocol", "SASL_SSL",
                        "kafka.sasl.mechanism", "SCRAM-SHA-512",
                        "kafka.health.enabled", "false",
                        "quarkus.http.port", "8080"),
                Map.of()));

        assertThat(settings.asMap())
                .containsOnly(
                        Map.entry("bootstrap.servers", "localhost:9093"),
                        Map.entry("security.protocol", "SASL_SSL"),
                        Map.entry("sasl.mechanism", "SCRAM-SHA-512"));
    }

    @Test
    void environmentVariablesSetKafkaKeysAsForSmallRyesConnector() {
        KafkaClientSettings settings = KafkaClientSettings.fromConfig(config(
                Map.of("kafka.bootstrap.servers", "localhost:9092"),
                Map.of("KAFKA_BOOTSTRAP_SERVERS", "broker:9093", "KAFKA_SASL_JAAS_CONFIG", JAAS)));

        assertThat(settings.bootstrapServers()).isEqualTo("broker:9093");
        assertThat(settings.asMap()).containsEntry("sasl.jaas.config", JAAS);
    }

    @Test
    void aConfigurationWithoutBootstrapServersIsRefused() {
        assertThatThrownBy(() -> KafkaClientSettings.fromConfig(config(Map.of("kafka.acks", "all"), Map.of())))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("bootstrap.servers");
    }

    @Test
    void aCommandConfigFileAddsItsSettingsAndTheGivenAddressWins(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("client.properties");
        Files.writeString(
                file,
                "bootstrap.servers=elsewhere:1\nsecurity.protocol=SASL_SSL\nsasl.jaas.config="
                        + JAAS.replace("\"", "\\\"") + "\n");

        KafkaClientSettings settings = KafkaClientSettings.fromFile("localhost:9093", file);

        assertThat(settings.bootstrapServers()).isEqualTo("localhost:9093");
        assertThat(settings.asMap())
                .containsEntry("security.protocol", "SASL_SSL")
                .containsEntry("sasl.jaas.config", JAAS);
        assertThat(KafkaClientSettings.fromFile("localhost:9092", null))
                .isEqualTo(KafkaClientSettings.plaintext("localhost:9092"));
    }

    @Test
    void aMissingCommandConfigFileIsNamed(@TempDir Path dir) {
        Path missing = dir.resolve("missing.properties");

        assertThatThrownBy(() -> KafkaClientSettings.fromFile("localhost:9092", missing))
                .isInstanceOf(UncheckedIOException.class)
                .hasMessageContaining(missing.toString());
    }

    @Test
    void eachClientGetsOnlyTheKeysItKnowsWithItsOwnSettingsOverThem() {
        KafkaClientSettings settings = KafkaClientSettings.plaintext("localhost:9092")
                .with("security.protocol", "SASL_SSL")
                .with("acks", "1")
                .with("isolation.level", "read_committed");

        assertThat(settings.producer(Map.of("acks", "all")))
                .containsEntry("acks", "all")
                .containsEntry("security.protocol", "SASL_SSL")
                .doesNotContainKey("isolation.level");
        assertThat(settings.consumer(Map.of()))
                .containsEntry("isolation.level", "read_committed")
                .doesNotContainKey("acks");
        assertThat(settings.admin(Map.of())).containsOnlyKeys("bootstrap.servers", "security.protocol");
    }

    @Test
    void secretsAreHiddenWhenShown() {
        KafkaClientSettings settings = KafkaClientSettings.plaintext("localhost:9093")
                .with("sasl.jaas.config", JAAS)
                .with("ssl.truststore.password", "trust-me")
                .with("ssl.truststore.location", "/secrets/truststore.p12");

        assertThat(settings.toString())
                .contains("localhost:9093", "/secrets/truststore.p12")
                .doesNotContain("s3cret", "trust-me");
    }
}
