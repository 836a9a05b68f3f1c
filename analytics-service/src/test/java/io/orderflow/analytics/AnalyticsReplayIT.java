package io.orderflow.analytics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.orderflow.contracts.EventCodec;
import io.orderflow.contracts.order.OrderCancelled;
import io.orderflow.contracts.order.OrderCreated;
import io.orderflow.contracts.order.OrderEvent;
import io.orderflow.contracts.order.OrderLine;
import io.orderflow.contracts.order.OrderPaid;
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
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A replay rebuilds exactly the same windows: the packaged analytics-service counts 3,000 events spread over 30
 * minutes (in an order that puts many of them late), its windows are read through the API, then its tables are emptied,
 * its group's offsets reset to the earliest (as {@code kafka-consumer-groups --reset-offsets --to-earliest
 * --execute} does) and it is started again: the windows it rebuilds are the same, byte for byte.
 */
@PostgresTest(service = "analytics-service")
class AnalyticsReplayIT {

    private static final int EVENTS = 3_000;
    private static final int PARTITIONS = 3;
    private static final Instant START = Instant.parse("2021-06-01T12:00:00Z");
    private static final Duration WITHIN = Duration.ofMinutes(2);

    private static ServiceProcess start(PostgresDatabase database, InProcessBroker broker, String name) {
        return PackagedService.builder("analytics-service", database, broker.bootstrapServers(), "analytics-" + name)
                .start();
    }

    private static long processed(PostgresDatabase database) throws SQLException {
        try (Connection connection = database.connect();
                Statement statement = connection.createStatement();
                ResultSet row = statement.executeQuery("SELECT count(*) FROM processed_events")) {
            row.next();
            return row.getLong(1);
        }
    }

    /** Events of 1,000 orders at random times within 30 minutes, produced in an order unrelated to those times. */
    private static Map<String, Long> produce(InProcessBroker broker) throws Exception {
        Random random = new Random(20261202);
        EventCodec codec = new EventCodec();
        Map<String, Long> expected = new HashMap<>();
        try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(
                Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()),
                new StringSerializer(),
                new ByteArraySerializer())) {
            for (int n = 0; n < EVENTS; n++) {
                String orderId = "order-" + (n % 1_000);
                OrderEvent event = switch (n / 1_000) {
                    case 0 ->
                        new OrderCreated(
                                orderId,
                                "c",
                                "EUR",
                                List.of(new OrderLine("sku-1", 1, BigDecimal.ONE)),
                                BigDecimal.ONE,
                                "web");
                    case 1 ->
                        new OrderPaid(
                                orderId,
                                new BigDecimal(random.nextInt(1, 10_000)).movePointLeft(2),
                                random.nextBoolean() ? "EUR" : "USD",
                                "p-" + n);
                    default ->
                        random.nextBoolean()
                                ? new OrderShipped(orderId, "carrier", "t-" + n)
                                : new OrderCancelled(orderId, "changed");
                };
                Instant occurredAt =
                        START.plusMillis(random.nextLong(Duration.ofMinutes(30).toMillis()));
                byte[] value = codec.encode(codec.wrap(event, UUID.randomUUID(), occurredAt, "test", null));
                producer.send(new ProducerRecord<>("orders", orderId, value));
                expected.merge(codec.decode(value).eventType(), 1L, Long::sum);
            }
            producer.flush();
        }
        return expected;
    }

    private static String windows(ServiceProcess service) throws Exception {
        return service.get("/analytics/minutes?from=" + START + "&to=" + START.plus(Duration.ofHours(1)));
    }

    @Test
    void aReplayFromTheEarliestOffsetIntoEmptyTablesRebuildsTheSameWindows(
            PostgresDatabase database, @TempDir Path brokerDir) throws Exception {
        CleanSchema.empty(database);
        try (InProcessBroker broker = InProcessBroker.start(brokerDir)) {
            broker.createTopic("orders", PARTITIONS);
            Map<String, Long> expected = produce(broker);

            String before;
            try (ServiceProcess first = start(database, broker, "first")) {
                await().atMost(WITHIN).until(() -> processed(database) == EVENTS);
                before = windows(first);
            }
            for (Map.Entry<String, Long> type : expected.entrySet()) {
                long counted = 0;
                var matcher = java.util.regex.Pattern.compile("\"" + type.getKey() + "\":(\\d+)")
                        .matcher(before);
                while (matcher.find()) {
                    counted += Long.parseLong(matcher.group(1));
                }
                assertThat(counted).as(type.getKey()).isEqualTo(type.getValue());
            }

            try (Connection connection = database.connect();
                    Statement statement = connection.createStatement()) {
                statement.execute("TRUNCATE minute_events, minute_revenue, processed_events");
            }
            ConsumerGroupOffsets.resetToEarliest(broker.bootstrapServers(), "analytics-service", "orders");
            try (ServiceProcess replaying = start(database, broker, "replay")) {
                await().atMost(WITHIN).until(() -> processed(database) == EVENTS);
                assertThat(windows(replaying)).isEqualTo(before);
            }
        }
    }
}
