package io.orderflow.compatibility;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.orderflow.postgres.PostgresDatabase;
import io.orderflow.relay.OutboxFixture;
import io.orderflow.relay.RelayProcess;
import io.orderflow.relay.TopicReader;
import io.orderflow.relay.TopicReader.Published;
import io.orderflow.testing.PostgresTest;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The same packaged outbox relay, unchanged, against our broker and against Apache Kafka 4.4.0: only
 * {@code kafka.bootstrap.servers} differs. Each run checks what the relay promises on any Kafka-protocol broker:
 * every event arrives once, keyed by its order, with its headers, in each order's sequence.
 */
@PostgresTest(service = "order-service")
class OutboxRelayOnBothBrokersTest {

    private static final Path RELAY_JAR =
            Path.of("..", "..", "outbox-relay", "target", "quarkus-app", "quarkus-run.jar");
    private static final Duration WITHIN = Duration.ofSeconds(90);

    @Test
    void theRelayPublishesInOrderToOurBroker(PostgresDatabase database, @TempDir Path workDir) throws Exception {
        try (BrokerProcess broker = BrokerProcess.start(workDir)) {
            relayEverything(database, broker.bootstrapServers(), "ours");
        }
    }

    @Test
    void theSameRelayPublishesInOrderToApacheKafka(PostgresDatabase database, @TempDir Path workDir) throws Exception {
        try (ApacheKafkaProcess kafka = ApacheKafkaProcess.start(workDir)) {
            relayEverything(database, kafka.bootstrapServers(), "apache-kafka");
        }
    }

    private void relayEverything(PostgresDatabase database, String bootstrapServers, String name) throws Exception {
        OutboxFixture outbox = OutboxFixture.clean(database);
        Map<String, List<String>> written = new LinkedHashMap<>();
        for (int version = 1; version <= 5; version++) {
            for (int order = 0; order < 20; order++) {
                String orderId = "order-" + order;
                written.computeIfAbsent(orderId, id -> new ArrayList<>())
                        .add(outbox.write(orderId, version).toString());
            }
        }
        try (Connection connection = outbox.connect()) {
            OutboxFixture.insertRaw(connection, UUID.randomUUID(), "order-bad", 1, "OrderCreated", "1.1", "{");
        }
        try (RelayProcess relay = RelayProcess.start(RELAY_JAR, name, database, bootstrapServers, Map.of())) {
            await().atMost(WITHIN).until(() -> outbox.count("published_at IS NULL AND quarantined_at IS NULL") == 0);
            await().atMost(WITHIN).until(() -> relay.httpStatus("/q/health/ready") == 200);
        }
        assertThat(outbox.count("quarantined_at IS NOT NULL")).isEqualTo(1);
        try (TopicReader reader = new TopicReader(bootstrapServers, "orders")) {
            List<Published> records = reader.readToEnd(WITHIN);
            assertThat(records).hasSize(100);
            Map<String, List<String>> byOrder = new LinkedHashMap<>();
            TopicReader.byKey(records)
                    .forEach((orderId, events) -> byOrder.put(
                            orderId, events.stream().map(Published::eventId).toList()));
            assertThat(byOrder).isEqualTo(written);
            assertThat(records)
                    .allSatisfy(record ->
                            assertThat(record.headers()).containsKeys("eventId", "eventType", "eventVersion"));
        }
    }
}
