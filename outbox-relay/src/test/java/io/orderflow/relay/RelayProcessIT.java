package io.orderflow.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.orderflow.postgres.PostgresDatabase;
import io.orderflow.relay.TopicReader.Published;
import io.orderflow.testing.InProcessBroker;
import io.orderflow.testing.PostgresTest;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The packaged relay as a process: killed with SIGKILL mid-batch, run twice at once, and watched over HTTP. */
@PostgresTest(service = "order-service")
class RelayProcessIT {

    private static final Duration WITHIN = Duration.ofSeconds(90);

    private PostgresDatabase database;
    private OutboxFixture outbox;
    private InProcessBroker broker;
    private final List<RelayProcess> relays = new ArrayList<>();
    private final Map<String, Long> versionOfEvent = new ConcurrentHashMap<>();

    @BeforeEach
    void setUp(PostgresDatabase database, @TempDir Path brokerDir) throws Exception {
        this.database = database;
        outbox = OutboxFixture.clean(database);
        broker = InProcessBroker.start(brokerDir);
        new RelayHarness(outbox, broker).createTopic(3);
    }

    @AfterEach
    void tearDown() throws Exception {
        for (RelayProcess relay : relays) {
            relay.close();
        }
        broker.close();
    }

    private RelayProcess startRelay(String name) {
        RelayProcess relay = RelayProcess.start(
                name,
                database,
                broker.bootstrapServers(),
                Map.of("orderflow.outbox-relay.batch-size", "200", "orderflow.outbox-relay.standby-retry", "200ms"));
        relays.add(relay);
        return relay;
    }

    @Test
    void aRelayKilledWithSigkillMidBatchLosesNothingAndKeepsEachOrdersOrderAfterRestart() throws Exception {
        int orders = 100;
        int versions = 100;
        writeVersions(orders, 1, versions);
        RelayProcess first = startRelay("kill-first");
        await().atMost(WITHIN).until(() -> outbox.count("published_at IS NOT NULL") >= 2_000);

        first.killNine();
        long publishedAtKill = outbox.count("published_at IS NOT NULL");
        assertThat(publishedAtKill).as("killed in the middle").isLessThan((long) orders * versions);

        startRelay("kill-second");
        await().atMost(WITHIN).until(() -> outbox.count("published_at IS NULL") == 0);

        try (TopicReader reader = new TopicReader(broker.bootstrapServers(), RelayHarness.TOPIC)) {
            assertEveryOrderComplete(reader.readToEnd(WITHIN), orders, versions);
        }
    }

    @Test
    void twoRelaysAtOnceAndTheLeaderKilledKeepEachOrdersEventsInOrder() throws Exception {
        int orders = 50;
        RelayProcess a = startRelay("pair-a");
        RelayProcess b = startRelay("pair-b");
        AtomicBoolean writing = new AtomicBoolean(true);
        List<Throwable> writerErrors = new ArrayList<>();
        Thread writer = Thread.ofPlatform().start(() -> {
            try {
                for (int version = 1; version <= 40; version++) {
                    writeVersions(orders, version, version);
                }
            } catch (Throwable e) {
                writerErrors.add(e);
            } finally {
                writing.set(false);
            }
        });
        await().atMost(WITHIN).until(() -> outbox.count("published_at IS NOT NULL") >= 200);
        RelayProcess leader = leaderOf(a, b);
        leader.killNine();
        writer.join();
        assertThat(writerErrors).isEmpty();
        await().atMost(WITHIN).until(() -> outbox.count("published_at IS NULL") == 0);

        try (TopicReader reader = new TopicReader(broker.bootstrapServers(), RelayHarness.TOPIC)) {
            assertEveryOrderComplete(reader.readToEnd(WITHIN), orders, 40);
        }
    }

