package io.orderflow.lag;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.orderflow.testing.quarkus.BrokerResource;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/**
 * The service as an operator reads it, on our broker: {@code GET /lag} as JSON and {@code /q/metrics} with
 * kafka_exporter's metric names and labels, for a group left 30 records behind, and for a member that reads and
 * never commits.
 */
@QuarkusTest
@WithTestResource(
        value = BrokerResource.class,
        initArgs = @ResourceArg(name = "topics", value = "payments:2,refunds:1"))
class LagResourceTest {

    private static final Duration WITHIN = Duration.ofSeconds(30);

    private static void leaveAGroupBehind(String group) throws Exception {
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(
                Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, BrokerResource.bootstrapServers()),
                new StringSerializer(),
                new StringSerializer())) {
            for (int i = 0; i < 50; i++) {
                producer.send(new ProducerRecord<>("payments", 1, "key-" + i, "value-" + i));
            }
            producer.flush();
        }
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(
                Map.of(
                        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                        BrokerResource.bootstrapServers(),
                        ConsumerConfig.GROUP_ID_CONFIG,
                        group),
                new StringDeserializer(),
                new StringDeserializer())) {
            consumer.commitSync(Map.of(new TopicPartition("payments", 1), new OffsetAndMetadata(20)));
        }
    }

    @Test
    void aLaggingGroupIsServedAsJsonAndAsKafkaExporterMetrics() throws Exception {
        leaveAGroupBehind("billing");

        await().atMost(WITHIN).until(() -> {
            JsonPath lag = given().get("/lag").then().statusCode(200).extract().jsonPath();
            List<Integer> lags = lag.getList("groups.find { it.group == 'billing' }.partitions.lag");
            return lags != null && lags.equals(List.of(30));
        });
        JsonPath lag = given().get("/lag").jsonPath();
        assertThat(lag.getString("groups.find { it.group == 'billing' }.status"))
                .isEqualTo("STOP");
        assertThat(lag.getDouble("groups.find { it.group == 'billing' }.lagSeconds"))
                .isGreaterThanOrEqualTo(0);
        assertThat(lag.getList("topics.find { it.topic == 'payments' }.partitions.endOffset"))
                .containsExactly(0, 50);
        assertThat(lag.getLong("windowSeconds"))
                .as("orderflow.lag-monitor.window (test profile)")
                .isEqualTo(4);

        // The history reaches back orderflow.lag-monitor.history (5 s in the test profile): readings more than 6 s
        // after one are taken, and that one is gone.
        long first = given().get("/lag/history").jsonPath().getLong("[0].at");
        await().atMost(WITHIN)
                .until(() -> given().get("/lag/history").jsonPath().getLong("[-1].at") >= first + 6_000);
        JsonPath history = given().get("/lag/history").jsonPath();
        List<Long> at = history.getList("at", Long.class);
        assertThat(at.getFirst()).isGreaterThan(first);
        assertThat(at.getLast() - at.getFirst()).isLessThanOrEqualTo(5_000);
        assertThat(at).isSorted();
        assertThat(history.getInt("[-1].groups.billing.lag")).isEqualTo(30);

        await().atMost(WITHIN)
                .until(
                        () -> given().get("/q/metrics")
                                .asString()
                                .contains(
                                        "kafka_consumergroup_lag{consumergroup=\"billing\",partition=\"1\",topic=\"payments\"} 30.0"));
        String metrics = given().get("/q/metrics").asString();
        assertThat(metrics)
                .contains(
                        "kafka_consumergroup_current_offset{consumergroup=\"billing\",partition=\"1\",topic=\"payments\"} 20.0")
                .contains("kafka_consumergroup_lag_sum{consumergroup=\"billing\",topic=\"payments\"} 30.0")
                .contains("kafka_consumergroup_members{consumergroup=\"billing\"} 0.0")
                .contains("kafka_topic_partition_current_offset{partition=\"1\",topic=\"payments\"} 50.0")
                .contains("kafka_topic_partition_oldest_offset{partition=\"1\",topic=\"payments\"} 0.0")
                .contains("kafka_topic_partitions{topic=\"payments\"} 2.0")
                .contains("kafka_brokers 1.0")
                .contains("orderflow_consumergroup_status{consumergroup=\"billing\",status=\"STOP\"} 1.0")
                .contains("orderflow_consumergroup_status{consumergroup=\"billing\",status=\"OK\"} 0.0")
                .contains(
                        "orderflow_consumergroup_lag_seconds{consumergroup=\"billing\",partition=\"1\",topic=\"payments\"}");
    }

    @Test
    void aMemberThatNeverCommitsShowsItsLagAsJsonAndAsKafkaExportersMinusOne() throws Exception {
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(
                Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, BrokerResource.bootstrapServers()),
                new StringSerializer(),
                new StringSerializer())) {
            for (int i = 0; i < 12; i++) {
                producer.send(new ProducerRecord<>("refunds", 0, "key-" + i, "value-" + i));
            }
            producer.flush();
        }
        try (KafkaConsumer<String, String> member = new KafkaConsumer<>(
                Map.of(
                        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                        BrokerResource.bootstrapServers(),
                        ConsumerConfig.GROUP_ID_CONFIG,
                        "auditors",
                        ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
                        "false",
                        ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
                        "earliest"),
                new StringDeserializer(),
                new StringDeserializer())) {
            member.subscribe(List.of("refunds"));
            int[] read = {0};
            await().atMost(WITHIN).until(() -> {
                read[0] += member.poll(Duration.ofMillis(100)).count();
                return read[0] == 12;
            });

            String lagLine = "kafka_consumergroup_lag{consumergroup=\"auditors\",partition=\"0\",topic=\"refunds\"}";
            await().atMost(WITHIN)
                    .until(() -> given().get("/q/metrics").asString().contains(lagLine + " -1.0"));
            JsonPath lag = given().get("/lag").jsonPath();
            assertThat(lag.getList("groups.find { it.group == 'auditors' }.partitions.committed"))
                    .containsExactly(-1);
            assertThat(lag.getList("groups.find { it.group == 'auditors' }.partitions.lag"))
                    .containsExactly(12);
            String metrics = given().get("/q/metrics").asString();
            assertThat(metrics)
                    .contains(
                            "kafka_consumergroup_current_offset{consumergroup=\"auditors\",partition=\"0\",topic=\"refunds\"} -1.0")
                    .contains("kafka_consumergroup_lag_sum{consumergroup=\"auditors\",topic=\"refunds\"} 0.0")
                    .contains("kafka_consumergroup_members{consumergroup=\"auditors\"} 1.0");
        }
    }
}
