package io.orderflow.analytics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.orderflow.contracts.EventCodec;
import io.orderflow.contracts.order.OrderCancelled;
import io.orderflow.contracts.order.OrderConfirmed;
import io.orderflow.contracts.order.OrderCreated;
import io.orderflow.contracts.order.OrderEvent;
import io.orderflow.contracts.order.OrderLine;
import io.orderflow.contracts.order.OrderPaid;
import io.orderflow.contracts.order.OrderRejected;
import io.orderflow.contracts.order.OrderShipped;
import io.orderflow.postgres.PostgresDatabase;
import io.orderflow.process.ServiceProcess;
import io.orderflow.testing.CleanSchema;
import io.orderflow.testing.ConsumerGroupOffsets;
import io.orderflow.testing.InProcessBroker;
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
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.UUID;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged analytics-service counts the whole lifecycle of 1,000 orders (created; confirmed or rejected; the
 * confirmed ones paid, then shipped or cancelled), each event at a random time within 30 minutes and produced one
 * lifecycle step after another, so that many arrive after later events of their minute. Its windows, read through the
 * API, are exactly the oracle's: the same events counted per minute and type, and the same revenue per minute and
 * currency, summed here as the events were produced. It counts them while it rehearses its warm-up, and the exact counts
 * show that nothing of the rehearsal stays.
 *
 * <p>Then a replay rebuilds exactly the same windows: the tables are emptied, the group's offsets reset to the earliest
 * (as {@code kafka-consumer-groups --reset-offsets --to-earliest --execute} does) and the service started again; the
 * windows it rebuilds are the same, byte for byte.
 */
@PostgresTest(service = "analytics-service")
class AnalyticsReplayIT {

