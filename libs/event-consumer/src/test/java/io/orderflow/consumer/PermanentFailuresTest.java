package io.orderflow.consumer;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.opentelemetry.api.OpenTelemetry;
import io.orderflow.contracts.EventCodec;
import io.orderflow.contracts.EventEnvelope;
import io.orderflow.contracts.order.OrderCancelled;
import io.orderflow.contracts.order.OrderCreated;
import io.orderflow.contracts.order.OrderEvent;
import io.orderflow.contracts.order.OrderLine;
import io.orderflow.kafka.KafkaClientSettings;
import io.orderflow.postgres.PostgresDatabase;
import io.orderflow.testing.CleanSchema;
import io.orderflow.testing.InProcessBroker;
import io.orderflow.testing.PostgresTest;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Failures that no retry can cure go to the dead-letter topic on their first attempt, with no record in any retry
 * topic; failures that may pass still go through the retries. Against a real PostgreSQL, whose own errors the handler
 * meets (a value too long for its column, a check constraint, a lock held by another transaction), and our broker.
 */
@PostgresTest(service = "event-consumer")
class PermanentFailuresTest {

    private static final RetryTopics TOPICS =
            RetryTopics.of("failure-kinds", List.of(Duration.ofMillis(100), Duration.ofMillis(200)));
    private static final List<OrderLine> LINES = List.of(new OrderLine("SKU-1", 1, new BigDecimal("9.95")));

    private final EventCodec codec = new EventCodec();
    private final AtomicInteger handled = new AtomicInteger();
    private final AtomicInteger connectionLossesLeft = new AtomicInteger();
    private PostgresDatabase database;
    private InProcessBroker broker;
    private KafkaProducer<String, byte[]> producer;
    private EventBatchProcessor processor;
    private long nextOffset;

    /**
     * Writes an order's customer into a column of ten characters, and counts a cancellation under a lock the test may
     * hold; a cancellation whose reason is "negative" breaks a check constraint, which the handler wraps.
     */
    private final EventHandler handler = new EventHandler() {
        @Override
        public boolean handles(String eventType) {
            return eventType.equals("OrderCreated") || eventType.equals("OrderCancelled");
        }

        @Override
        public void apply(Connection transaction, ConsumedEvent event) throws SQLException {
            handled.incrementAndGet();
            if (connectionLossesLeft.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                throw new IllegalStateException(
                        "lost it", new SQLException("An I/O error occurred while sending to the backend", "08006"));
            }
            switch (event.event()) {
                case OrderCreated created -> {
                    try (PreparedStatement insert = transaction.prepareStatement(
                            "INSERT INTO customers (order_id, customer_id) VALUES (?, ?)")) {
                        insert.setString(1, created.orderId());
                        insert.setString(2, created.customerId());
                        insert.executeUpdate();
                    }
                }
                case OrderCancelled cancelled -> {
                    try (Statement statement = transaction.createStatement()) {
                        statement.execute("SET LOCAL lock_timeout = '200ms'");
                        int delta = cancelled.reason().equals("negative") ? -1 : 1;
                        statement.executeUpdate("UPDATE cancellations SET count = count + " + delta);
                    } catch (SQLException e) {
                        if ("23514".equals(e.getSQLState())) {
                            throw new IllegalStateException("cannot count " + cancelled.orderId(), e);
                        }
                        throw e;
                    }
                }
                default -> throw new IllegalArgumentException(event.envelope().eventType());
            }
        }
    };

    @BeforeEach
    void setUp(PostgresDatabase database, @TempDir Path brokerDir) throws Exception {
        this.database = database;
        CleanSchema.migrate(database, "classpath:db/consumer");
        try (Connection connection = database.connect();
                Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE customers (order_id text PRIMARY KEY, customer_id varchar(10) NOT NULL)");
            statement.execute("CREATE TABLE cancellations (count integer NOT NULL CHECK (count >= 0))");
            statement.execute("INSERT INTO cancellations VALUES (0)");
        }
        broker = InProcessBroker.start(brokerDir);
        FailureTopicsOnBroker.create(broker.bootstrapServers(), TOPICS);
        producer = FailureRouting.newProducer(KafkaClientSettings.plaintext(broker.bootstrapServers()), "test");
        processor = new EventBatchProcessor(
                database.dataSource(),
                codec,
                handler,
                new FailureRouting(TOPICS, Clock.systemUTC()),
                producer,
                new ConsumerMetrics(new SimpleMeterRegistry(), "failure-kinds"),
                new RecordSpans(OpenTelemetry.noop(), "failure-kinds"),
                Clock.systemUTC());
    }

