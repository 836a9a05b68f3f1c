package io.orderflow.compatibility;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.orderflow.inventory.OutcomeTransactions;
import io.orderflow.kafka.KafkaClientSettings;
import io.orderflow.postgres.PostgresDatabase;
import io.orderflow.relay.OutboxFixture;
import io.orderflow.testing.PostgresTest;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * inventory-service's Kafka-transaction publisher ({@code orderflow.inventory-service.outcomes=kafka-transactions},
 * {@link OutcomeTransactions}) against our broker and against Apache Kafka 4.4.0, with a real PostgreSQL: the crash
 * windows its design note names, made to happen. The outcomes are staged in the outbox table as the ledger's committed
 * database transaction leaves them; the consumer group is {@code inventory-service}'s, reading {@code orders}; what
 * counts is what a read_committed consumer of {@code inventory} sees, deduplicating nothing.
 */
@PostgresTest(service = "inventory-service")
class InventoryOutcomeTransactionsOnBothBrokersTest {

    private static final Duration WITHIN = Duration.ofSeconds(60);
    private static final String GROUP = "inventory-service";
    private static final int ORDERS = 30;

    @Test
    void aCrashBetweenTheDatabaseAndTheKafkaCommitOnOurBroker(PostgresDatabase database, @TempDir Path workDir)
            throws Exception {
        try (BrokerProcess broker = BrokerProcess.start(workDir)) {
            crashBetweenTheCommits(database, broker.bootstrapServers());
        }
    }

    @Test
    void aCrashBetweenTheDatabaseAndTheKafkaCommitOnApacheKafka(PostgresDatabase database, @TempDir Path workDir)
            throws Exception {
        try (ApacheKafkaProcess kafka = ApacheKafkaProcess.start(workDir)) {
            crashBetweenTheCommits(database, kafka.bootstrapServers());
        }
    }

    @Test
    void aCrashAfterTheKafkaCommitRepublishesWithTheSameEventIdsOnOurBroker(
            PostgresDatabase database, @TempDir Path workDir) throws Exception {
        try (BrokerProcess broker = BrokerProcess.start(workDir)) {
            crashAfterTheKafkaCommit(database, broker.bootstrapServers());
        }
    }

    @Test
    void aCrashAfterTheKafkaCommitRepublishesWithTheSameEventIdsOnApacheKafka(
            PostgresDatabase database, @TempDir Path workDir) throws Exception {
        try (ApacheKafkaProcess kafka = ApacheKafkaProcess.start(workDir)) {
            crashAfterTheKafkaCommit(database, kafka.bootstrapServers());
        }
    }

    /**
     * Dead after the database commit, in the middle of the Kafka transaction (outcomes and offsets sent, not
     * committed): a read_committed reader sees nothing of it; the restarted instance (same {@code transactional.id})
     * fences the dead one, is handed the batch again (no offsets were committed) and publishes every staged outcome
     * once, with the offsets; the zombie can publish nothing after that.
     */
    private void crashBetweenTheCommits(PostgresDatabase database, String bootstrapServers) throws Exception {
        OutboxFixture outbox = OutboxFixture.clean(database);
        KafkaClientSettings cluster = KafkaClientSettings.plaintext(bootstrapServers);
        createTopics(bootstrapServers);
        produceOrders(bootstrapServers);
        Set<String> staged = stage(outbox);

        OutcomeTransactions dead = new OutcomeTransactions(database.dataSource(), cluster, "inventory", "inventory-1");
        try (KafkaConsumer<String, byte[]> first = groupConsumer(bootstrapServers)) {
            List<ConsumerRecord<String, byte[]>> batch = pollAll(first);
            OutcomeTransactions.Pending pending = dead.begin(nextOffsets(batch), first.groupMetadata());
            pending.close(); // the process dies here: rows released, Kafka transaction left open, nothing committed
        }
        assertThat(committedOffsets(bootstrapServers)).isEmpty();

        OutcomeTransactions restarted =
                new OutcomeTransactions(database.dataSource(), cluster, "inventory", "inventory-1");
        try (KafkaConsumer<String, byte[]> second = groupConsumer(bootstrapServers)) {
            List<ConsumerRecord<String, byte[]>> redelivered = pollAll(second);
            assertThat(redelivered).hasSize(ORDERS);
            // The service finds these events in processed_events and stages nothing new; the publication sends the
            // rows the first attempt staged.
            assertThat(restarted.publish(nextOffsets(redelivered), second.groupMetadata()))
                    .isEqualTo(ORDERS);
        }

        List<String> published = readCommittedEventIds(bootstrapServers, ORDERS);
        assertThat(published).hasSize(ORDERS).doesNotHaveDuplicates();
        assertThat(new TreeSet<>(published)).isEqualTo(staged);
        assertThat(committedOffsets(bootstrapServers)).isEqualTo(endOffsets(bootstrapServers));
        assertThat(outbox.count("true")).isZero();

        // The zombie wakes up with one more staged outcome: fenced, it publishes nothing, and the row stays staged.
        UUID late = outbox.write("order-late", 1);
        assertThatThrownBy(() -> dead.publish(Map.of(), null))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("inventory-1");
        assertThat(outbox.count("true")).isEqualTo(1);
        assertThat(restarted.publish(Map.of(), null)).isEqualTo(1);
        List<String> all = readCommittedEventIds(bootstrapServers, ORDERS + 1);
        assertThat(all).hasSize(ORDERS + 1).doesNotHaveDuplicates().contains(late.toString());
        dead.close();
        restarted.close();
    }

