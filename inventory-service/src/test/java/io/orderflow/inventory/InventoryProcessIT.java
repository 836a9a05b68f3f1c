package io.orderflow.inventory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.orderflow.contracts.EventCodec;
import io.orderflow.contracts.order.OrderCreated;
import io.orderflow.contracts.order.OrderLine;
import io.orderflow.postgres.PostgresDatabase;
import io.orderflow.process.ServiceProcess;
import io.orderflow.testing.CleanSchema;
import io.orderflow.testing.ConsumerGroupOffsets;
import io.orderflow.testing.InProcessBroker;
import io.orderflow.testing.PackagedService;
import io.orderflow.testing.PostgresTest;
import java.math.BigDecimal;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged inventory-service as a process, on our broker and a real PostgreSQL: killed with SIGKILL in the middle
 * of its batches it loses nothing and applies nothing twice after a restart; and a replay from the earliest offset
 * (the group's offsets reset, as {@code kafka-consumer-groups --reset-offsets --to-earliest --execute} does) repeats
 * no effect.
 */
@PostgresTest(service = "inventory-service")
class InventoryProcessIT {

    private static final int ORDERS = 5_000;
    private static final int PARTITIONS = 3;
    private static final String SKU = "sku-1";
    private static final Duration WITHIN = Duration.ofMinutes(3);

    private static ServiceProcess start(PostgresDatabase database, InProcessBroker broker, String name) {
        return start(database, broker, name, 0);
    }

    /** With {@code warmUpRounds} of the service's warm-up (ConsumerWarmUp) before it reports ready. */
    private static ServiceProcess start(
            PostgresDatabase database, InProcessBroker broker, String name, int warmUpRounds) {
        return PackagedService.builder("inventory-service", database, broker.bootstrapServers(), "inventory-" + name)
                .property("orderflow.consumer.warm-up.rounds", Integer.toString(warmUpRounds))
                .start();
    }

    /** The readiness check {@code warm-up}'s rounds completed, as {@code /q/health/ready} reports them. */
    private static int warmUpRoundsCompleted(ServiceProcess service) throws Exception {
        try (HttpClient http = HttpClient.newHttpClient()) {
            String health = http.send(
                            HttpRequest.newBuilder(service.baseUri().resolve("/q/health/ready"))
                                    .build(),
                            HttpResponse.BodyHandlers.ofString())
                    .body();
            for (JsonNode check : new ObjectMapper().readTree(health).get("checks")) {
                if (check.get("name").asText().equals("warm-up")) {
                    return check.get("data").get("completed").asInt();
                }
            }
            throw new AssertionError("no warm-up check in " + health);
        }
    }

    private static long number(PostgresDatabase database, String sql) throws SQLException {
        try (Connection connection = database.connect();
                Statement statement = connection.createStatement();
                ResultSet row = statement.executeQuery(sql)) {
            row.next();
            return row.getLong(1);
        }
    }

    private static void produceOrders(InProcessBroker broker) throws Exception {
        EventCodec codec = new EventCodec();
        try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(
                Map.of(
                        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                        broker.bootstrapServers(),
                        ProducerConfig.LINGER_MS_CONFIG,
                        5),
                new StringSerializer(),
                new ByteArraySerializer())) {
            List<Future<RecordMetadata>> sends = new ArrayList<>();
            for (int n = 0; n < ORDERS; n++) {
                String orderId = "order-" + n;
                OrderCreated created = new OrderCreated(
                        orderId,
                        "customer-1",
                        "EUR",
                        List.of(new OrderLine(SKU, 1, BigDecimal.ONE)),
                        BigDecimal.ONE,
                        "web");
                byte[] value = codec.encode(codec.wrap(created, UUID.randomUUID(), Instant.now(), "test", null));
                sends.add(producer.send(new ProducerRecord<>("orders", orderId, value)));
            }
            for (Future<RecordMetadata> send : sends) {
                send.get();
            }
        }
    }

    @Test
    void aConsumerKilledMidBatchLosesNothingAndAppliesNothingTwiceAndAReplayRepeatsNoEffect(
            PostgresDatabase database, @TempDir Path brokerDir) throws Exception {
        CleanSchema.empty(database);
        try (InProcessBroker broker = InProcessBroker.start(brokerDir)) {
            broker.createTopic("orders", PARTITIONS);
            produceOrders(broker);

            ServiceProcess first = start(database, broker, "first");
            await().atMost(WITHIN).until(() -> number(database, "SELECT count(*) FROM processed_events") >= 500);
            first.killNine();
            long atKill = number(database, "SELECT count(*) FROM processed_events");
            assertThat(atKill)
                    .as("killed before the end, or the test proves nothing")
                    .isLessThan(ORDERS);

            // The second instance rehearses its warm-up while the backlog the first left is consumed: the exact
            // counts below show that nothing of the rehearsals stays (no reservation, no claimed id, no outbox row).
            try (ServiceProcess second = start(database, broker, "second", 50)) {
                assertThat(warmUpRoundsCompleted(second)).isEqualTo(50);
                await().atMost(WITHIN).until(() -> number(database, "SELECT count(*) FROM reservations") == ORDERS);
            }
            assertThat(number(database, "SELECT reserved FROM stock WHERE sku = '" + SKU + "'"))
                    .isEqualTo(ORDERS);
            assertThat(number(database, "SELECT count(*) FROM outbox")).isEqualTo(ORDERS);
            assertThat(number(database, "SELECT count(*) FROM processed_events"))
                    .isEqualTo(ORDERS);

            ConsumerGroupOffsets.resetToEarliest(broker.bootstrapServers(), "inventory-service", "orders");
            try (ServiceProcess replaying = start(database, broker, "replay")) {
                await().atMost(WITHIN).until(() -> PackagedService.duplicatesSkipped(replaying) >= ORDERS);
            }
            assertThat(number(database, "SELECT reserved FROM stock WHERE sku = '" + SKU + "'"))
                    .isEqualTo(ORDERS);
            assertThat(number(database, "SELECT count(*) FROM outbox")).isEqualTo(ORDERS);
        }
    }
}
