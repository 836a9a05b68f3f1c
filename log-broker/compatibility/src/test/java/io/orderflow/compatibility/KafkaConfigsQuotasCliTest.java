package io.orderflow.compatibility;

import static io.orderflow.compatibility.KafkaCli.Tool.CONFIGS;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Client quotas managed with {@code kafka-configs.sh} (kafka-tools 4.4.0) on our broker and on Apache Kafka 4.4.0 in
 * the same test: the same commands print the same lines on both (set, described, a fractional byte rate refused with
 * Kafka's message, deleted), and a producer of the quota's client id is throttled on both, which kafka-clients
 * reports as {@code produce-throttle-time-avg}.
 */
class KafkaConfigsQuotasCliTest {
    @TempDir
    Path workDir;

    @Test
    void kafkaConfigsManagesQuotasThatThrottleAProducerOnBothBrokers() throws Exception {
        Transcript ours;
        try (BrokerProcess broker = BrokerProcess.start(workDir.resolve("ours"))) {
            ours = manageQuotasAndProduce(broker.bootstrapServers());
        }
        Transcript kafka;
        try (ApacheKafkaProcess broker = ApacheKafkaProcess.start(workDir.resolve("kafka"))) {
            kafka = manageQuotasAndProduce(broker.bootstrapServers());
        }

        assertThat(ours.lines()).isEqualTo(kafka.lines());
        assertThat(ours.lines())
                .contains(
                        "Completed updating config for client metered.",
                        "Quota configs for client-id 'metered' are consumer_byte_rate=204800.0,"
                                + " producer_byte_rate=102400.0",
                        "Quota configs for the default user-principal are request_percentage=200.0",
                        "Quota configs for client-id 'metered' are consumer_byte_rate=204800.0");
        assertThat(ours.refusal()).contains("consumer_byte_rate cannot be a fractional value.");
        assertThat(kafka.refusal()).contains("consumer_byte_rate cannot be a fractional value.");
        assertThat(ours.produceThrottleTimeAvgMs()).as("ours").isPositive();
        assertThat(kafka.produceThrottleTimeAvgMs()).as("Apache Kafka").isPositive();
    }

    /** What the tools printed on stdout, what the refused command printed, and the producer's throttle average. */
    private record Transcript(List<String> lines, String refusal, double produceThrottleTimeAvgMs) {}

    private static Transcript manageQuotasAndProduce(String bootstrap) throws Exception {
        List<String> lines = new ArrayList<>();
        lines.addAll(configs(
                        bootstrap,
                        "--alter",
                        "--entity-type",
                        "clients",
                        "--entity-name",
                        "metered",
                        "--add-config",
                        "producer_byte_rate=102400,consumer_byte_rate=204800")
                .succeeded()
                .stdoutLines());
        lines.addAll(configs(
                        bootstrap,
                        "--alter",
                        "--entity-type",
                        "users",
                        "--entity-default",
                        "--add-config",
                        "request_percentage=200")
                .succeeded()
                .stdoutLines());
        lines.addAll(configs(bootstrap, "--describe", "--entity-type", "clients", "--entity-name", "metered")
                .succeeded()
                .stdoutLines());
        lines.addAll(configs(bootstrap, "--describe", "--entity-type", "users", "--entity-default")
                .succeeded()
                .stdoutLines());
        KafkaCli.Run refused = configs(
                bootstrap,
                "--alter",
                "--entity-type",
                "clients",
                "--entity-name",
                "metered",
                "--add-config",
                "consumer_byte_rate=10.5");
        assertThat(refused.exitCode()).as(refused::transcript).isNotZero();

        double throttle = produceAsMetered(bootstrap);

        lines.addAll(configs(
                        bootstrap,
                        "--alter",
                        "--entity-type",
                        "clients",
                        "--entity-name",
                        "metered",
                        "--delete-config",
                        "producer_byte_rate")
                .succeeded()
                .stdoutLines());
        lines.addAll(configs(bootstrap, "--describe", "--entity-type", "clients", "--entity-name", "metered")
                .succeeded()
                .stdoutLines());
        return new Transcript(lines, refused.stdout() + refused.stderr(), throttle);
    }

    /**
     * 1,280 KiB as client id {@code metered}: more than the 1,000 KiB that 100 KiB/s lets a new client send at once
     * with Kafka's default 11 windows, so the last requests are throttled; returns the producer's throttle average.
     */
    private static double produceAsMetered(String bootstrap) throws Exception {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.CLIENT_ID_CONFIG, "metered");
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        try (KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
            List<Future<RecordMetadata>> sent = new ArrayList<>();
            byte[] value = new byte[16 * 1024];
            for (int i = 0; i < 80; i++) {
                sent.add(producer.send(new ProducerRecord<>("metered-topic", value)));
            }
            for (Future<RecordMetadata> f : sent) {
                f.get(120, TimeUnit.SECONDS);
            }
            return producer.metrics().entrySet().stream()
                    .filter(e -> e.getKey().name().equals("produce-throttle-time-avg")
                            && e.getKey().group().equals("producer-metrics"))
                    .mapToDouble(e -> ((Number) e.getValue().metricValue()).doubleValue())
                    .findFirst()
                    .orElseThrow();
        }
    }

    private static KafkaCli.Run configs(String bootstrap, String... args) {
        return KafkaCli.runAgainst(bootstrap, CONFIGS, args);
    }
}