    /**
     * Dead after the Kafka commit, before the delete of the published rows commits (the database went away there):
     * the outcomes and offsets are in Kafka, the rows still staged, and the next transaction publishes them again,
     * with the same event ids. The one window that duplicates.
     */
    private void crashAfterTheKafkaCommit(PostgresDatabase database, String bootstrapServers) throws Exception {
        OutboxFixture outbox = OutboxFixture.clean(database);
        KafkaClientSettings cluster = KafkaClientSettings.plaintext(bootstrapServers);
        createTopics(bootstrapServers);
        produceOrders(bootstrapServers);
        Set<String> staged = stage(outbox);

        OutcomeTransactions dying =
                new OutcomeTransactions(failingDeletes(database.dataSource()), cluster, "inventory", "inventory-1");
        try (KafkaConsumer<String, byte[]> consumer = groupConsumer(bootstrapServers)) {
            List<ConsumerRecord<String, byte[]>> batch = pollAll(consumer);
            assertThatThrownBy(() -> dying.publish(nextOffsets(batch), consumer.groupMetadata()))
                    .isInstanceOf(SQLException.class);
        }
        dying.close();
        assertThat(committedOffsets(bootstrapServers)).isEqualTo(endOffsets(bootstrapServers));
        assertThat(outbox.count("true")).isEqualTo(ORDERS);

        try (OutcomeTransactions restarted =
                new OutcomeTransactions(database.dataSource(), cluster, "inventory", "inventory-1")) {
            assertThat(restarted.publish(Map.of(), null)).isEqualTo(ORDERS);
        }
        List<String> published = readCommittedEventIds(bootstrapServers, 2 * ORDERS);
        assertThat(published).hasSize(2 * ORDERS);
        assertThat(new TreeSet<>(published)).isEqualTo(staged);
        assertThat(published.stream().collect(Collectors.groupingBy(id -> id, Collectors.counting())))
                .allSatisfy((id, copies) -> assertThat(copies).isEqualTo(2L));
        assertThat(outbox.count("true")).isZero();
    }

    /** One outcome per order staged, as the ledger's committed batch leaves them; their event ids. */
    private static Set<String> stage(OutboxFixture outbox) throws SQLException {
        Set<String> ids = new TreeSet<>();
        for (int i = 0; i < ORDERS; i++) {
            ids.add(outbox.write("order-" + i, 1).toString());
        }
        return ids;
    }

    private static void createTopics(String bootstrapServers) throws Exception {
        try (Admin admin = admin(bootstrapServers)) {
            admin.createTopics(List.of(new NewTopic("orders", 3, (short) 1), new NewTopic("inventory", 3, (short) 1)))
                    .all()
                    .get(30, TimeUnit.SECONDS);
        }
    }