    private static final int ORDERS = 1_000;
    private static final int PARTITIONS = 3;
    private static final int WARM_UP_ROUNDS = 50;
    private static final Instant START = Instant.parse("2021-06-01T12:00:00Z");
    private static final Duration WITHIN = Duration.ofMinutes(2);
    private static final ObjectMapper JSON =
            new ObjectMapper().enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);

    /** Per minute, the events by type and the revenue by currency: the oracle's, or a {@code GET} answer's. */
    private record Windows(Map<Instant, Map<String, Long>> events, Map<Instant, Map<String, BigDecimal>> revenue) {

        Windows() {
            this(new TreeMap<>(), new TreeMap<>());
        }

        void count(OrderEvent event, String eventType, Instant occurredAt) {
            Instant minute = occurredAt.truncatedTo(ChronoUnit.MINUTES);
            events.computeIfAbsent(minute, m -> new TreeMap<>()).merge(eventType, 1L, Long::sum);
            if (event instanceof OrderPaid paid) {
                revenue.computeIfAbsent(minute, m -> new TreeMap<>())
                        .merge(
                                paid.currency(),
                                paid.amount().stripTrailingZeros(),
                                (a, b) -> a.add(b).stripTrailingZeros());
            }
        }

        long total() {
            return events.values().stream()
                    .flatMap(types -> types.values().stream())
                    .mapToLong(Long::longValue)
                    .sum();
        }

        /** The windows of a {@code GET /analytics/minutes} answer; amounts without trailing zeros, as the oracle's. */
        static Windows of(String answer) throws Exception {
            Windows windows = new Windows();
            for (JsonNode minute : JSON.readTree(answer)) {
                Instant at = Instant.parse(minute.get("minute").asText());
                for (var type : minute.get("events").properties()) {
                    windows.events
                            .computeIfAbsent(at, m -> new TreeMap<>())
                            .put(type.getKey(), type.getValue().asLong());
                }
                for (var currency : minute.get("revenue").properties()) {
                    windows.revenue
                            .computeIfAbsent(at, m -> new TreeMap<>())
                            .put(
                                    currency.getKey(),
                                    currency.getValue().decimalValue().stripTrailingZeros());
                }
            }
            return windows;
        }
    }

    private static ServiceProcess start(PostgresDatabase database, InProcessBroker broker, String name) {
        return start(database, broker, name, 0);
    }

    /** With {@code warmUpRounds} of the service's warm-up (event-consumer's ConsumerWarmUp) before it reports ready. */
    private static ServiceProcess start(
            PostgresDatabase database, InProcessBroker broker, String name, int warmUpRounds) {
        return PackagedService.builder("analytics-service", database, broker.bootstrapServers(), "analytics-" + name)
                .property("orderflow.consumer.warm-up.rounds", Integer.toString(warmUpRounds))
                .start();
    }

    /** The readiness check {@code warm-up}'s rounds completed, as {@code /q/health/ready} reports them. */
    private static int warmUpRoundsCompleted(ServiceProcess service) throws Exception {
        String health = service.get("/q/health/ready");
        for (JsonNode check : JSON.readTree(health).get("checks")) {
            if (check.get("name").asText().equals("warm-up")) {
                return check.get("data").get("completed").asInt();
            }
        }
        throw new AssertionError("no warm-up check in " + health);
    }

    private static long number(PostgresDatabase database, String sql) throws SQLException {
        try (Connection connection = database.connect();
                Statement statement = connection.createStatement();
                ResultSet row = statement.executeQuery(sql)) {
            row.next();
            return row.getLong(1);
        }
    }

    private static long processed(PostgresDatabase database) throws SQLException {
        return number(database, "SELECT count(*) FROM processed_events");
    }

    /**
     * Every order's lifecycle, one step of all orders after another: 1,000 created; each confirmed, or one in five
     * rejected; each confirmed one paid (in EUR or USD), then shipped or cancelled. Each event occurs at a random time
     * within 30 minutes, unrelated to when it is produced. Returns the oracle's windows.
     */
    private static Windows produce(InProcessBroker broker) throws Exception {
        Random random = new Random(20261202);
        EventCodec codec = new EventCodec();
        List<String> confirmed = new ArrayList<>();
        List<List<OrderEvent>> steps =
                List.of(new ArrayList<>(), new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
        for (int n = 0; n < ORDERS; n++) {
            String orderId = "order-" + n;
            steps.get(0)
                    .add(new OrderCreated(
                            orderId,
                            "c",
                            "EUR",
                            List.of(new OrderLine("sku-1", 1, BigDecimal.ONE)),
                            BigDecimal.ONE,
                            "web"));
            if (random.nextInt(5) == 0) {
                steps.get(1).add(new OrderRejected(orderId, "not enough stock", List.of("sku-1")));
            } else {
                steps.get(1).add(new OrderConfirmed(orderId));
                confirmed.add(orderId);
            }
        }
        for (String orderId : confirmed) {
            steps.get(2)
                    .add(new OrderPaid(
                            orderId,
                            new BigDecimal(random.nextInt(1, 10_000)).movePointLeft(2),
                            random.nextBoolean() ? "EUR" : "USD",
                            "p-" + orderId));
            steps.get(3)
                    .add(
                            random.nextBoolean()
                                    ? new OrderShipped(orderId, "carrier", "t-" + orderId)
                                    : new OrderCancelled(orderId, "changed"));
        }
        Windows expected = new Windows();
        try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(
                Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()),
                new StringSerializer(),
                new ByteArraySerializer())) {
            for (List<OrderEvent> step : steps) {
                for (OrderEvent event : step) {
                    Instant occurredAt = START.plusMillis(
                            random.nextLong(Duration.ofMinutes(30).toMillis()));
                    var envelope = codec.wrap(event, UUID.randomUUID(), occurredAt, "test", null);
                    producer.send(new ProducerRecord<>("orders", event.orderId(), codec.encode(envelope)));
                    expected.count(event, envelope.eventType(), occurredAt);
                }
            }
            producer.flush();
        }
        return expected;
    }

    private static String windows(ServiceProcess service) throws Exception {
        return service.get("/analytics/minutes?from=" + START + "&to=" + START.plus(Duration.ofHours(1)));
    }

    @Test
    void everyEventCountsOnceInItsMinuteAndAReplayIntoEmptyTablesRebuildsTheSameWindows(
            PostgresDatabase database, @TempDir Path brokerDir) throws Exception {
        CleanSchema.empty(database);
        try (InProcessBroker broker = InProcessBroker.start(brokerDir)) {
            broker.createTopic("orders", PARTITIONS);
            Windows expected = produce(broker);
            assertThat(expected.events().values().stream().flatMap(types -> types.keySet().stream()))
                    .as("the oracle's event types")
                    .contains(
                            "OrderCreated",
                            "OrderConfirmed",
                            "OrderRejected",
                            "OrderPaid",
                            "OrderShipped",
                            "OrderCancelled");

            String before;
            try (ServiceProcess first = start(database, broker, "first", WARM_UP_ROUNDS)) {
                assertThat(warmUpRoundsCompleted(first)).isEqualTo(WARM_UP_ROUNDS);
                await().atMost(WITHIN).until(() -> processed(database) == expected.total());
                before = windows(first);
            }
            Windows counted = Windows.of(before);
            assertThat(counted.events()).isEqualTo(expected.events());
            assertThat(counted.revenue()).isEqualTo(expected.revenue());
            // The rehearsal's made-up events occur now, outside the windows read above: none of them is in the
            // tables either, nor is any of their ids claimed.
            assertThat(number(database, "SELECT sum(events) FROM minute_events"))
                    .isEqualTo(expected.total());
            assertThat(processed(database)).isEqualTo(expected.total());

            try (Connection connection = database.connect();
                    Statement statement = connection.createStatement()) {
                statement.execute("TRUNCATE minute_events, minute_revenue, processed_events");
            }
            ConsumerGroupOffsets.resetToEarliest(broker.bootstrapServers(), "analytics-service", "orders");
            try (ServiceProcess replaying = start(database, broker, "replay")) {
                await().atMost(WITHIN).until(() -> processed(database) == expected.total());
                assertThat(windows(replaying)).isEqualTo(before);
            }
        }
    }
}
