package io.orderflow.consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.orderflow.contracts.EventCodec;
import io.orderflow.contracts.EventEnvelope;
import io.orderflow.contracts.EventHeaders;
import io.orderflow.contracts.EventVersion;
import io.orderflow.contracts.MessagingAttributes;
import io.orderflow.contracts.order.OrderCancelled;
import io.orderflow.contracts.order.OrderEvent;
import io.orderflow.contracts.order.OrderPaid;
import io.orderflow.kafka.KafkaClientSettings;
import io.orderflow.postgres.PostgresDatabase;
import io.orderflow.testing.CleanSchema;
import io.orderflow.testing.InProcessBroker;
import io.orderflow.testing.PostgresTest;
import java.io.PrintWriter;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The processor against a real PostgreSQL (the processed-events migration plus a table of effects) and our broker
 * (retry and dead-letter topics), with a handler that records one row per applied event and fails on command.
 */
@PostgresTest(service = "event-consumer")
class EventBatchProcessorTest {

    private static final String SOURCE = "orders";
    private static final RetryTopics TOPICS =
            RetryTopics.of("test-group", List.of(Duration.ofMillis(200), Duration.ofMillis(400)));

    private final EventCodec codec = new EventCodec();
    private final Map<String, Integer> failuresLeft = new HashMap<>();
    private PostgresDatabase database;
    private InProcessBroker broker;
    private KafkaProducer<String, byte[]> producer;
    private SimpleMeterRegistry registry;
    private ConsumerMetrics metrics;
    private final InMemorySpanExporter exportedSpans = InMemorySpanExporter.create();
    private OpenTelemetrySdk openTelemetry;
    private RecordSpans spans;
    private EventBatchProcessor processor;
    private long nextOffset;

    /** Inserts one effect row per applied event; fails for an order while {@link #failuresLeft} says so. */
    private final EventHandler recorder = new EventHandler() {
        @Override
        public boolean handles(String eventType) {
            return !eventType.equals("OrderPaid");
        }

        @Override
        public void apply(Connection transaction, ConsumedEvent event) throws SQLException {
            String order = event.envelope().orderId();
            int left = failuresLeft.getOrDefault(order, 0);
            if (left > 0) {
                failuresLeft.put(order, left - 1);
                throw new IllegalStateException("the handler is told to fail for " + order);
            }
            if (order.startsWith("rejected")) {
                throw new RejectedEventException("order " + order + " can never be applied");
            }
            try (PreparedStatement insert =
                    transaction.prepareStatement("INSERT INTO effects (event_id, order_id) VALUES (?, ?)")) {
                insert.setObject(1, event.envelope().eventId());
                insert.setString(2, order);
                insert.executeUpdate();
            }
        }
    };

    @BeforeEach
    void setUp(PostgresDatabase database, @TempDir Path brokerDir) throws Exception {
        this.database = database;
        CleanSchema.migrate(database, "classpath:db/consumer");
        try (Connection connection = database.connect();
                Statement statement = connection.createStatement()) {
            statement.execute("CREATE TABLE effects (event_id uuid NOT NULL, order_id text NOT NULL)");
        }
        broker = InProcessBroker.start(brokerDir);
        FailureTopicsOnBroker.create(broker.bootstrapServers(), TOPICS);
        producer = FailureRouting.newProducer(KafkaClientSettings.plaintext(broker.bootstrapServers()), "test");
        registry = new SimpleMeterRegistry();
        metrics = new ConsumerMetrics(registry, "test-group");
        openTelemetry = OpenTelemetrySdk.builder()
                .setTracerProvider(SdkTracerProvider.builder()
                        .addSpanProcessor(SimpleSpanProcessor.create(exportedSpans))
                        .build())
                .build();
        spans = new RecordSpans(openTelemetry, "test-group");
        processor = processor(database.dataSource());
    }

    private EventBatchProcessor processor(DataSource dataSource) {
        return new EventBatchProcessor(
                dataSource,
                codec,
                recorder,
                new FailureRouting(TOPICS, Clock.systemUTC()),
                producer,
                metrics,
                spans,
                Clock.systemUTC());
    }