    @Test
    void reportsReadinessAndMetricsAndIsNotReadyWhileTheBrokerIsDown() throws Exception {
        RelayProcess relay = startRelay("health");
        await().atMost(WITHIN).until(() -> relay.httpStatus("/q/health/ready") == 200);
        outbox.write("order-1", 1);
        await().atMost(WITHIN).until(() -> outbox.count("published_at IS NULL") == 0);
        try (Connection connection = outbox.connect()) {
            OutboxFixture.insertRaw(connection, UUID.randomUUID(), "order-bad", 1, "OrderCreated", "1.1", "oops");
        }
        await().atMost(WITHIN).until(() -> outbox.count("quarantined_at IS NOT NULL") == 1);

        await().atMost(WITHIN)
                .untilAsserted(() -> assertThat(relay.get("/q/metrics"))
                        .contains("outbox_relay_published_total 1.0")
                        .contains("outbox_relay_quarantined_total 1.0")
                        .contains("outbox_relay_quarantined_rows 1.0")
                        .contains("outbox_relay_backlog_rows 0.0")
                        .contains("outbox_relay_oldest_pending_age_seconds")
                        .contains("outbox_relay_commit_to_ack_seconds_count 1")
                        .contains("outbox_relay_leader 1.0")
                        .containsPattern("kafka_producer_request_total\\{client_id=\"outbox-relay\"[^}]*\\} [1-9]")
                        .containsPattern(
                                "kafka_producer_record_send_total\\{client_id=\"outbox-relay\"[^}]*\\} [1-9]"));

        broker.stop();
        await().atMost(WITHIN).until(() -> relay.httpStatus("/q/health/ready") == 503);
        assertThat(relay.get("/q/health/ready")).contains("unreachable");
        broker.start();
        await().atMost(WITHIN).until(() -> relay.httpStatus("/q/health/ready") == 200);
        // While the broker was away the relay reported it, without flooding its log (kafka-clients' admin client
        // re-bootstraps in a tight loop unless told not to).
        String log = relay.log();
        assertThat(log).doesNotContain("Rebootstrapping");
        assertThat(log.lines().count()).as("lines in the relay's log").isLessThan(200);
    }

    private RelayProcess leaderOf(RelayProcess a, RelayProcess b) throws Exception {
        return a.get("/q/metrics").contains("outbox_relay_leader 1.0") ? a : b;
    }

    /** Writes versions {@code from..to} of orders 0..n-1, one transaction per order, following the protocol. */
    private void writeVersions(int orders, int from, int to) throws Exception {
        try (Connection connection = outbox.connect()) {
            connection.setAutoCommit(false);
            for (int order = 0; order < orders; order++) {
                String orderId = "order-" + order;
                OutboxFixture.lockOrder(connection, orderId);
                for (int version = from; version <= to; version++) {
                    UUID id = outbox.insert(connection, orderId, version, OutboxFixture.eventAt(orderId, version));
                    versionOfEvent.put(id.toString(), (long) version);
                }
                connection.commit();
            }
        }
    }

    private void assertEveryOrderComplete(List<Published> records, int orders, int versions) {
        Map<String, List<Published>> byOrder = TopicReader.byKey(records);
        assertThat(byOrder).hasSize(orders);
        List<Long> expected = new ArrayList<>();
        for (long v = 1; v <= versions; v++) {
            expected.add(v);
        }
        Map<String, Integer> duplicates = new HashMap<>();
        byOrder.forEach((orderId, events) -> {
            List<String> ids = events.stream().map(Published::eventId).toList();
            LinkedHashSet<String> first = new LinkedHashSet<>(ids);
            duplicates.put(orderId, ids.size() - first.size());
            assertThat(first.stream().map(versionOfEvent::get).toList())
                    .as("first occurrences of %s's events, in log order", orderId)
                    .containsExactlyElementsOf(expected);
        });
        System.out.printf(
                "every order complete and in order; duplicates (same event id, from resends): %d%n",
                duplicates.values().stream().mapToInt(Integer::intValue).sum());
    }
}
