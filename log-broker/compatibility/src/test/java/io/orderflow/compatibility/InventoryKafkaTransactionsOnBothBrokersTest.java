package io.orderflow.compatibility;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.orderflow.contracts.EventCatalog;
import io.orderflow.contracts.EventCodec;
import io.orderflow.contracts.EventEnvelope;
import io.orderflow.contracts.order.OrderCreated;
import io.orderflow.contracts.order.OrderLine;
import io.orderflow.postgres.PostgresDatabase;
import io.orderflow.process.ServiceProcess;
import io.orderflow.testing.CleanSchema;
import io.orderflow.testing.PackagedService;
import io.orderflow.testing.PostgresTest;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged inventory-service, unchanged, with {@code orderflow.inventory-service.outcomes=kafka-transactions}, on
 * our broker and on Apache Kafka 4.4.0 (only {@code kafka.bootstrap.servers} differs), with a real PostgreSQL and no
 * relay: killed with SIGKILL in the middle of its batches and started again with the same {@code transactional.id},
 * it publishes one outcome per order, the one outbox mode decides (reserved; rejected for the sold-out SKU), as a
 * read_committed consumer deduplicating nothing sees it, any second copy with the same event id (the window
 * docs/consumers.md names); its offsets end committed at the log end and nothing stays staged.
 */
@PostgresTest(service = "inventory-service")
class InventoryKafkaTransactionsOnBothBrokersTest {

    private static final Path SERVICE_JAR =
            Path.of("..", "..", "inventory-service", "target", "quarkus-app", "quarkus-run.jar");
    private static final Duration WITHIN = Duration.ofMinutes(3);
    private static final int ORDERS = 2_000;
    private static final int PARTITIONS = 3;

    @Test
    void killedMidStreamOnOurBrokerItPublishesEveryOutcomeOnce(PostgresDatabase database, @TempDir Path workDir)
            throws Exception {
        try (BrokerProcess broker = BrokerProcess.start(workDir)) {
            killAndRestart(database, broker.bootstrapServers(), "ours");
        }
    }

    @Test
    void killedMidStreamOnApacheKafkaItPublishesEveryOutcomeOnce(PostgresDatabase database, @TempDir Path workDir)
            throws Exception {
        try (ApacheKafkaProcess kafka = ApacheKafkaProcess.start(workDir)) {
            killAndRestart(database, kafka.bootstrapServers(), "apache-kafka");
        }
    }

    private void killAndRestart(PostgresDatabase database, String bootstrapServers, String name) throws Exception {
        CleanSchema.empty(database);
        try (Admin admin = admin(bootstrapServers)) {
            admin.createTopics(List.of(
                            new NewTopic("orders", PARTITIONS, (short) 1),
                            new NewTopic("inventory", PARTITIONS, (short) 1)))
                    .all()
                    .get(30, TimeUnit.SECONDS);
        }
        Map<String, String> expected = produceOrders(bootstrapServers);

        try (ServiceProcess first = start(database, bootstrapServers, name + "-1")) {
            await().atMost(WITHIN).until(() -> number(database, "SELECT count(*) FROM processed_events") >= 300);
            first.killNine();
        }
        long appliedBeforeTheKill = number(database, "SELECT count(*) FROM processed_events");
        double redelivered;
        try (ServiceProcess second = start(database, bootstrapServers, name + "-2")) {
            await().atMost(WITHIN)
                    .until(() -> number(database, "SELECT count(*) FROM processed_events") == ORDERS
                            && number(database, "SELECT count(*) FROM outbox") == 0
                            && committedOffsets(bootstrapServers).equals(endOffsets(bootstrapServers)));
            redelivered = PackagedService.duplicatesSkipped(second);
        }

        Map<String, List<EventEnvelope>> outcomes = readCommitted(bootstrapServers, expected.keySet());
        Map<String, String> published = new HashMap<>();
        int duplicated = 0;
        for (var entry : outcomes.entrySet()) {
            Set<UUID> eventIds = entry.getValue().stream()
                    .map(EventEnvelope::eventId)
                    .collect(Collectors.toCollection(LinkedHashSet::new));
            assertThat(eventIds)
                    .as("event ids of %s's outcomes", entry.getKey())
                    .hasSize(1);
            duplicated += entry.getValue().size() > 1 ? 1 : 0;
            published.put(entry.getKey(), entry.getValue().getFirst().eventType());
        }
        assertThat(published).isEqualTo(expected);
        assertThat(number(database, "SELECT sum(reserved) FROM stock WHERE sku = 'sku-1'"))
                .isEqualTo(expected.values().stream()
                        .filter("InventoryReserved"::equals)
                        .count());
        System.out.printf(
                "%s: %d orders, %d applied before the kill, %.0f of them delivered again after it (applied, offsets not"
                        + " committed: the kill fell between the two commits), %d outcomes published twice (same event"
                        + " id)%n",
                name, ORDERS, appliedBeforeTheKill, redelivered, duplicated);
    }

