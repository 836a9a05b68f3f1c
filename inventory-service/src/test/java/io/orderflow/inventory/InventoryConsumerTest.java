package io.orderflow.inventory;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;

import io.orderflow.consumer.FailureHeaders;
import io.orderflow.contracts.EventCodec;
import io.orderflow.contracts.EventEnvelope;
import io.orderflow.contracts.EventVersion;
import io.orderflow.contracts.order.OrderCancelled;
import io.orderflow.contracts.order.OrderCreated;
import io.orderflow.contracts.order.OrderEvent;
import io.orderflow.contracts.order.OrderLine;
import io.orderflow.contracts.order.OrderShipped;
import io.orderflow.testing.OrderEventsProducer;
import io.orderflow.testing.quarkus.BrokerResource;
import io.orderflow.testing.quarkus.ServiceDatabaseResource;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.specification.RequestSpecification;
import jakarta.inject.Inject;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import javax.sql.DataSource;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * inventory-service as deployed: its consumers on our broker over TCP, its PostgreSQL real. Each test uses SKUs and
 * orders of its own, and produces order events to the {@code orders} topic with a stock producer.
 */
@QuarkusTest
@WithTestResource(value = BrokerResource.class, initArgs = @ResourceArg(name = "topics", value = "orders:3"))
@WithTestResource(
        value = ServiceDatabaseResource.class,
        initArgs = @ResourceArg(name = "service", value = "inventory-service"))
class InventoryConsumerTest {

    private static final Duration WITHIN = Duration.ofSeconds(30);

    @Inject
    DataSource dataSource;

    @ConfigProperty(name = "orderflow.admin.token")
    String adminToken;

    private final EventCodec codec = new EventCodec();
    private OrderEventsProducer producer;
    private final String run = UUID.randomUUID().toString().substring(0, 8);

    @BeforeEach
    void setUp() {
        producer = new OrderEventsProducer(BrokerResource.bootstrapServers());
    }

    @AfterEach
    void tearDown() {
        producer.close();
    }

    private String sku(String name) {
        return name + "-" + run;
    }

    private String order(String name) {
        return name + "-" + run;
    }

    /** A request to an admin endpoint (stock adjustment, drill switch): it carries the admin token. */
    private RequestSpecification admin() {
        return given().header("Authorization", "Bearer " + adminToken);
    }

    private void stock(String sku, int onHand) {
        admin().contentType("application/json")
                .body(Map.of("onHand", onHand))
                .put("/inventory/" + sku)
                .then()
                .statusCode(200)
                .body("available", equalTo(onHand));
    }

    private byte[] encode(OrderEvent event) {
        return producer.encode(event);
    }

    private void send(String orderId, byte[] value) throws Exception {
        producer.send(orderId, value);
    }

    private void send(OrderEvent event) throws Exception {
        send(event.orderId(), encode(event));
    }

    private static OrderCreated created(String orderId, String sku, int quantity) {
        return new OrderCreated(
                orderId,
                "customer-1",
                "EUR",
                List.of(new OrderLine(sku, quantity, new BigDecimal("1.00"))),
                new BigDecimal("1.00"),
                "web");
    }

    private int[] level(String sku) {
        var body = given().get("/inventory/" + sku)
                .then()
                .statusCode(200)
                .extract()
                .jsonPath();
        return new int[] {body.getInt("onHand"), body.getInt("reserved"), body.getInt("available")};
    }

    private String status(String orderId) throws SQLException {
        try (Connection connection = dataSource.getConnection();
                PreparedStatement select =
                        connection.prepareStatement("SELECT status FROM reservations WHERE order_id = ?")) {
            select.setString(1, orderId);
            try (ResultSet row = select.executeQuery()) {
                return row.next() ? row.getString(1) : null;
            }
        }
    }