    private static void produceOrders(String bootstrapServers) throws Exception {
        try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(
                Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers, ProducerConfig.ACKS_CONFIG, "all"),
                new StringSerializer(),
                new ByteArraySerializer())) {
            for (int i = 0; i < ORDERS; i++) {
                producer.send(new ProducerRecord<>(
                                "orders", "order-" + i, ("order " + i).getBytes(StandardCharsets.UTF_8)))
                        .get(30, TimeUnit.SECONDS);
            }
        }
    }

    private static KafkaConsumer<String, byte[]> groupConsumer(String bootstrapServers) {
        KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(
                Map.of(
                        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                        bootstrapServers,
                        ConsumerConfig.GROUP_ID_CONFIG,
                        GROUP,
                        ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
                        "earliest",
                        ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
                        false),
                new StringDeserializer(),
                new ByteArrayDeserializer());
        consumer.subscribe(List.of("orders"));
        return consumer;
    }

    /** Polls until every order's record is in. */
    private static List<ConsumerRecord<String, byte[]>> pollAll(KafkaConsumer<String, byte[]> consumer) {
        List<ConsumerRecord<String, byte[]>> records = new ArrayList<>();
        await().atMost(WITHIN).until(() -> {
            consumer.poll(Duration.ofMillis(200)).forEach(records::add);
            return records.size() >= ORDERS;
        });
        return records;
    }

    private static Map<TopicPartition, OffsetAndMetadata> nextOffsets(List<ConsumerRecord<String, byte[]>> records) {
        Map<TopicPartition, OffsetAndMetadata> next = new HashMap<>();
        for (ConsumerRecord<String, byte[]> record : records) {
            next.merge(
                    new TopicPartition(record.topic(), record.partition()),
                    new OffsetAndMetadata(record.offset() + 1),
                    (a, b) -> a.offset() >= b.offset() ? a : b);
        }
        return next;
    }

    /**
     * The event ids on {@code inventory} as a read_committed consumer sees them, once {@code expected} arrived and
     * the read reached the end: every copy, deduplicating nothing.
     */
    private static List<String> readCommittedEventIds(String bootstrapServers, int expected) {
        List<String> ids = new ArrayList<>();
        try (KafkaConsumer<String, byte[]> reader = KafkaClients.readCommittedConsumer(bootstrapServers)) {
            reader.subscribe(List.of("inventory"));
            await().atMost(WITHIN).until(() -> {
                reader.poll(Duration.ofMillis(200)).forEach(record -> ids.add(eventId(record)));
                return ids.size() >= expected
                        && reader.assignment().stream().allMatch(partition -> {
                            Long end = reader.endOffsets(Set.of(partition)).get(partition);
                            return reader.position(partition) >= end;
                        });
            });
        }
        return ids;
    }

    private static String eventId(ConsumerRecord<String, byte[]> record) {
        return new String(record.headers().lastHeader("eventId").value(), StandardCharsets.UTF_8);
    }

    private static Map<TopicPartition, Long> committedOffsets(String bootstrapServers) throws Exception {
        try (Admin admin = admin(bootstrapServers)) {
            return admin
                    .listConsumerGroupOffsets(GROUP)
                    .partitionsToOffsetAndMetadata()
                    .get(30, TimeUnit.SECONDS)
                    .entrySet()
                    .stream()
                    .filter(entry -> entry.getValue() != null)
                    .collect(Collectors.toMap(
                            Map.Entry::getKey, entry -> entry.getValue().offset()));
        }
    }

    private static Map<TopicPartition, Long> endOffsets(String bootstrapServers) throws Exception {
        try (Admin admin = admin(bootstrapServers)) {
            Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
            for (int partition = 0; partition < 3; partition++) {
                latest.put(new TopicPartition("orders", partition), OffsetSpec.latest());
            }
            Map<TopicPartition, Long> ends = new HashMap<>();
            admin.listOffsets(latest).all().get(30, TimeUnit.SECONDS).forEach((partition, info) -> {
                if (info.offset() > 0) {
                    ends.put(partition, info.offset());
                }
            });
            return ends;
        }
    }

    private static Admin admin(String bootstrapServers) {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers));
    }

    /** {@code database} whose connections refuse the publisher's DELETE: the database lost after the Kafka commit. */
    private static DataSource failingDeletes(DataSource database) {
        return (DataSource) Proxy.newProxyInstance(
                DataSource.class.getClassLoader(), new Class<?>[] {DataSource.class}, (proxy, method, args) -> {
                    Object result = invoke(method, database, args);
                    if (method.getName().equals("getConnection")) {
                        Connection connection = (Connection) result;
                        return Proxy.newProxyInstance(
                                Connection.class.getClassLoader(), new Class<?>[] {Connection.class}, (p, m, a) -> {
                                    if (m.getName().equals("prepareStatement")
                                            && ((String) a[0]).startsWith("DELETE")) {
                                        throw new SQLException("connection lost (test)", "08006");
                                    }
                                    return invoke(m, connection, a);
                                });
                    }
                    return result;
                });
    }

    private static Object invoke(java.lang.reflect.Method method, Object target, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }
}
