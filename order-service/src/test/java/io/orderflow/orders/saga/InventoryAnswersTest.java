package io.orderflow.orders.saga;

import static io.orderflow.orders.OrderRequests.createOrder;
import static io.orderflow.orders.OrderRequests.transition;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;

import io.orderflow.contracts.EventCatalog;
import io.orderflow.contracts.EventCodec;
import io.orderflow.contracts.inventory.InventoryRejected;
import io.orderflow.contracts.inventory.InventoryReserved;
import io.orderflow.contracts.inventory.ReservedLine;
import io.orderflow.orders.InventoryTopic;
import io.orderflow.orders.OrderTables;
import io.orderflow.orders.PostgresResource;
import io.orderflow.outbox.OutboxRow;
import io.orderflow.testing.quarkus.BrokerResource;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.specification.RequestSpecification;
import jakarta.inject.Inject;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import javax.sql.DataSource;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The saga's consumer through the broker: inventory's answers on the {@code inventory} topic, read by order-service's
 * consumer group, and what they do (or do not do) to the order and its outbox.
 */
@QuarkusTest
@WithTestResource(PostgresResource.class)
@WithTestResource(value = BrokerResource.class, initArgs = @ResourceArg(name = "topics", value = "inventory:3"))
class InventoryAnswersTest {

    private static final Duration WITHIN = Duration.ofSeconds(30);
    private static final EventCodec INVENTORY = new EventCodec(EventCatalog.inventoryEvents());

    @Inject
    DataSource dataSource;

    private OrderTables tables;

    @BeforeEach
    void tables() {
        tables = new OrderTables(dataSource);
    }

    @Test
    void aReservationConfirmsTheOrderOnceThoughItIsDeliveredTwice() {
        UUID id = createOrder();
        byte[] reserved = INVENTORY.encode(INVENTORY.wrap(
                new InventoryReserved(id.toString(), List.of(new ReservedLine("SKU-1", 2))),
                UUID.randomUUID(),
                Instant.now(),
                "inventory-service",
                null));

        InventoryTopic.publish(id.toString(), reserved);
        InventoryTopic.publish(id.toString(), reserved);
        UUID marker = InventoryTopic.publish(new InventoryRejected(id.toString(), "late", List.of()));
        awaitProcessed(marker);

        assertThat(eventTypes(id)).containsExactly("OrderCreated", "OrderConfirmed");
        assertThat((String) given().get("/orders/" + id)
                        .then()
                        .statusCode(200)
                        .extract()
                        .path("status"))
                .as("a later rejection of a confirmed order changes nothing either")
                .isEqualTo("CONFIRMED");
        assertThat(duplicatesSkipped()).isGreaterThanOrEqualTo(1);
    }

    @Test
    void anAnswerThatArrivesAfterTheOrderWasCancelledChangesNothing() {
        UUID id = createOrder();
        transition(id, "cancel").statusCode(200);

        awaitProcessed(
                InventoryTopic.publish(new InventoryReserved(id.toString(), List.of(new ReservedLine("SKU-1", 2)))));

        assertThat(tables.order(id).orElseThrow().status()).isEqualTo("CANCELLED");
        assertThat(eventTypes(id)).containsExactly("OrderCreated", "OrderCancelled");
    }

    @Test
    void anAnswerForAnOrderThisServiceDoesNotHaveIsSkipped() {
        UUID unknown = UUID.randomUUID();
        double before = unknownOrders();

        awaitProcessed(InventoryTopic.publish(new InventoryRejected(unknown.toString(), "no stock", List.of("X"))));
        awaitProcessed(InventoryTopic.publish(new InventoryRejected("not-a-uuid", "no stock", List.of("X"))));

        assertThat(tables.outbox(unknown)).isEmpty();
        assertThat(unknownOrders() - before).isEqualTo(2);
    }

