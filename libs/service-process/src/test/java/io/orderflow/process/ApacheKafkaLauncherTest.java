package io.orderflow.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class ApacheKafkaLauncherTest {
    private static final Pattern KAFKA_VERSION = Pattern.compile("<kafka\\.version>([^<]+)</kafka\\.version>");

    @Test
    void theAnchorVersionIsTheBuildsKafkaVersion() throws IOException {
        assertThat(ApacheKafkaLauncher.VERSION).isEqualTo(kafkaVersion(Path.of("..", "..", "pom.xml")));
        assertThat(ApacheKafkaLauncher.NAME).isEqualTo("Apache Kafka " + ApacheKafkaLauncher.VERSION);
    }

    /** kafka-anchor has no parent (Quarkus's BOM must not touch Kafka's own dependencies), so it repeats the version. */
    @Test
    void kafkaAnchorResolvesTheSameRelease() throws IOException {
        assertThat(kafkaVersion(Path.of("..", "..", "log-broker", "kafka-anchor", "pom.xml")))
                .isEqualTo(ApacheKafkaLauncher.VERSION);
    }

    @Test
    void clusterIdsAreTwentyTwoUrlSafeCharacters() {
        assertThat(ApacheKafkaLauncher.randomClusterId()).matches("[A-Za-z0-9_-]{22}");
    }

    private static String kafkaVersion(Path pom) throws IOException {
        Matcher version = KAFKA_VERSION.matcher(Files.readString(pom));
        assertThat(version.find()).as("kafka.version in %s", pom).isTrue();
        return version.group(1);
    }

    @Test
    void aHeapReplacesKafkaServerStartsAsKafkaHeapOptsDoes() {
        String described = new ApacheKafkaLauncher(Path.of("/opt/kafka/libs"))
                .withHeap(List.of("-Xmx128m"), List.of("-XX:+HeapDumpOnOutOfMemoryError"))
                .describe();

        assertThat(described)
                .contains("JVM options -Xmx128m -server -XX:+UseG1GC")
                .endsWith("-XX:+HeapDumpOnOutOfMemoryError, no fsync before acknowledging (Kafka's default)")
                .doesNotContain("-Xmx1G")
                .doesNotContain("-Xms1G");
    }

    @Test
    void plaintextServerPropertiesAreKafkasSingleNodeExample() {
        assertThat(ApacheKafkaLauncher.serverProperties(Path.of("/data/kafka"), 9092, 9093, 6))
                .isEqualTo("""
                        process.roles=broker,controller
                        node.id=1
                        controller.quorum.bootstrap.servers=127.0.0.1:9093
                        listeners=PLAINTEXT://127.0.0.1:9092,CONTROLLER://127.0.0.1:9093
                        advertised.listeners=PLAINTEXT://127.0.0.1:9092,CONTROLLER://127.0.0.1:9093
                        inter.broker.listener.name=PLAINTEXT
                        controller.listener.names=CONTROLLER
                        listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
                        log.dirs=/data/kafka
                        num.partitions=6
                        offsets.topic.replication.factor=1
                        transaction.state.log.replication.factor=1
                        transaction.state.log.min.isr=1
                        share.coordinator.state.topic.replication.factor=1
                        share.coordinator.state.topic.min.isr=1
                        group.initial.rebalance.delay.ms=0
                        """);
    }

    @Test
    void saslSslServerPropertiesPutTheClientAndInterBrokerListenerOnScramOverTls() throws IOException {
        LocalCertificates certificates = new LocalCertificates(Path.of("/work/tls"), "store-secret");
        var saslSsl = new ApacheKafkaLauncher.SaslSsl(certificates, "perf", "user-secret");

        String text = ApacheKafkaLauncher.serverProperties(Path.of("/data/kafka"), 9092, 9093, 6, saslSsl);
        Properties settings = new Properties();
        settings.load(new StringReader(text));

        assertThat(text).doesNotContain("PLAINTEXT://");
        assertThat(settings)
                .containsEntry("process.roles", "broker,controller")
                .containsEntry("listeners", "SASL_SSL://127.0.0.1:9092,CONTROLLER://127.0.0.1:9093")
                .containsEntry("advertised.listeners", "SASL_SSL://127.0.0.1:9092,CONTROLLER://127.0.0.1:9093")
                .containsEntry("inter.broker.listener.name", "SASL_SSL")
                .containsEntry("controller.listener.names", "CONTROLLER")
                .containsEntry("listener.security.protocol.map", "CONTROLLER:PLAINTEXT,SASL_SSL:SASL_SSL")
                .containsEntry("sasl.enabled.mechanisms", "SCRAM-SHA-512")
                .containsEntry("sasl.mechanism.inter.broker.protocol", "SCRAM-SHA-512")
                .containsEntry(
                        "listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config",
                        "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"perf\""
                                + " password=\"user-secret\";")
                .containsEntry("ssl.keystore.location", "/work/tls/broker.p12")
                .containsEntry("ssl.keystore.password", "store-secret")
                .containsEntry("ssl.truststore.location", "/work/tls/truststore.p12")
                .containsEntry("ssl.truststore.password", "store-secret")
                .containsEntry("log.dirs", "/data/kafka")
                .containsEntry("num.partitions", "6")
                .containsEntry("group.initial.rebalance.delay.ms", "0");
        assertThat(text)
                .as("everything the PLAINTEXT broker has, with the listener renamed, then the security settings")
                .startsWith(ApacheKafkaLauncher.serverProperties(Path.of("/data/kafka"), 9092, 9093, 6)
                        .replace("PLAINTEXT://", "SASL_SSL://")
                        .replace("inter.broker.listener.name=PLAINTEXT", "inter.broker.listener.name=SASL_SSL")
                        .replace("PLAINTEXT:PLAINTEXT\n", "SASL_SSL:SASL_SSL\n"));
        assertThat(saslSsl.scramCredential()).isEqualTo("SCRAM-SHA-512=[name=perf,password=user-secret]");
    }

    @Test
    void describeNamesTheSaslSslListenerButNoPassword() {
        ApacheKafkaLauncher plaintext = new ApacheKafkaLauncher(Path.of("kafka-broker"), List.of());
        ApacheKafkaLauncher saslSsl = plaintext.withSaslSsl(
                new LocalCertificates(Path.of("/work/tls"), "store-secret"), "perf", "user-secret");

        assertThat(plaintext.describe()).doesNotContain("SASL").endsWith("(Kafka's default)");
        assertThat(saslSsl.describe())
                .startsWith(plaintext.describe())
                .endsWith(", a SASL_SSL listener (SCRAM-SHA-512, user perf, TLS key store /work/tls/broker.p12)")
                .doesNotContain("store-secret", "user-secret");
    }

    @Test
    void aPasswordThatWouldBreakTheJaasOrScramSyntaxIsRefused() {
        LocalCertificates certificates = new LocalCertificates(Path.of("/work/tls"), "store-secret");
        ApacheKafkaLauncher kafka = new ApacheKafkaLauncher(Path.of("kafka-broker"));

        for (String password : List.of("", "a\"b", "a,b", "a]b", "a b", "a\\b")) {
            assertThatThrownBy(() -> kafka.withSaslSsl(certificates, "perf", password))
                    .as(password)
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageNotContaining(password.isEmpty() ? "\u0000" : password);
        }
        assertThatThrownBy(() -> kafka.withSaslSsl(certificates, "perf user", "secret"))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