    @AfterEach
    void tearDown() {
        processor.close();
        producer.close();
        broker.close();
        openTelemetry.close();
    }

    private ConsumerRecord<String, byte[]> record(String orderId, byte[] value) {
        return new ConsumerRecord<>(SOURCE, 0, nextOffset++, orderId, value);
    }

    private ConsumerRecord<String, byte[]> tracedEvent(OrderEvent event, String traceparent) {
        ConsumerRecord<String, byte[]> record = event(event);
        record.headers().add(EventHeaders.TRACEPARENT, traceparent.getBytes(StandardCharsets.UTF_8));
        return record;
    }

    private ConsumerRecord<String, byte[]> event(OrderEvent event) {
        EventEnvelope envelope = codec.wrap(event, UUID.randomUUID(), Instant.now(), "test", null);
        return record(event.orderId(), codec.encode(envelope));
    }

    private static OrderCancelled cancelled(String orderId) {
        return new OrderCancelled(orderId, "test");
    }

    private List<String> effects() throws SQLException {
        List<String> orders = new ArrayList<>();
        try (Connection connection = database.connect();
                Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SELECT order_id FROM effects ORDER BY order_id")) {
            while (rows.next()) {
                orders.add(rows.getString(1));
            }
        }
        return orders;
    }

    private List<ConsumerRecord<String, byte[]>> readAll(String topic, int expected) {
        try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(
                Map.of(
                        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                        broker.bootstrapServers(),
                        ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
                        "earliest"),
                new StringDeserializer(),
                new ByteArrayDeserializer())) {
            TopicPartition partition = new TopicPartition(topic, 0);
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            List<ConsumerRecord<String, byte[]>> read = new ArrayList<>();
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (read.size() < expected && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(200)).forEach(read::add);
            }
            return read;
        }
    }

    private static String header(ConsumerRecord<?, ?> record, String name) {
        var header = record.headers().lastHeader(name);
        return header == null ? null : new String(header.value(), StandardCharsets.UTF_8);
    }

    @Test
    void appliesEachEventOnceAcrossADuplicateInTheBatchAndARedeliveredBatch() throws Exception {
        ConsumerRecord<String, byte[]> first = event(cancelled("order-1"));
        ConsumerRecord<String, byte[]> second = event(cancelled("order-2"));
        ConsumerRecord<String, byte[]> again = record("order-1", first.value());

        BatchOutcome outcome = processor.process(List.of(first, second, again));
        BatchOutcome redelivered = processor.process(List.of(first, second));

        assertThat(effects()).containsExactly("order-1", "order-2");
        assertThat(outcome.applied()).isEqualTo(2);
        assertThat(outcome.duplicates()).isEqualTo(1);
        assertThat(redelivered.applied()).isZero();
        assertThat(redelivered.duplicates()).isEqualTo(2);
        assertThat(metrics.duplicates()).isEqualTo(3);
    }

    @Test
    void theHandlersLocksAreTakenBeforeTheClaimGivesTheTransactionItsId() throws Exception {
        List<String> seenByLockFirst = new ArrayList<>();
        EventHandler locking = new EventHandler() {
            @Override
            public boolean handles(String eventType) {
                return true;
            }

            @Override
            public void lockFirst(Connection transaction, List<ConsumedEvent> events) throws SQLException {
                try (Statement statement = transaction.createStatement();
                        ResultSet row = statement.executeQuery("SELECT pg_current_xact_id_if_assigned()")) {
                    row.next();
                    seenByLockFirst.add(events.size() + " events, xid " + row.getString(1));
                }
            }

            @Override
            public void apply(Connection transaction, ConsumedEvent event) throws Exception {
                recorder.apply(transaction, event);
            }
        };
        ConsumerRecord<String, byte[]> first = event(cancelled("order-1"));
        try (EventBatchProcessor locked = new EventBatchProcessor(
                database.dataSource(),
                codec,
                locking,
                new FailureRouting(TOPICS, Clock.systemUTC()),
                producer,
                metrics,
                spans,
                Clock.systemUTC())) {
            locked.process(List.of(first, event(cancelled("order-2"))));
            locked.process(List.of(first));
        }

        assertThat(seenByLockFirst)
                .as("called with the batch's events, new or redelivered, before any write")
                .containsExactly("2 events, xid null", "1 events, xid null");
        assertThat(effects()).containsExactly("order-1", "order-2");
    }

    @Test
    void aRehearsalRunsTheHandlerOverEveryEventItHandlesAndKeepsNothing() throws Exception {
        List<ConsumerRecord<String, byte[]>> round = new RehearsalEvents(Clock.systemUTC()).round(0);

        int applied = processor.rehearse(round);

        assertThat(round).hasSize(5);
        assertThat(applied)
                .as("every event but OrderPaid, which the recorder does not handle")
                .isEqualTo(4);
        assertThat(effects()).isEmpty();
        try (Connection connection = database.connect();
                Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SELECT count(*) FROM processed_events")) {
            rows.next();
            assertThat(rows.getLong(1)).as("claimed ids").isZero();
        }
        assertThat(metrics.applied()).isZero();
        assertThat(registry.get("orderflow.consumer.batch.records").summary().count())
                .isZero();
    }

    @Test
    void aRehearsalThatFailsRollsBackAndSaysSo() {
        List<ConsumerRecord<String, byte[]>> round = new RehearsalEvents(Clock.systemUTC()).round(1);
        String order = round.getFirst().key();
        failuresLeft.put(order, 1);

        assertThatThrownBy(() -> processor.rehearse(round)).hasMessageContaining("told to fail for " + order);
        assertThat(failuresLeft).containsEntry(order, 0);
    }

    @Test
    void theMetersCountEveryOutcomeTheBatchSizeAndTheLatencyFromEventTime() throws Exception {
        EventEnvelope old = codec.wrap(
                cancelled("order-1"), UUID.randomUUID(), Instant.now().minusSeconds(2), "test", null);
        ConsumerRecord<String, byte[]> applied = record("order-1", codec.encode(old));
        ConsumerRecord<String, byte[]> duplicate = record("order-1", applied.value());
        ConsumerRecord<String, byte[]> poison = record("order-x", "{not json".getBytes(StandardCharsets.UTF_8));
        ConsumerRecord<String, byte[]> ignored = event(new OrderPaid("order-1", BigDecimal.ONE, "EUR", "pay-1"));

        processor.process(List.of(applied, duplicate, poison, ignored));

        for (String outcome : List.of("applied", "duplicate", "dead_lettered", "ignored")) {
            assertThat(registry.get("orderflow.consumer.events")
                            .tag("group", "test-group")
                            .tag("outcome", outcome)
                            .counter()
                            .count())
                    .as(outcome)
                    .isEqualTo(1);
        }
        DistributionSummary batches = registry.get("orderflow.consumer.batch.records")
                .tag("group", "test-group")
                .summary();
        assertThat(batches.count()).isEqualTo(1);
        assertThat(batches.totalAmount()).isEqualTo(4);
        Timer batchDuration = registry.get("orderflow.consumer.batch.duration")
                .tag("group", "test-group")
                .timer();
        assertThat(batchDuration.count()).isEqualTo(1);
        assertThat(batchDuration.totalTime(TimeUnit.NANOSECONDS))
                .as("the batch's transaction against a real database takes time")
                .isPositive();
        Timer latency = registry.get("orderflow.consumer.latency")
                .tag("group", "test-group")
                .timer();
        assertThat(latency.count()).isEqualTo(1);
        assertThat(latency.max(TimeUnit.MILLISECONDS)).isGreaterThanOrEqualTo(2_000);
    }

    @Test
    void aPoisonRecordGoesStraightToTheDeadLetterTopicWithItsOriginAndTheRestIsApplied() throws Exception {
        ConsumerRecord<String, byte[]> poison = record("order-x", "{not json".getBytes(StandardCharsets.UTF_8));
        ConsumerRecord<String, byte[]> good = event(cancelled("order-1"));

        BatchOutcome outcome = processor.process(List.of(poison, good));

        assertThat(outcome.deadLettered()).isEqualTo(1);
        assertThat(effects()).containsExactly("order-1");
        ConsumerRecord<String, byte[]> dead =
                readAll(TOPICS.deadLetterTopic(), 1).getFirst();
        assertThat(dead.key()).isEqualTo("order-x");
        assertThat(dead.value()).isEqualTo(poison.value());
        assertThat(header(dead, FailureHeaders.DEAD_LETTER_REASON)).contains("not valid JSON");
        assertThat(header(dead, FailureHeaders.DEAD_LETTER_EXCEPTION_CLASS_NAME))
                .isEqualTo("io.orderflow.contracts.MalformedEventException");
        assertThat(header(dead, FailureHeaders.DEAD_LETTER_TOPIC)).isEqualTo(SOURCE);
        assertThat(header(dead, FailureHeaders.DEAD_LETTER_PARTITION)).isEqualTo("0");
        assertThat(header(dead, FailureHeaders.DEAD_LETTER_OFFSET)).isEqualTo(Long.toString(poison.offset()));
    }

    @Test
    void anUnknownMajorVersionIsDeadLetteredNamingItAndAnUnknownTypeIsSkipped() throws Exception {
        EventEnvelope v1 = codec.wrap(cancelled("order-2"), UUID.randomUUID(), Instant.now(), "test", null);
        EventEnvelope v2 = new EventEnvelope(
                v1.eventId(),
                v1.eventType(),
                EventVersion.parse("2.0"),
                v1.occurredAt(),
                v1.producer(),
                v1.orderId(),
                null,
                v1.payload());
        EventEnvelope unknown = new EventEnvelope(
                UUID.randomUUID(),
                "OrderRefunded",
                EventVersion.V1_0,
                v1.occurredAt(),
                v1.producer(),
                "order-3",
                null,
                v1.payload());

        BatchOutcome outcome = processor.process(
                List.of(record("order-2", codec.encode(v2)), record("order-3", codec.encode(unknown))));

        assertThat(outcome.deadLettered()).isEqualTo(1);
        assertThat(outcome.ignored()).isEqualTo(1);
        assertThat(header(readAll(TOPICS.deadLetterTopic(), 1).getFirst(), FailureHeaders.DEAD_LETTER_REASON))
                .contains("2.0");
        assertThat(effects()).isEmpty();
    }

    @Test
    void aBatchThatFailsTogetherRunsOneEventAtATimeAndAFailureGoneByThenIsAppliedWithoutARetry() throws Exception {
        failuresLeft.put("order-flaky", 1);

        BatchOutcome outcome = processor.process(
                List.of(event(cancelled("order-1")), event(cancelled("order-flaky")), event(cancelled("order-2"))));

        assertThat(outcome.transactions()).isEqualTo(2);
        assertThat(outcome.applied()).isEqualTo(3);
        assertThat(outcome.retried()).isZero();
        assertThat(effects()).containsExactly("order-1", "order-2", "order-flaky");
    }

    @Test
    void aTransientFailureGoesToTheRetryTopicAndSucceedsWhenDueWhileTheRestOfTheBatchIsApplied() throws Exception {
        failuresLeft.put("order-flaky", 2); // the batch together, then the event alone
        ConsumerRecord<String, byte[]> flaky = event(cancelled("order-flaky"));

        BatchOutcome outcome =
                processor.process(List.of(event(cancelled("order-1")), flaky, event(cancelled("order-2"))));

        assertThat(outcome.retried()).isEqualTo(1);
        assertThat(outcome.transactions()).isEqualTo(3);
        assertThat(effects()).containsExactly("order-1", "order-2");
        String firstRetryTopic = TOPICS.retryTopic(0);
        assertThat(firstRetryTopic).isEqualTo("test-group_retry_200");
        ConsumerRecord<String, byte[]> retry = readAll(firstRetryTopic, 1).getFirst();
        assertThat(header(retry, FailureHeaders.RETRY_COUNT)).isEqualTo("0");
        assertThat(header(retry, FailureHeaders.RETRY_REASON)).contains("told to fail");
        assertThat(header(retry, FailureHeaders.RETRY_TOPIC)).isEqualTo(SOURCE);
        assertThat(header(retry, FailureHeaders.RETRY_OFFSET)).isEqualTo(Long.toString(flaky.offset()));
        assertThat(header(retry, FailureHeaders.RETRY_FIRST_PROCESSING_TIMESTAMP))
                .isNotNull();

        BatchOutcome retried = processor.processWhenDue(List.of(retry));

        assertThat(System.currentTimeMillis()).isGreaterThanOrEqualTo(retry.timestamp() + 200);
        assertThat(retried.applied()).isEqualTo(1);
        assertThat(effects()).containsExactly("order-1", "order-2", "order-flaky");
    }

    @Test
    void aRecordThatFailsEveryRetryEndsInTheDeadLetterTopicWithItsOriginAndAttempts() throws Exception {
        failuresLeft.put("order-broken", 10);
        ConsumerRecord<String, byte[]> original = event(cancelled("order-broken"));

        processor.process(List.of(original));
        ConsumerRecord<String, byte[]> firstRetry =
                readAll(TOPICS.retryTopic(0), 1).getFirst();
        processor.processWhenDue(List.of(firstRetry));
        ConsumerRecord<String, byte[]> secondRetry =
                readAll(TOPICS.retryTopic(1), 1).getFirst();
        BatchOutcome last = processor.processWhenDue(List.of(secondRetry));

        assertThat(header(secondRetry, FailureHeaders.RETRY_COUNT)).isEqualTo("1");
        assertThat(last.deadLettered()).isEqualTo(1);
        ConsumerRecord<String, byte[]> dead =
                readAll(TOPICS.deadLetterTopic(), 1).getFirst();
        assertThat(header(dead, FailureHeaders.DEAD_LETTER_TOPIC)).isEqualTo(SOURCE);
        assertThat(header(dead, FailureHeaders.DEAD_LETTER_OFFSET)).isEqualTo(Long.toString(original.offset()));
        assertThat(header(dead, FailureHeaders.RETRY_COUNT)).isEqualTo("1");
        assertThat(header(dead, FailureHeaders.DEAD_LETTER_REASON)).contains("told to fail");
        assertThat(effects()).isEmpty();
        // The original attempt and two retries, each failing together and then alone.
        assertThat(failuresLeft.get("order-broken")).isEqualTo(4);
    }

    @Test
    void aDeadLetterReDrivenAfterTheFixIsAppliedOnceAndASecondReDriveCopiesNothing() throws Exception {
        failuresLeft.put("order-fixed", 10);
        processor.process(List.of(event(cancelled("order-fixed"))));
        processor.processWhenDue(List.of(readAll(TOPICS.retryTopic(0), 1).getFirst()));
        processor.processWhenDue(List.of(readAll(TOPICS.retryTopic(1), 1).getFirst()));
        assertThat(readAll(TOPICS.deadLetterTopic(), 1)).hasSize(1);
        failuresLeft.put("order-fixed", 0); // the fix

        int copied = DeadLetterRedrive.redrive(
                        KafkaClientSettings.plaintext(broker.bootstrapServers()), TOPICS, false, Duration.ofSeconds(30))
                .copied();
        List<ConsumerRecord<String, byte[]>> retries = readAll(TOPICS.retryTopic(0), 2);
        ConsumerRecord<String, byte[]> redriven = retries.getLast();
        BatchOutcome outcome = processor.processWhenDue(List.of(redriven));
        int again = DeadLetterRedrive.redrive(
                        KafkaClientSettings.plaintext(broker.bootstrapServers()), TOPICS, false, Duration.ofSeconds(30))
                .copied();

        assertThat(copied).isEqualTo(1);
        assertThat(retries).hasSize(2);
        assertThat(header(redriven, FailureHeaders.RETRY_COUNT)).isNull();
        assertThat(header(redriven, FailureHeaders.DEAD_LETTER_REASON)).isNull();
        assertThat(header(redriven, FailureHeaders.REDRIVE_COUNT)).isEqualTo("1");
        assertThat(outcome.applied()).isEqualTo(1);
        assertThat(effects()).containsExactly("order-fixed");
        assertThat(again).isZero();
    }

    @Test
    void aRetryRecordWithAnUnreadableCountIsDeadLetteredAndOneStampedInTheFutureWaitsOnlyItsDelay() throws Exception {
        failuresLeft.put("order-odd", 10);
        RecordHeaders garbled = new RecordHeaders();
        garbled.add(FailureHeaders.RETRY_COUNT, "many".getBytes(StandardCharsets.UTF_8));
        ConsumerRecord<String, byte[]> tampered = new ConsumerRecord<>(
                TOPICS.retryTopic(0),
                0,
                0,
                System.currentTimeMillis() + Duration.ofHours(1).toMillis(),
                TimestampType.CREATE_TIME,
                0,
                0,
                "order-odd",
                event(cancelled("order-odd")).value(),
                garbled,
                Optional.empty());

        long started = System.nanoTime();
        BatchOutcome outcome = processor.processWhenDue(List.of(tampered));

        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(10));
        assertThat(outcome.deadLettered()).isEqualTo(1);
        assertThat(header(readAll(TOPICS.deadLetterTopic(), 1).getFirst(), FailureHeaders.DEAD_LETTER_REASON))
                .contains("told to fail");
    }

    @Test
    void eachRecordIsProcessedInASpanOfItsTraceAndItsRetryAndDeadLetterHopsContinueThatTrace() throws Exception {
        String trace = "4bf92f3577b34da6a3ce929d0e0e4736";
        String relaySpan = "00f067aa0ba902b7";
        failuresLeft.put("order-broken", 10);
        ConsumerRecord<String, byte[]> broken =
                tracedEvent(cancelled("order-broken"), "00-" + trace + "-" + relaySpan + "-01");
        ConsumerRecord<String, byte[]> fine = event(cancelled("order-fine"));

        processor.process(List.of(broken, fine));

        SpanData processed = onlySpan("process " + SOURCE, "order-broken");
        assertThat(processed.getKind()).isEqualTo(SpanKind.CONSUMER);
        assertThat(processed.getTraceId()).isEqualTo(trace);
        assertThat(processed.getParentSpanId()).isEqualTo(relaySpan);
        assertThat(processed.getStatus().getStatusCode()).isEqualTo(StatusCode.ERROR);
        assertThat(processed.getAttributes().get(MessagingAttributes.GROUP)).isEqualTo("test-group");
        assertThat(processed.getAttributes().get(MessagingAttributes.OFFSET)).isEqualTo(broken.offset());
        assertThat(processed.getAttributes().get(MessagingAttributes.MESSAGE_ID))
                .isNull(); // no eventId header
        SpanData untraced = onlySpan("process " + SOURCE, "order-fine");
        assertThat(untraced.getTraceId())
                .as("a record without trace context starts a trace")
                .isNotEqualTo(trace);
        assertThat(untraced.getParentSpanContext().isValid()).isFalse();
        assertThat(untraced.getStatus().getStatusCode()).isEqualTo(StatusCode.UNSET);
        SpanData hop = onlySpan("publish " + TOPICS.retryTopic(0), null);
        assertThat(hop.getKind()).isEqualTo(SpanKind.PRODUCER);
        assertThat(hop.getParentSpanId()).isEqualTo(processed.getSpanId());
        ConsumerRecord<String, byte[]> retry = readAll(TOPICS.retryTopic(0), 1).getFirst();
        assertThat(header(retry, EventHeaders.TRACEPARENT)).isEqualTo("00-" + trace + "-" + hop.getSpanId() + "-01");

        exportedSpans.reset();
        processor.processWhenDue(List.of(retry));
        ConsumerRecord<String, byte[]> secondRetry =
                readAll(TOPICS.retryTopic(1), 1).getFirst();
        processor.processWhenDue(List.of(secondRetry));

        SpanData retried = onlySpan("process " + TOPICS.retryTopic(0), "order-broken");
        assertThat(retried.getParentSpanId()).isEqualTo(hop.getSpanId());
        SpanData lastHop = onlySpan("publish " + TOPICS.deadLetterTopic(), null);
        SpanData lastAttempt = onlySpan("process " + TOPICS.retryTopic(1), "order-broken");
        assertThat(lastHop.getParentSpanId()).isEqualTo(lastAttempt.getSpanId());
        assertThat(List.of(retried, lastAttempt, lastHop))
                .allMatch(span -> span.getTraceId().equals(trace));
        ConsumerRecord<String, byte[]> dead =
                readAll(TOPICS.deadLetterTopic(), 1).getFirst();
        assertThat(header(dead, EventHeaders.TRACEPARENT)).isEqualTo("00-" + trace + "-" + lastHop.getSpanId() + "-01");
    }

    /** The one finished span named {@code name} (and, if given, about the record keyed {@code key}). */
    private SpanData onlySpan(String name, String key) {
        List<SpanData> matching = exportedSpans.getFinishedSpanItems().stream()
                .filter(span -> span.getName().equals(name))
                .filter(span -> key == null || key.equals(span.getAttributes().get(MessagingAttributes.KEY)))
                .toList();
        assertThat(matching).as("spans named %s for %s", name, key).hasSize(1);
        return matching.getFirst();
    }

    @Test
    void aRejectedEventIsDeadLetteredWithoutRetries() throws Exception {
        BatchOutcome outcome = processor.process(List.of(event(cancelled("rejected-1"))));

        assertThat(outcome.deadLettered()).isEqualTo(1);
        assertThat(outcome.retried()).isZero();
        assertThat(header(readAll(TOPICS.deadLetterTopic(), 1).getFirst(), FailureHeaders.DEAD_LETTER_REASON))
                .contains("can never be applied");
    }

    @Test
    void whileTheDatabaseIsAwayTheBatchWaitsAndIsAppliedOnceItIsBackWithoutFailingAnyRecord() throws Exception {
        AtomicInteger refusals = new AtomicInteger(2);
        DataSource flaky = new RefusingDataSource(database.dataSource(), refusals);
        processor.close();
        processor = processor(flaky);

        BatchOutcome outcome = processor.process(List.of(event(cancelled("order-1"))));

        assertThat(refusals).hasValue(0);
        assertThat(outcome.applied()).isEqualTo(1);
        assertThat(outcome.retried() + outcome.deadLettered()).isZero();
        assertThat(outcome.transactions()).isEqualTo(3);
        assertThat(effects()).containsExactly("order-1");
    }

    /** Refuses connections (SQLSTATE 08001, as the driver does when the server is down) a given number of times. */
    private record RefusingDataSource(DataSource delegate, AtomicInteger refusals) implements DataSource {
        @Override
        public Connection getConnection() throws SQLException {
            if (refusals.getAndUpdate(n -> Math.max(0, n - 1)) > 0) {
                throw new SQLException("Connection to localhost refused", "08001");
            }
            return delegate.getConnection();
        }

        @Override
        public Connection getConnection(String user, String password) throws SQLException {
            return getConnection();
        }

        @Override
        public PrintWriter getLogWriter() {
            return null;
        }

        @Override
        public void setLogWriter(PrintWriter out) {}

        @Override
        public void setLoginTimeout(int seconds) {}

        @Override
        public int getLoginTimeout() {
            return 0;
        }

        @Override
        public Logger getParentLogger() throws SQLFeatureNotSupportedException {
            throw new SQLFeatureNotSupportedException();
        }

        @Override
        public <T> T unwrap(Class<T> type) throws SQLException {
            throw new SQLException("not a wrapper");
        }

        @Override
        public boolean isWrapperFor(Class<?> type) {
            return false;
        }
    }
}
