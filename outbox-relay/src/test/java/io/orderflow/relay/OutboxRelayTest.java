package io.orderflow.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import io.orderflow.contracts.MessagingAttributes;
import io.orderflow.kafka.KafkaClientSettings;
import io.orderflow.outbox.OutboxRow;
import io.orderflow.outbox.OutboxTable;
import io.orderflow.postgres.PostgresDatabase;
import io.orderflow.relay.TopicReader.Published;
import io.orderflow.testing.InProcessBroker;
import io.orderflow.testing.PostgresTest;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@PostgresTest(service = "order-service")
class OutboxRelayTest {

    private static final Duration WITHIN = Duration.ofSeconds(30);

    private OutboxFixture outbox;
    private InProcessBroker broker;
    private RelayHarness harness;
    private final List<OutboxRelay> relays = new ArrayList<>();

    @BeforeEach
    void setUp(PostgresDatabase database, @TempDir Path brokerDir) throws Exception {
        outbox = OutboxFixture.clean(database);
        broker = InProcessBroker.start(brokerDir);
        harness = new RelayHarness(outbox, broker);
    }

    @AfterEach
    void tearDown() throws InterruptedException {
        relays.forEach(OutboxRelay::close);
        // A relay still running would keep the leader lock from the next test's relay.
        for (Thread thread : RelayHarness.startedThreads()) {
            thread.join(Duration.ofSeconds(30));
        }
        broker.close();
    }

    private OutboxRelay relay(RelayConfig settings) {
        OutboxRelay relay = harness.relay(settings);
        relays.add(relay);
        return relay;
    }

    @Test
    void publishesEachRowKeyedByOrderWithTheEnvelopeAsValueAndItsIdsAsHeaders() throws Exception {
        harness.createTopic(3);
        UUID created = outbox.write("order-1", 1);
        UUID paid = outbox.write("order-1", 2);
        UUID other = outbox.write("order-2", 1);
        OutboxRelay relay = relay(RelayDefaults.settings());

        assertThat(relay.lead()).isTrue();
        CycleResult cycle = relay.cycle();

        assertThat(cycle.published()).isEqualTo(3);
        assertThat(outbox.count("published_at IS NOT NULL")).isEqualTo(3);
        try (TopicReader reader = new TopicReader(broker.bootstrapServers(), RelayHarness.TOPIC)) {
            List<Published> records = reader.readToEnd(WITHIN);
            Map<String, List<Published>> byOrder = TopicReader.byKey(records);
            assertThat(byOrder.get("order-1"))
                    .extracting(Published::eventId)
                    .containsExactly(created.toString(), paid.toString());
            assertThat(byOrder.get("order-2")).extracting(Published::eventId).containsExactly(other.toString());
            Published first = byOrder.get("order-1").get(0);
            assertThat(first.headers())
                    .containsEntry("eventType", "OrderCreated")
                    .containsEntry("eventVersion", "1.1")
                    .doesNotContainKey("traceparent");
            assertThat(first.value()).isEqualTo(payloadOf(created));
        }
    }