    @Test
    void aRecordNoReaderCanDecodeGoesToTheDeadLetterTopicAndTheNextAnswerIsApplied() {
        UUID id = createOrder();
        String key = "poison-" + UUID.randomUUID();

        InventoryTopic.publish(key, "{not json".getBytes(StandardCharsets.UTF_8));
        InventoryTopic.rejects(id, "not enough stock of SKU-1", List.of("SKU-1"));

        assertThat(deadLetterKeys(key)).contains(key);
        assertThat(eventTypes(id)).containsExactly("OrderCreated", "OrderRejected");
    }

    /**
     * The drills' slowdown switch slows the saga's consumer as it does the consumers of {@code orders}: at 300 ms a
     * record, five answers take at least 1.5 s to be applied; the switch is an admin endpoint, and undone it leaves the
     * consumer at full speed.
     */
    @Test
    void theDrillSwitchSlowsTheSagasConsumerDownAndIsUndone() {
        given().put("/drills/slowdown?perRecordMillis=300").then().statusCode(401);
        admin().put("/drills/slowdown?perRecordMillis=-1").then().statusCode(400);
        admin().put("/drills/slowdown?perRecordMillis=300")
                .then()
                .statusCode(200)
                .body("perRecordMillis", equalTo(300));
        try {
            List<UUID> orders = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                orders.add(createOrder());
            }
            long sent = System.nanoTime();
            for (UUID order : orders) {
                InventoryTopic.publish(new InventoryReserved(order.toString(), List.of(new ReservedLine("SKU-1", 2))));
            }
            for (UUID order : orders) {
                await().atMost(WITHIN)
                        .until(() -> tables.order(order).orElseThrow().status().equals("CONFIRMED"));
            }
            assertThat(Duration.ofNanos(System.nanoTime() - sent)).isGreaterThanOrEqualTo(Duration.ofMillis(1500));
        } finally {
            admin().delete("/drills/slowdown").then().statusCode(200).body("perRecordMillis", equalTo(0));
        }
    }

    private static RequestSpecification admin() {
        return given().header("Authorization", "Bearer " + adminToken());
    }

    private static String adminToken() {
        return ConfigProvider.getConfig().getValue("orderflow.admin.token", String.class);
    }

    private List<String> eventTypes(UUID id) {
        return tables.outbox(id).stream()
                .map(OutboxRow::entry)
                .map(e -> e.eventType())
                .toList();
    }

    /**
     * Waits until the saga's consumer has claimed the event {@code eventId}: it is claimed whether or not it changed
     * an order, and the records before it on its partition were processed first.
     */
    private void awaitProcessed(UUID eventId) {
        await().atMost(WITHIN)
                .until(() -> tables.number(
                                "SELECT count(*) FROM processed_events WHERE event_id = ?::uuid", eventId.toString())
                        == 1);
    }

    private static double unknownOrders() {
        return metric("orderflow_saga_answers_unknown_orders_total");
    }

    private static double duplicatesSkipped() {
        return given().get("/q/metrics")
                .then()
                .statusCode(200)
                .extract()
                .asString()
                .lines()
                .filter(line -> line.startsWith("orderflow_consumer_events_total{")
                        && line.contains("group=\"order-service\"")
                        && line.contains("outcome=\"duplicate\""))
                .mapToDouble(line -> Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)))
                .sum();
    }

    private static double metric(String name) {
        return given().get("/q/metrics")
                .then()
                .statusCode(200)
                .extract()
                .asString()
                .lines()
                .filter(line -> line.startsWith(name + " ") || line.startsWith(name + "{"))
                .mapToDouble(line -> Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)))
                .sum();
    }

    private static List<String> deadLetterKeys(String wanted) {
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
            consumer.subscribe(List.of("dead-letter-topic-order-service"));
            List<String> keys = new ArrayList<>();
            await().atMost(WITHIN).until(() -> {
                consumer.poll(Duration.ofMillis(200)).forEach(r -> keys.add(r.key()));
                return keys.contains(wanted);
            });
            return keys;
        }
    }
}