    @AfterEach
    void tearDown() {
        processor.close();
        producer.close();
        broker.close();
    }

    @Test
    void anOrderWhoseCustomerIdHoldsANulIsDeadLetteredOnItsFirstAttemptNamingTheField() throws Exception {
        ObjectNode document = (ObjectNode) new ObjectMapper().readTree(encoded(created("order-nul", "customer-7")));
        ((ObjectNode) document.get("payload")).put("customerId", "customer\u0000-7");
        ConsumerRecord<String, byte[]> poisoned =
                record("order-nul", document.toString().getBytes(UTF_8));

        BatchOutcome outcome = processor.process(List.of(poisoned, event(created("order-ok", "customer-8"))));

        assertThat(outcome.deadLettered()).isEqualTo(1);
        assertThat(outcome.retried()).isZero();
        assertThat(outcome.applied()).isEqualTo(1);
        assertThat(handled).as("the handler never saw the poisoned event").hasValue(1);
        assertThat(retryRecords()).isZero();
        ConsumerRecord<String, byte[]> dead = onlyDeadLetter();
        assertThat(dead.value()).isEqualTo(poisoned.value());
        assertThat(header(dead, FailureHeaders.DEAD_LETTER_REASON))
                .contains("OrderCreated.customerId must not contain control characters, found U+0000");
        assertThat(header(dead, FailureHeaders.DEAD_LETTER_EXCEPTION_CLASS_NAME))
                .isEqualTo("io.orderflow.contracts.MalformedEventException");
        assertThat(customers()).containsExactly("order-ok");
    }

    @Test
    void aValueTooLongForItsColumnIsDeadLetteredOnItsFirstAttemptWhileTheRestIsApplied() throws Exception {
        BatchOutcome outcome = processor.process(List.of(
                event(created("order-1", "customer-1")),
                event(created("order-long", "a-customer-id-of-thirty-letters")),
                event(created("order-2", "customer-2"))));

        assertThat(outcome.deadLettered()).isEqualTo(1);
        assertThat(outcome.retried()).isZero();
        assertThat(outcome.applied()).isEqualTo(2);
        assertThat(retryRecords()).isZero();
        ConsumerRecord<String, byte[]> dead = onlyDeadLetter();
        assertThat(dead.key()).isEqualTo("order-long");
        assertThat(header(dead, FailureHeaders.DEAD_LETTER_REASON)).contains("value too long");
        assertThat(customers()).containsExactly("order-1", "order-2");
    }

    @Test
    void aConstraintViolationTheHandlerWrapsIsDeadLetteredOnItsFirstAttempt() throws Exception {
        BatchOutcome outcome = processor.process(List.of(event(new OrderCancelled("order-3", "negative"))));

        assertThat(outcome.deadLettered()).isEqualTo(1);
        assertThat(outcome.retried()).isZero();
        assertThat(retryRecords()).isZero();
        ConsumerRecord<String, byte[]> dead = onlyDeadLetter();
        assertThat(header(dead, FailureHeaders.DEAD_LETTER_REASON)).isEqualTo("cannot count order-3");
        assertThat(header(dead, FailureHeaders.DEAD_LETTER_CAUSE_CLASS_NAME))
                .isEqualTo("org.postgresql.util.PSQLException");
        assertThat(header(dead, FailureHeaders.DEAD_LETTER_CAUSE)).contains("cancellations_count_check");
    }