    private List<String> outcomes(String orderId) throws SQLException {
        List<String> types = new ArrayList<>();
        try (Connection connection = dataSource.getConnection();
                PreparedStatement select = connection.prepareStatement(
                        "SELECT event_type FROM outbox WHERE aggregate_id = ? ORDER BY id")) {
            select.setString(1, orderId);
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    types.add(rows.getString(1));
                }
            }
        }
        return types;
    }

    private long processed(UUID eventId) throws SQLException {
        try (Connection connection = dataSource.getConnection();
                PreparedStatement select =
                        connection.prepareStatement("SELECT count(*) FROM processed_events WHERE event_id = ?")) {
            select.setObject(1, eventId);
            try (ResultSet row = select.executeQuery()) {
                row.next();
                return row.getLong(1);
            }
        }
    }

    @Test
    void anOrderReservesItsLinesOnceWhenItsEventIsDeliveredTwiceAndPublishesOneOutcome() throws Exception {
        String sku = sku("dup");
        String order = order("dup");
        stock(sku, 10);
        byte[] value = encode(created(order, sku, 3));
        double duplicatesBefore = duplicatesSkipped();

        send(order, value);
        send(order, value);

        await().atMost(WITHIN).until(() -> duplicatesSkipped() > duplicatesBefore);
        assertThat(level(sku)).containsExactly(10, 3, 7);
        assertThat(status(order)).isEqualTo("RESERVED");
        assertThat(outcomes(order)).containsExactly("InventoryReserved");
        UUID eventId = codec.decode(value).eventId();
        assertThat(processed(eventId)).isOne();
    }

    @Test
    void shippingDeductsAReservationAndCancellingReleasesOne() throws Exception {
        String sku = sku("flow");
        stock(sku, 10);
        send(created(order("shipped"), sku, 2));
        send(created(order("cancelled"), sku, 3));
        send(new OrderShipped(order("shipped"), "carrier", "track-1"));
        send(new OrderCancelled(order("cancelled"), "customer asked"));

        await().atMost(WITHIN)
                .until(() ->
                        "DEDUCTED".equals(status(order("shipped"))) && "RELEASED".equals(status(order("cancelled"))));
        assertThat(level(sku)).containsExactly(8, 0, 8);
    }

    @Test
    void aCancellationBeforeItsOrderLeavesNothingReservedAndAShipmentBeforeItsOrderDeductsAtOnce() throws Exception {
        String sku = sku("early");
        stock(sku, 10);
        send(new OrderCancelled(order("cancel-first"), "fraud"));
        send(created(order("cancel-first"), sku, 4));
        send(new OrderShipped(order("ship-first"), "carrier", "track-2"));
        send(created(order("ship-first"), sku, 1));

        await().atMost(WITHIN)
                .until(() -> "REJECTED".equals(status(order("cancel-first")))
                        && "DEDUCTED".equals(status(order("ship-first"))));
        assertThat(level(sku)).containsExactly(9, 0, 9);
        assertThat(outcomes(order("cancel-first"))).containsExactly("InventoryRejected");
        given().get("/reservations/" + order("cancel-first"))
                .then()
                .statusCode(200)
                .body("status", equalTo("REJECTED"))
                .body("reason", equalTo("cancelled before it was reserved"));
        given().get("/reservations/" + order("never-seen"))
                .then()
                .statusCode(404)
                .body("field", equalTo("orderId"));
        assertThat(outcomes(order("ship-first"))).containsExactly("InventoryReserved");
    }

    @Test
    void ordersForTheLastUnitsNeverOversellAndTheShortOneIsRejectedWhole() throws Exception {
        String sku = sku("last");
        String other = sku("plenty");
        stock(sku, 5);
        stock(other, 100);
        OrderCreated first = created(order("first"), sku, 3);
        OrderCreated second = new OrderCreated(
                order("second"),
                "customer-2",
                "EUR",
                List.of(new OrderLine(other, 1, BigDecimal.ONE), new OrderLine(sku, 3, BigDecimal.ONE)),
                BigDecimal.TWO,
                "web");
        send(first);
        send(second);

        await().atMost(WITHIN).until(() -> status(order("first")) != null && status(order("second")) != null);
        assertThat(List.of(status(order("first")), status(order("second"))))
                .containsExactlyInAnyOrder("RESERVED", "REJECTED");
        assertThat(level(sku)[1]).isEqualTo(3);
        assertThat(level(other)[1]).isEqualTo(status(order("second")).equals("RESERVED") ? 1 : 0);
    }

    @Test
    void aPoisonRecordAndAnUnknownMajorVersionAreDeadLetteredAndTheConsumerGoesOn() throws Exception {
        String sku = sku("poison");
        stock(sku, 10);
        String poisoned = order("poison");
        send(poisoned, "{\"not\": \"an envelope\"}".getBytes(StandardCharsets.UTF_8));
        EventEnvelope current = codec.decode(encode(created(order("v2"), sku, 1)));
        EventEnvelope v2 = new EventEnvelope(
                current.eventId(),
                current.eventType(),
                EventVersion.parse("2.0"),
                current.occurredAt(),
                current.producer(),
                current.orderId(),
                null,
                current.payload());
        send(order("v2"), codec.encode(v2));
        send(created(order("after"), sku, 1));

        await().atMost(WITHIN).until(() -> "RESERVED".equals(status(order("after"))));
        assertThat(status(order("v2"))).isNull();
        List<ConsumerRecord<String, byte[]>> dead = deadLetters(Map.of(poisoned, 1, order("v2"), 1));
        assertThat(dead).extracting(ConsumerRecord::key).contains(poisoned, order("v2"));
        ConsumerRecord<String, byte[]> versioned = dead.stream()
                .filter(r -> r.key().equals(order("v2")))
                .findFirst()
                .orElseThrow();
        assertThat(new String(
                        versioned
                                .headers()
                                .lastHeader(FailureHeaders.DEAD_LETTER_REASON)
                                .value(),
                        StandardCharsets.UTF_8))
                .contains("2.0");
        assertThat(new String(
                        versioned
                                .headers()
                                .lastHeader(FailureHeaders.DEAD_LETTER_TOPIC)
                                .value(),
                        StandardCharsets.UTF_8))
                .isEqualTo("orders");
    }

    @Test
    void orderCreated10And11AndANewerMinorWithUnknownFieldsAreAllReserved() throws Exception {
        String sku = sku("versions");
        stock(sku, 10);
        EventEnvelope current = codec.decode(encode(created(order("v10"), sku, 1)));
        var v10Payload = current.payload().deepCopy();
        v10Payload.remove("channel");
        EventEnvelope v10 = new EventEnvelope(
                current.eventId(),
                current.eventType(),
                EventVersion.V1_0,
                current.occurredAt(),
                current.producer(),
                current.orderId(),
                null,
                v10Payload);
        EventEnvelope newer = codec.decode(encode(created(order("v19"), sku, 3)));
        var newerPayload = newer.payload().deepCopy();
        newerPayload.put("giftWrap", true);
        EventEnvelope v19 = new EventEnvelope(
                newer.eventId(),
                newer.eventType(),
                EventVersion.parse("1.9"),
                newer.occurredAt(),
                newer.producer(),
                newer.orderId(),
                null,
                newerPayload);

        send(order("v10"), codec.encode(v10));
        send(created(order("v11"), sku, 2));
        send(order("v19"), codec.encode(v19));

        await().atMost(WITHIN)
                .until(() -> "RESERVED".equals(status(order("v10")))
                        && "RESERVED".equals(status(order("v11")))
                        && "RESERVED".equals(status(order("v19"))));
        assertThat(level(sku)).containsExactly(10, 6, 4);
    }

    @Test
    void stockErrorsAreProblemsNamingTheField() {
        given().get("/inventory/" + sku("missing"))
                .then()
                .statusCode(404)
                .contentType("application/problem+json")
                .body("field", equalTo("sku"));
        admin().contentType("application/json")
                .body(Map.of("onHand", -1))
                .put("/inventory/" + sku("negative"))
                .then()
                .statusCode(400)
                .contentType("application/problem+json")
                .body("field", equalTo("onHand"));
    }

    /** orderflow_consumer_events_total{outcome="duplicate"} from the service's Prometheus endpoint. */
    private static double duplicatesSkipped() {
        return given().get("/q/metrics")
                .then()
                .statusCode(200)
                .extract()
                .asString()
                .lines()
                .filter(line ->
                        line.startsWith("orderflow_consumer_events_total{") && line.contains("outcome=\"duplicate\""))
                .mapToDouble(line -> Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)))
                .sum();
    }

    /** The dead-letter topic's records until every key of {@code expected} was seen that many times. */
    private List<ConsumerRecord<String, byte[]>> deadLetters(Map<String, Integer> expected) {
        try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(
                Map.of(
                        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                        BrokerResource.bootstrapServers(),
                        ConsumerConfig.GROUP_ID_CONFIG,
                        "test-" + UUID.randomUUID(),
                        ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
                        "earliest"),
                new StringDeserializer(),
                new ByteArrayDeserializer())) {
            consumer.subscribe(List.of("dead-letter-topic-inventory-service"));
            List<ConsumerRecord<String, byte[]>> read = new ArrayList<>();
            await().atMost(WITHIN).until(() -> {
                consumer.poll(Duration.ofMillis(200)).forEach(read::add);
                return expected.entrySet().stream()
                        .allMatch(e -> read.stream()
                                        .filter(r -> e.getKey().equals(r.key()))
                                        .count()
                                >= e.getValue());
            });
            return read;
        }
    }

    /**
     * The drills' switch: at 400 ms per record, five orders take at least two seconds to be reserved; a bad slowdown is
     * refused naming the field; cleared, the service is at full speed again.
     */
    @Test
    void theDrillSwitchSlowsTheConsumerDownAndIsUndone() throws Exception {
        admin().put("/drills/slowdown?perRecordMillis=-1")
                .then()
                .statusCode(400)
                .contentType("application/problem+json")
                .body("field", equalTo("perRecordMillis"));
        admin().put("/drills/slowdown?perRecordMillis=x")
                .then()
                .statusCode(400)
                .body("field", equalTo("perRecordMillis"));
        admin().put("/drills/slowdown?perRecordMillis=400")
                .then()
                .statusCode(200)
                .body("perRecordMillis", equalTo(400));
        try {
            stock(sku("slow"), 100);
            long sent = System.nanoTime();
            for (int i = 0; i < 5; i++) {
                send(created(order("slow-" + i), sku("slow"), 1));
            }
            await().atMost(WITHIN).until(() -> level(sku("slow"))[1] == 5);
            assertThat(Duration.ofNanos(System.nanoTime() - sent)).isGreaterThanOrEqualTo(Duration.ofSeconds(2));
        } finally {
            admin().delete("/drills/slowdown").then().statusCode(200).body("perRecordMillis", equalTo(0));
        }
    }
}