    @Test
    void eachRecordCarriesItsPublishSpanWhichContinuesTheTraceStoredWithTheRow() throws Exception {
        harness.createTopic(1);
        String trace = "4bf92f3577b34da6a3ce929d0e0e4736";
        String requestSpan = "00f067aa0ba902b7";
        UUID traced = outbox.write("order-1", 1);
        UUID untraced = outbox.write("order-2", 1);
        try (Connection connection = outbox.connect();
                PreparedStatement update =
                        connection.prepareStatement("UPDATE outbox SET traceparent = ? WHERE event_id = ?")) {
            update.setString(1, "00-" + trace + "-" + requestSpan + "-01");
            update.setObject(2, traced);
            assertThat(update.executeUpdate()).isEqualTo(1);
        }
        InMemorySpanExporter exported = InMemorySpanExporter.create();
        try (OpenTelemetrySdk openTelemetry = OpenTelemetrySdk.builder()
                .setTracerProvider(SdkTracerProvider.builder()
                        .addSpanProcessor(SimpleSpanProcessor.create(exported))
                        .build())
                .build()) {
            OutboxRelay relay = harness.relay(RelayDefaults.settings(), RelayHarness.metrics(), openTelemetry);
            relays.add(relay);
            assertThat(relay.lead()).isTrue();

            assertThat(relay.cycle().published()).isEqualTo(2);

            Map<String, SpanData> spans = exported.getFinishedSpanItems().stream()
                    .collect(java.util.stream.Collectors.toMap(
                            span -> span.getAttributes().get(MessagingAttributes.MESSAGE_ID), span -> span));
            SpanData publish = spans.get(traced.toString());
            assertThat(publish.getName()).isEqualTo("publish " + RelayHarness.TOPIC);
            assertThat(publish.getKind()).isEqualTo(SpanKind.PRODUCER);
            assertThat(publish.getTraceId()).isEqualTo(trace);
            assertThat(publish.getParentSpanId()).isEqualTo(requestSpan);
            assertThat(publish.getStatus().getStatusCode()).isEqualTo(StatusCode.UNSET);
            assertThat(publish.getAttributes().get(MessagingAttributes.KEY)).isEqualTo("order-1");
            SpanData fresh = spans.get(untraced.toString());
            assertThat(fresh.getParentSpanContext().isValid()).isFalse();
            try (TopicReader reader = new TopicReader(broker.bootstrapServers(), RelayHarness.TOPIC)) {
                Map<String, List<Published>> byOrder = TopicReader.byKey(reader.readToEnd(WITHIN));
                assertThat(byOrder.get("order-1").getFirst().headers())
                        .containsEntry("traceparent", "00-" + trace + "-" + publish.getSpanId() + "-01");
                assertThat(byOrder.get("order-2").getFirst().headers())
                        .containsEntry("traceparent", "00-" + fresh.getTraceId() + "-" + fresh.getSpanId() + "-01");
            }
        }
    }

    @Test
    void doesNotPublishPastATransactionThatMayStillCommit() throws Exception {
        harness.createTopic(1);
        OutboxRelay relay = relay(RelayDefaults.settings());
        assertThat(relay.lead()).isTrue();
        try (Connection early = outbox.connect()) {
            // The earlier transaction writes its row first (smaller id and tx_id) but has not committed yet ...
            early.setAutoCommit(false);
            OutboxFixture.lockOrder(early, "order-early");
            UUID earlyEvent = outbox.insert(early, "order-early", 1, OutboxFixture.eventAt("order-early", 1));
            // ... while a later transaction commits.
            UUID lateEvent = outbox.write("order-late", 1);

            CycleResult whileOpen = relay.cycle();

            assertThat(whileOpen.published()).isZero();
            assertThat(whileOpen.heldBehindHorizon()).isTrue();
            assertThat(outbox.count("published_at IS NULL")).isEqualTo(1);

            early.commit();
            CycleResult afterCommit = relay.cycle();

            assertThat(afterCommit.published()).isEqualTo(2);
            try (TopicReader reader = new TopicReader(broker.bootstrapServers(), RelayHarness.TOPIC)) {
                assertThat(reader.readToEnd(WITHIN))
                        .extracting(Published::eventId)
                        .containsExactly(earlyEvent.toString(), lateEvent.toString());
            }
        }
    }

