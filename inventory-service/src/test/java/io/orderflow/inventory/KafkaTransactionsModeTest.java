package io.orderflow.inventory;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.orderflow.contracts.EventCatalog;
import io.orderflow.contracts.EventCodec;
import io.orderflow.contracts.EventEnvelope;
import io.orderflow.contracts.EventHeaders;
import io.orderflow.contracts.order.OrderCreated;
import io.orderflow.contracts.order.OrderLine;
import io.orderflow.testing.OrderEventsProducer;
import io.orderflow.testing.quarkus.BrokerResource;
import io.orderflow.testing.quarkus.ServiceDatabaseResource;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Test;

/**
 * inventory-service with {@code orderflow.inventory-service.outcomes=kafka-transactions} on our broker over TCP and a real
 * PostgreSQL: its outcomes reach the {@code inventory} topic without a relay, as read by a read_committed consumer,
 * one per order with the decision outbox mode makes; the staging rows are gone once published, and the group's
 * committed offsets on {@code orders} reach the end (committed by the transactions: the channel commits nothing). The
 * consumer library's dead-letter routing, outside the transaction, still works.
 */
@QuarkusTest
@TestProfile(KafkaTransactionsModeTest.KafkaTransactions.class)
@WithTestResource(
        value = BrokerResource.class,
        initArgs = @ResourceArg(name = "topics", value = "orders:3,inventory:3"))
@WithTestResource(
        value = ServiceDatabaseResource.class,
        initArgs = @ResourceArg(name = "service", value = "inventory-service"))
class KafkaTransactionsModeTest {

    private static final Duration WITHIN = Duration.ofSeconds(30);