    private static ServiceProcess start(PostgresDatabase database, String bootstrapServers, String logName) {
        return PackagedService.builder(
                        "inventory-service", SERVICE_JAR, database, bootstrapServers, "inventory-" + logName)
                .property("orderflow.inventory-service.outcomes", "kafka-transactions")
                .property("orderflow.inventory-service.transactional-id", "inventory-service-0")
                .start();
    }

    /** Every order's expected outcome: every tenth for the sold-out SKU is rejected, the others reserved. */
    private static Map<String, String> produceOrders(String bootstrapServers) throws Exception {
        EventCodec codec = new EventCodec();
        Map<String, String> expected = new HashMap<>();
        try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(
                Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers, ProducerConfig.LINGER_MS_CONFIG, 5),
                new StringSerializer(),
                new ByteArraySerializer())) {
            List<Future<RecordMetadata>> sends = new ArrayList<>();
            for (int n = 0; n < ORDERS; n++) {
                String orderId = "order-" + n;
                boolean soldOut = n % 10 == 0;
                OrderCreated created = new OrderCreated(
                        orderId,
                        "customer-1",
                        "EUR",
                        List.of(new OrderLine(soldOut ? "sku-sold-out" : "sku-1", 1, BigDecimal.ONE)),
                        BigDecimal.ONE,
                        "web");
                byte[] value = codec.encode(codec.wrap(created, UUID.randomUUID(), Instant.now(), "test", null));
                sends.add(producer.send(new ProducerRecord<>("orders", orderId, value)));
                expected.put(orderId, soldOut ? "InventoryRejected" : "InventoryReserved");
            }
            for (Future<RecordMetadata> send : sends) {
                send.get(30, TimeUnit.SECONDS);
            }
        }
        return expected;
    }

    /** Every outcome on {@code inventory} a read_committed consumer reads to the end, by order, copies included. */
    private static Map<String, List<EventEnvelope>> readCommitted(String bootstrapServers, Set<String> orders) {
        EventCodec codec = new EventCodec(EventCatalog.inventoryEvents());
        Map<String, List<EventEnvelope>> byOrder = new HashMap<>();
        try (KafkaConsumer<String, byte[]> reader = KafkaClients.readCommittedConsumer(bootstrapServers)) {
            reader.subscribe(List.of("inventory"));
            await().atMost(WITHIN).until(() -> {
                reader.poll(Duration.ofMillis(200))
                        .forEach(record -> byOrder.computeIfAbsent(record.key(), key -> new ArrayList<>())
                                .add(codec.decode(record.value())));
                return byOrder.keySet().containsAll(orders)
                        && reader.assignment().size() == PARTITIONS
                        && reader.assignment().stream()
                                .allMatch(partition -> reader.position(partition)
                                        >= reader.endOffsets(Set.of(partition)).get(partition));
            });
        }
        return byOrder;
    }

    private static long number(PostgresDatabase database, String sql) throws SQLException {
        try (Connection connection = database.connect();
                Statement statement = connection.createStatement();
                ResultSet row = statement.executeQuery(sql)) {
            row.next();
            return row.getLong(1);
        }
    }

    private static Map<TopicPartition, Long> committedOffsets(String bootstrapServers) throws Exception {
        try (Admin admin = admin(bootstrapServers)) {
            return admin
                    .listConsumerGroupOffsets("inventory-service")
                    .partitionsToOffsetAndMetadata()
                    .get(30, TimeUnit.SECONDS)
                    .entrySet()
                    .stream()
                    .filter(entry -> entry.getKey().topic().equals("orders") && entry.getValue() != null)
                    .collect(Collectors.toMap(
                            Map.Entry::getKey, entry -> entry.getValue().offset()));
        }
    }

    private static Map<TopicPartition, Long> endOffsets(String bootstrapServers) throws Exception {
        try (Admin admin = admin(bootstrapServers)) {
            Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
            for (int partition = 0; partition < PARTITIONS; partition++) {
                latest.put(new TopicPartition("orders", partition), OffsetSpec.latest());
            }
            return admin.listOffsets(latest).all().get(30, TimeUnit.SECONDS).entrySet().stream()
                    .collect(Collectors.toMap(
                            Map.Entry::getKey, entry -> entry.getValue().offset()));
        }
    }

    private static Admin admin(String bootstrapServers) {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers));
    }
}