    @Test
    void anOrdersEventsArriveInOrderWhileConcurrentWritersInterleaveOrders() throws Exception {
        harness.createTopic(3);
        OutboxRelay relay = relay(RelayDefaults.settings(Map.of("batch-size", "50")));
        RelayHarness.runInBackground(relay, "relay");
        int orders = 20;
        int versionsPerOrder = 10;
        Map<String, Long> versionOfEvent = new ConcurrentHashMap<>();
        ExecutorService writers = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int writer = 0; writer < 4; writer++) {
                done.add(writers.submit(() -> {
                    // Each writer advances every order it can: the next version of an order is written by
                    // whichever writer gets its lock first, as concurrent requests do in the order service.
                    for (int round = 0; round < orders * versionsPerOrder; round++) {
                        String orderId = "order-" + (round % orders);
                        try (Connection connection = outbox.connect()) {
                            connection.setAutoCommit(false);
                            OutboxFixture.lockOrder(connection, orderId);
                            long next = nextVersion(connection, orderId);
                            if (next <= versionsPerOrder) {
                                UUID id =
                                        outbox.insert(connection, orderId, next, OutboxFixture.eventAt(orderId, next));
                                versionOfEvent.put(id.toString(), next);
                            }
                            connection.commit();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> future : done) {
                future.get();
            }
        } finally {
            writers.shutdown();
        }

        await().atMost(WITHIN).until(() -> outbox.count("published_at IS NULL") == 0);
        try (TopicReader reader = new TopicReader(broker.bootstrapServers(), RelayHarness.TOPIC)) {
            List<Published> records = reader.readToEnd(WITHIN);
            Map<String, List<Published>> byOrder = TopicReader.byKey(records);
            assertThat(byOrder).hasSize(orders);
            byOrder.forEach((orderId, events) -> assertThat(firstOccurrences(events).stream()
                            .map(versionOfEvent::get)
                            .toList())
                    .as("versions of %s in log order", orderId)
                    .containsExactly(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L, 10L));
        }
        await().atMost(WITHIN).until(() -> outbox.count("published_at IS NULL") == 0);
    }

    @Test
    void quarantinesAnUnpublishableRowAndHoldsBackTheLaterEventsOfItsOrderOnly() throws Exception {
        harness.createTopic(1);
        UUID broken = UUID.randomUUID();
        UUID later;
        try (Connection connection = outbox.connect()) {
            OutboxFixture.insertRaw(connection, broken, "order-x", 1, "OrderCreated", "1.1", "{not json");
        }
        later = outbox.write("order-x", 2);
        UUID healthy = outbox.write("order-y", 1);
        RelayMetrics metrics = RelayHarness.metrics();
        OutboxRelay relay = harness.relay(RelayDefaults.settings(), metrics);
        relays.add(relay);
        assertThat(relay.lead()).isTrue();

        CycleResult cycle = relay.cycle();

        assertThat(cycle.published()).isEqualTo(1);
        assertThat(cycle.quarantined()).isEqualTo(2);
        assertThat(outbox.quarantineReason(broken)).startsWith("payload is not an event envelope");
        assertThat(outbox.quarantineReason(later)).contains("earlier event of order order-x is quarantined");
        assertThat(metrics.quarantinedTotal()).isEqualTo(2.0);
        // A later event of the quarantined order, in a later cycle, is held back too.
        UUID evenLater = outbox.write("order-x", 3);
        assertThat(relay.cycle().quarantined()).isEqualTo(1);
        assertThat(outbox.quarantineReason(evenLater)).contains("is quarantined");
        try (TopicReader reader = new TopicReader(broker.bootstrapServers(), RelayHarness.TOPIC)) {
            assertThat(reader.readToEnd(WITHIN)).extracting(Published::eventId).containsExactly(healthy.toString());
        }
    }

    @Test
    void quarantinesARecordLargerThanTheLimitAndAnEnvelopeThatContradictsItsRow() throws Exception {
        harness.createTopic(1);
        UUID tooLarge = outbox.write("order-big", 1);
        UUID mismatched = UUID.randomUUID();
        try (Connection connection = outbox.connect()) {
            String payloadOfAnother = payloadOf(outbox.write("order-src", 1));
            OutboxFixture.insertRaw(connection, mismatched, "order-other", 1, "OrderCreated", "1.1", payloadOfAnother);
        }
        OutboxRelay relay = relay(RelayDefaults.settings(Map.of("max-record-bytes", "300")));

        assertThat(relay.lead()).isTrue();
        relay.cycle();

        assertThat(outbox.quarantineReason(tooLarge)).contains("exceeds the relay's limit of 300 bytes");
        assertThat(outbox.quarantineReason(mismatched)).contains("differs from the row's");
    }

    @Test
    void aRowSentButNotMarkedBeforeACrashIsSentAgainWithTheSameEventIdAndNothingIsLost() throws Exception {
        harness.createTopic(1);
        List<UUID> written = new ArrayList<>();
        for (int version = 1; version <= 3; version++) {
            written.add(outbox.write("order-1", version));
        }
        // A relay that crashed after the broker acknowledged the first two rows and before it marked them.
        try (Connection connection = outbox.connect();
                OutboxPublisher crashed = new OutboxPublisher(
                        OutboxPublisher.newProducer(OutboxPublisher.producerConfig(
                                KafkaClientSettings.plaintext(broker.bootstrapServers()))),
                        new OutboxRecords(RelayHarness.TOPIC, 1_000_000),
                        new PublishSpans(OpenTelemetry.noop(), RelayHarness.TOPIC),
                        java.time.Clock.systemUTC())) {
            List<OutboxRow> firstTwo =
                    new OutboxTable(connection).pending(10).ready().subList(0, 2);
            assertThat(crashed.publish(firstTwo, () -> false)).allMatch(d -> d instanceof Delivery.Acknowledged);
        }

        OutboxRelay restarted = relay(RelayDefaults.settings());
        assertThat(restarted.lead()).isTrue();
        assertThat(restarted.cycle().published()).isEqualTo(3);

        try (TopicReader reader = new TopicReader(broker.bootstrapServers(), RelayHarness.TOPIC)) {
            List<String> ids =
                    reader.readToEnd(WITHIN).stream().map(Published::eventId).toList();
            assertThat(ids)
                    .containsExactly(
                            written.get(0).toString(),
                            written.get(1).toString(),
                            written.get(0).toString(),
                            written.get(1).toString(),
                            written.get(2).toString());
            assertThat(new LinkedHashSet<>(ids))
                    .containsExactlyElementsOf(
                            written.stream().map(UUID::toString).toList());
        }
    }

    @Test
    void aSecondInstanceStandsByAndTakesOverWhenTheLeaderStops() throws Exception {
        harness.createTopic(1);
        OutboxRelay first = relay(RelayDefaults.settings());
        OutboxRelay second = relay(RelayDefaults.settings());
        Thread firstThread = RelayHarness.runInBackground(first, "relay-1");
        await().atMost(WITHIN).until(() -> first.status().role() == RelayStatus.Role.LEADER);
        Thread secondThread = RelayHarness.runInBackground(second, "relay-2");
        await().atMost(WITHIN).until(() -> second.status().role() == RelayStatus.Role.STANDBY);

        UUID beforeFailover = outbox.write("order-1", 1);
        await().atMost(WITHIN).until(() -> outbox.count("published_at IS NULL") == 0);
        assertThat(second.status().role()).isEqualTo(RelayStatus.Role.STANDBY);

        first.close();
        firstThread.join(Duration.ofSeconds(10));
        await().atMost(WITHIN).until(() -> second.status().role() == RelayStatus.Role.LEADER);
        UUID afterFailover = outbox.write("order-1", 2);
        await().atMost(WITHIN).until(() -> outbox.count("published_at IS NULL") == 0);

        try (TopicReader reader = new TopicReader(broker.bootstrapServers(), RelayHarness.TOPIC)) {
            assertThat(reader.readToEnd(WITHIN))
                    .extracting(Published::eventId)
                    .containsExactly(beforeFailover.toString(), afterFailover.toString());
        }
        second.close();
        secondThread.join(Duration.ofSeconds(10));
    }

    @Test
    void aLeaderThatStopsHandsItsLockBackBeforeCloseReturns() throws Exception {
        harness.createTopic(1);
        OutboxRelay first = relay(RelayDefaults.settings());
        assertThat(first.lead()).isTrue();
        OutboxRelay second = relay(RelayDefaults.settings());
        assertThat(second.lead()).as("a standby while the first leads").isFalse();

        first.close();

        // No waiting: the lock is unlocked in the session before the session ends, not when its backend exits.
        assertThat(second.lead()).isTrue();
    }

    @Test
    void waitsWhileTheBrokerIsDownAndResumesByItselfWhenItReturns() throws Exception {
        harness.createTopic(1);
        RelayMetrics metrics = RelayHarness.metrics();
        OutboxRelay relay = harness.relay(RelayDefaults.settings(), metrics);
        relays.add(relay);
        RelayHarness.runInBackground(relay, "relay");
        outbox.write("order-1", 1);
        await().atMost(WITHIN).until(() -> outbox.count("published_at IS NULL") == 0);

        broker.stop();
        UUID whileDown = outbox.write("order-1", 2);
        await().atMost(WITHIN).until(() -> relay.status().brokerWaitingSince() != null);
        assertThat(outbox.count("published_at IS NULL")).isEqualTo(1);

        broker.start();
        await().atMost(Duration.ofSeconds(60)).until(() -> outbox.count("published_at IS NULL") == 0);
        assertThat(relay.status().brokerWaitingSince()).isNull();
        try (TopicReader reader = new TopicReader(broker.bootstrapServers(), RelayHarness.TOPIC)) {
            assertThat(reader.readToEnd(WITHIN)).extracting(Published::eventId).contains(whileDown.toString());
        }
        assertThat(metrics.publishedTotal()).isEqualTo(2.0);
    }

    @Test
    void aCommitWakesTheRelayWithoutWaitingForThePollInterval() throws Exception {
        harness.createTopic(1);
        OutboxRelay relay = relay(RelayDefaults.settings(Map.of("poll-interval", "10m")));
        RelayHarness.runInBackground(relay, "relay");
        await().atMost(WITHIN).until(() -> relay.status().role() == RelayStatus.Role.LEADER);
        // Let the relay finish its first look and block waiting for a notification (it has nothing to do).
        await().atMost(WITHIN).until(() -> relayThreadIsWaiting("relay"));

        outbox.write("order-1", 1);

        // Well within the ten-minute poll interval: only the NOTIFY of the commit can have woken it.
        await().atMost(Duration.ofSeconds(10)).until(() -> outbox.count("published_at IS NULL") == 0);
    }

    @Test
    void aRowWrittenWithoutANotificationIsStillFoundByPolling() throws Exception {
        harness.createTopic(1);
        try (Connection connection = outbox.connect();
                java.sql.Statement statement = connection.createStatement()) {
            statement.execute("ALTER TABLE outbox DISABLE TRIGGER outbox_notify");
        }
        OutboxRelay relay = relay(RelayDefaults.settings(Map.of("poll-interval", "200ms")));
        RelayHarness.runInBackground(relay, "relay");
        await().atMost(WITHIN).until(() -> relay.status().role() == RelayStatus.Role.LEADER);

        outbox.write("order-1", 1);

        await().atMost(WITHIN).until(() -> outbox.count("published_at IS NULL") == 0);
    }

    private static boolean relayThreadIsWaiting(String name) {
        return Thread.getAllStackTraces().entrySet().stream()
                .filter(entry -> entry.getKey().getName().equals(name))
                .anyMatch(entry -> java.util.Arrays.stream(entry.getValue())
                        .anyMatch(frame -> frame.getMethodName().equals("getNotifications")));
    }

    @Test
    void deletesPublishedRowsOnceTheyAreOlderThanTheRetention() throws Exception {
        harness.createTopic(1);
        outbox.write("order-1", 1);
        outbox.write("order-1", 2);
        try (Connection connection = outbox.connect()) {
            OutboxFixture.insertRaw(connection, UUID.randomUUID(), "order-bad", 1, "OrderCreated", "1.1", "[]");
        }
        OutboxRelay keepsEverything = relay(RelayDefaults.settings());
        assertThat(keepsEverything.lead()).isTrue();
        keepsEverything.step();
        assertThat(outbox.count("published_at IS NOT NULL")).isEqualTo(2);
        keepsEverything.close();
        relays.remove(keepsEverything);

        OutboxRelay purging = relay(RelayDefaults.settings(Map.of("retention", "0s")));
        purging.step();

        assertThat(outbox.count("true")).as("only the quarantined row is kept").isEqualTo(1);
        assertThat(outbox.count("quarantined_at IS NOT NULL")).isEqualTo(1);
    }

    private static List<String> firstOccurrences(List<Published> events) {
        return new ArrayList<>(
                new LinkedHashSet<>(events.stream().map(Published::eventId).toList()));
    }

    private long nextVersion(Connection connection, String orderId) throws Exception {
        try (PreparedStatement statement = connection.prepareStatement(
                "SELECT coalesce(max(aggregate_version), 0) + 1 FROM outbox WHERE aggregate_id = ?")) {
            statement.setString(1, orderId);
            try (ResultSet row = statement.executeQuery()) {
                row.next();
                return row.getLong(1);
            }
        }
    }

    private String payloadOf(UUID eventId) throws Exception {
        try (Connection connection = outbox.connect();
                PreparedStatement statement =
                        connection.prepareStatement("SELECT payload FROM outbox WHERE event_id = ?")) {
            statement.setObject(1, eventId);
            try (ResultSet row = statement.executeQuery()) {
                row.next();
                return row.getString(1);
            }
        }
    }
}