    public static final class KafkaTransactions implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of(
                    "orderflow.inventory-service.outcomes", "kafka-transactions",
                    "orderflow.inventory-service.transactional-id", "inventory-test-0");
        }
    }

    @Inject
    DataSource dataSource;

    @ConfigProperty(name = "orderflow.admin.token")
    String adminToken;

    @ConfigProperty(name = "mp.messaging.incoming.orders.commit-strategy")
    String commitStrategy;

    private final String run = UUID.randomUUID().toString().substring(0, 8);

    @Test
    void theOrdersChannelLeavesItsOffsetsToTheTransactions() {
        assertThat(commitStrategy).isEqualTo("ignore");
    }

    @Test
    void outcomesArePublishedInTransactionsWithTheDecisionsOfOutboxMode() throws Exception {
        String sku = "sku-txn-" + run;
        given().header("Authorization", "Bearer " + adminToken)
                .contentType("application/json")
                .body(Map.of("onHand", 3))
                .put("/inventory/" + sku)
                .then()
                .statusCode(200);
        Map<String, String> expected = new TreeMap<>();
        try (OrderEventsProducer producer = new OrderEventsProducer(BrokerResource.bootstrapServers())) {
            for (int i = 0; i < 5; i++) {
                String orderId = "order-txn-" + i + "-" + run;
                producer.send(new OrderCreated(
                        orderId,
                        "customer-1",
                        "EUR",
                        List.of(new OrderLine(sku, 1, new BigDecimal("1.00"))),
                        new BigDecimal("1.00"),
                        "web"));
                expected.put(orderId, i < 3 ? "InventoryReserved" : "InventoryRejected");
            }
        }

        List<ConsumerRecord<String, byte[]>> read = new ArrayList<>();
        try (KafkaConsumer<String, byte[]> consumer = readCommitted()) {
            consumer.subscribe(List.of("inventory"));
            await().atMost(WITHIN).until(() -> {
                consumer.poll(Duration.ofMillis(200)).forEach(record -> {
                    if (expected.containsKey(record.key())) {
                        read.add(record);
                    }
                });
                return read.size() >= expected.size();
            });
            // Nothing more arrives for these orders: one outcome each, not two.
            consumer.poll(Duration.ofMillis(500)).forEach(record -> {
                if (expected.containsKey(record.key())) {
                    read.add(record);
                }
            });
        }
        EventCodec codec = new EventCodec(EventCatalog.inventoryEvents());
        Map<String, String> published = new TreeMap<>();
        for (ConsumerRecord<String, byte[]> record : read) {
            EventEnvelope envelope = codec.decode(record.value());
            assertThat(envelope.orderId()).isEqualTo(record.key());
            assertThat(header(record, EventHeaders.EVENT_ID))
                    .isEqualTo(envelope.eventId().toString());
            assertThat(header(record, EventHeaders.EVENT_TYPE)).isEqualTo(envelope.eventType());
            assertThat(envelope.producer()).isEqualTo("inventory-service");
            assertThat(published.put(record.key(), envelope.eventType()))
                    .as("a second outcome for %s", record.key())
                    .isNull();
        }
        assertThat(published).isEqualTo(expected);

        await().atMost(WITHIN).until(() -> stagedOutcomes() == 0);
        await().atMost(WITHIN)
                .untilAsserted(() -> assertThat(committedOffsets()).isEqualTo(endOffsets()));
    }

    @Test
    void aPoisonRecordStillGoesToTheDeadLetterTopicAndTheOrdersAfterItArePublished() throws Exception {
        String poisoned = "order-poison-" + run;
        String after = "order-after-poison-" + run;
        try (OrderEventsProducer producer = new OrderEventsProducer(BrokerResource.bootstrapServers())) {
            producer.send(poisoned, "{\"not\": \"an envelope\"}".getBytes(StandardCharsets.UTF_8));
            producer.send(new OrderCreated(
                    after,
                    "customer-1",
                    "EUR",
                    List.of(new OrderLine("sku-1", 1, new BigDecimal("1.00"))),
                    new BigDecimal("1.00"),
                    "web"));
        }
        assertThat(firstKeyOn("dead-letter-topic-inventory-service", poisoned)).isEqualTo(poisoned);
        assertThat(firstKeyOn("inventory", after)).isEqualTo(after);
    }

    /** The key of the first record for {@code key} a read_committed consumer finds on {@code topic}. */
    private String firstKeyOn(String topic, String key) {
        List<String> found = new ArrayList<>();
        try (KafkaConsumer<String, byte[]> consumer = readCommitted()) {
            consumer.subscribe(List.of(topic));
            await().atMost(WITHIN).until(() -> {
                consumer.poll(Duration.ofMillis(200)).forEach(record -> {
                    if (key.equals(record.key())) {
                        found.add(record.key());
                    }
                });
                return !found.isEmpty();
            });
        }
        return found.getFirst();
    }

    private KafkaConsumer<String, byte[]> readCommitted() {
        return new KafkaConsumer<>(
                Map.of(
                        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                        BrokerResource.bootstrapServers(),
                        ConsumerConfig.GROUP_ID_CONFIG,
                        "reader-" + run,
                        ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
                        "earliest",
                        ConsumerConfig.ISOLATION_LEVEL_CONFIG,
                        "read_committed"),
                new StringDeserializer(),
                new ByteArrayDeserializer());
    }

    private static String header(ConsumerRecord<String, byte[]> record, String name) {
        var header = record.headers().lastHeader(name);
        return header == null ? null : new String(header.value(), StandardCharsets.UTF_8);
    }

    private int stagedOutcomes() throws SQLException {
        try (Connection connection = dataSource.getConnection();
                ResultSet row = connection.createStatement().executeQuery("SELECT count(*) FROM outbox")) {
            row.next();
            return row.getInt(1);
        }
    }

    private Map<TopicPartition, Long> committedOffsets() throws Exception {
        try (Admin admin = admin()) {
            Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets("inventory-service")
                    .partitionsToOffsetAndMetadata()
                    .get();
            return committed.entrySet().stream()
                    .filter(entry -> entry.getKey().topic().equals("orders") && entry.getValue() != null)
                    .collect(Collectors.toMap(
                            Map.Entry::getKey, entry -> entry.getValue().offset()));
        }
    }

    private Map<TopicPartition, Long> endOffsets() throws Exception {
        try (Admin admin = admin()) {
            Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
            for (int partition = 0; partition < 3; partition++) {
                latest.put(new TopicPartition("orders", partition), OffsetSpec.latest());
            }
            Map<TopicPartition, Long> ends = new HashMap<>();
            admin.listOffsets(latest).all().get().forEach((partition, info) -> {
                if (info.offset() > 0) {
                    ends.put(partition, info.offset());
                }
            });
            return ends;
        }
    }

    private static Admin admin() {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, BrokerResource.bootstrapServers()));
    }
}