    @Test
    void aLockTimeoutStillGoesThroughTheRetryTopicAndIsAppliedOnceTheLockIsReleased() throws Exception {
        ConsumerRecord<String, byte[]> retry;
        try (Connection other = database.connect()) {
            other.setAutoCommit(false);
            try (Statement lock = other.createStatement()) {
                lock.execute("SELECT * FROM cancellations FOR UPDATE");
            }

            BatchOutcome outcome = processor.process(List.of(event(new OrderCancelled("order-4", "changed mind"))));

            assertThat(outcome.retried()).isEqualTo(1);
            assertThat(outcome.deadLettered()).isZero();
            assertThat(deadLetters()).isZero();
            retry = readOne(TOPICS.retryTopic(0));
            assertThat(header(retry, FailureHeaders.RETRY_REASON)).contains("lock timeout");
            other.rollback();
        }

        BatchOutcome retried = processor.processWhenDue(List.of(retry));

        assertThat(retried.applied()).isEqualTo(1);
        assertThat(cancellations()).isEqualTo(1);
    }

    @Test
    void aLostConnectionTheHandlerWrapsMakesTheBatchWaitInsteadOfFailingTheRecord() throws Exception {
        connectionLossesLeft.set(2); // two attempts of the batch

        BatchOutcome outcome = processor.process(List.of(event(new OrderCancelled("order-5", "changed mind"))));

        assertThat(outcome.applied()).isEqualTo(1);
        assertThat(outcome.retried() + outcome.deadLettered()).isZero();
        assertThat(outcome.transactions()).isEqualTo(3);
        assertThat(retryRecords() + deadLetters()).isZero();
        assertThat(cancellations()).isEqualTo(1);
    }

    private static OrderCreated created(String orderId, String customerId) {
        return new OrderCreated(orderId, customerId, "EUR", LINES, new BigDecimal("9.95"), "web");
    }

    private byte[] encoded(OrderEvent event) {
        EventEnvelope envelope = codec.wrap(event, UUID.randomUUID(), Instant.now(), "test", null);
        return codec.encode(envelope);
    }

    private ConsumerRecord<String, byte[]> event(OrderEvent event) {
        return record(event.orderId(), encoded(event));
    }

    private ConsumerRecord<String, byte[]> record(String key, byte[] value) {
        return new ConsumerRecord<>("orders", 0, nextOffset++, key, value);
    }

    private List<String> customers() throws SQLException {
        List<String> orders = new ArrayList<>();
        try (Connection connection = database.connect();
                Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SELECT order_id FROM customers ORDER BY order_id")) {
            while (rows.next()) {
                orders.add(rows.getString(1));
            }
        }
        return orders;
    }

    private int cancellations() throws SQLException {
        try (Connection connection = database.connect();
                Statement statement = connection.createStatement();
                ResultSet row = statement.executeQuery("SELECT count FROM cancellations")) {
            row.next();
            return row.getInt(1);
        }
    }

    /** Records in every retry topic; final once {@link EventBatchProcessor#process} returned (it awaits the acks). */
    private long retryRecords() {
        return TOPICS.retryTopicNames().stream().mapToLong(this::endOffset).sum();
    }

    private long deadLetters() {
        return endOffset(TOPICS.deadLetterTopic());
    }

    private ConsumerRecord<String, byte[]> onlyDeadLetter() {
        assertThat(deadLetters()).isEqualTo(1);
        return readOne(TOPICS.deadLetterTopic());
    }

    private long endOffset(String topic) {
        try (KafkaConsumer<String, byte[]> consumer = consumer()) {
            TopicPartition partition = new TopicPartition(topic, 0);
            return consumer.endOffsets(List.of(partition)).get(partition);
        }
    }

    private ConsumerRecord<String, byte[]> readOne(String topic) {
        try (KafkaConsumer<String, byte[]> consumer = consumer()) {
            TopicPartition partition = new TopicPartition(topic, 0);
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (System.nanoTime() < deadline) {
                for (ConsumerRecord<String, byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                    return record;
                }
            }
            throw new AssertionError("no record in " + topic + " within 30 s");
        }
    }

    private KafkaConsumer<String, byte[]> consumer() {
        return new KafkaConsumer<>(
                Map.of(
                        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                        broker.bootstrapServers(),
                        ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
                        "earliest"),
                new StringDeserializer(),
                new ByteArrayDeserializer());
    }

    private static String header(ConsumerRecord<?, ?> record, String name) {
        var header = record.headers().lastHeader(name);
        return header == null ? null : new String(header.value(), UTF_8);
    }
}
