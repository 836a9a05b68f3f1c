package io.orderflow.orders.outbox;

import static io.orderflow.orders.OrderRequests.create;
import static io.orderflow.orders.OrderRequests.createOrder;
import static io.orderflow.orders.OrderRequests.transition;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.equalTo;

import io.orderflow.contracts.EventCatalog;
import io.orderflow.contracts.EventCodec;
import io.orderflow.contracts.EventEnvelope;
import io.orderflow.contracts.Traceparent;
import io.orderflow.contracts.order.OrderCancelled;
import io.orderflow.contracts.order.OrderConfirmed;
import io.orderflow.contracts.order.OrderCreated;
import io.orderflow.contracts.order.OrderLine;
import io.orderflow.contracts.order.OrderPaid;
import io.orderflow.contracts.order.OrderRejected;
import io.orderflow.contracts.order.OrderShipped;
import io.orderflow.orders.InventoryTopic;
import io.orderflow.orders.OrderTables;
import io.orderflow.orders.OrderTables.OrderState;
import io.orderflow.orders.PostgresResource;
import io.orderflow.outbox.AggregateLocks;
import io.orderflow.outbox.HeldAggregateLocks;
import io.orderflow.outbox.OutboxEntry;
import io.orderflow.outbox.OutboxInsert;
import io.orderflow.outbox.OutboxRow;
import io.orderflow.testing.quarkus.BrokerResource;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import jakarta.inject.Inject;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Every state change writes its order row and exactly one outbox row in one transaction, and the row carries the
 * event-contracts envelope the relay publishes.
 */
@QuarkusTest
@WithTestResource(PostgresResource.class)
@WithTestResource(value = BrokerResource.class, initArgs = @ResourceArg(name = "topics", value = "inventory:3"))
class OutboxTest {

    private static final String TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

    @Inject
    DataSource dataSource;

    private final EventCodec codec = new EventCodec();
    private OrderTables tables;

    @BeforeEach
    void tables() {
        tables = new OrderTables(dataSource);
    }

    @Test
    void eachStateChangeWritesOneOutboxRowInTheTransactionOfTheOrderRow() {
        UUID id = given().contentType(ContentType.JSON)
                .header("Idempotency-Key", "outbox-" + UUID.randomUUID())
                .body(io.orderflow.orders.OrderRequests.validBody())
                .post("/orders")
                .then()
                .statusCode(201)
                .extract()
                .jsonPath()
                .getUUID("id");
        assertOneRowPerVersionWrittenWithTheOrder(id, 1);
        OutboxRow created = tables.outbox(id).getFirst();
        assertThat(tables.lineXmins(id)).hasSize(2).containsOnly(OrderTables.xid(created));
        assertThat(tables.number("SELECT xmin::text::bigint FROM idempotency_keys WHERE order_id = ?", id))
                .isEqualTo(OrderTables.xid(created));

        InventoryTopic.reserves(id);
        assertOneRowPerVersionWrittenWithTheOrder(id, 2);

        transition(id, "pay").statusCode(200);
        assertOneRowPerVersionWrittenWithTheOrder(id, 3);

        transition(id, "ship").statusCode(200);
        assertOneRowPerVersionWrittenWithTheOrder(id, 4);

        List<OutboxRow> rows = tables.outbox(id);
        assertThat(rows)
                .extracting(row -> row.entry().eventType())
                .containsExactly("OrderCreated", "OrderConfirmed", "OrderPaid", "OrderShipped");
        assertThat(rows).extracting(OutboxRow::txId).isSorted().doesNotHaveDuplicates();
    }

    @Test
    void aRefusedTransitionWritesNothing() {
        UUID id = createOrder();

        transition(id, "ship").statusCode(409);

        assertThat(tables.order(id))
                .get()
                .extracting(OrderState::status, OrderState::version)
                .containsExactly("CREATED", 1L);
        assertThat(tables.outbox(id)).hasSize(1);
    }

    @Test
    void theOutboxPayloadIsTheContractsEnvelopeOfEachEvent() {
        String body = """
                {"customerId": "customer-9", "currency": "CHF", "channel": "mobile",
                 "items": [{"sku": "SKU-9", "quantity": 3, "unitPrice": "4.50"}]}""";
        UUID id = create(body).statusCode(201).extract().jsonPath().getUUID("id");
        InventoryTopic.reserves(id);
        transition(id, "pay", "{\"paymentReference\": \"pay_9\"}").statusCode(200);
        transition(id, "ship", "{\"carrier\": \"UPS\"}").statusCode(200);
        UUID second = createOrder();
        transition(second, "cancel", "{\"reason\": \"duplicate\"}").statusCode(200);
        UUID third = createOrder();
        InventoryTopic.rejects(third, "not enough stock of SKU-1", List.of("SKU-1"));

        List<OutboxRow> rows = tables.outbox(id);
        assertThat(decode(rows.get(0), 1))
                .isEqualTo(new OrderCreated(
                        id.toString(),
                        "customer-9",
                        "CHF",
                        List.of(new OrderLine("SKU-9", 3, new BigDecimal("4.50"))),
                        new BigDecimal("13.50"),
                        "mobile"));
        assertThat(decode(rows.get(1), 2)).isEqualTo(new OrderConfirmed(id.toString()));
        assertThat(decode(rows.get(2), 3))
                .isEqualTo(new OrderPaid(id.toString(), new BigDecimal("13.50"), "CHF", "pay_9"));
        assertThat(decode(rows.get(3), 4)).isEqualTo(new OrderShipped(id.toString(), "UPS", null));
        assertThat(decode(tables.outbox(second).get(1), 2))
                .isEqualTo(new OrderCancelled(second.toString(), "duplicate"));
        assertThat(decode(tables.outbox(third).get(1), 2))
                .isEqualTo(new OrderRejected(third.toString(), "not enough stock of SKU-1", List.of("SKU-1")));
    }

    @Test
    void anOrderWithoutChannelIsRecordedWithTheContractsUnknownChannel() {
        String body = """
                {"customerId": "c", "currency": "EUR", "items": [{"sku": "a", "quantity": 1, "unitPrice": 1}]}""";
        UUID id = create(body).statusCode(201).extract().jsonPath().getUUID("id");

        OrderCreated created = (OrderCreated) decode(tables.outbox(id).getFirst(), 1);

        assertThat(created.channel()).isEqualTo(OrderCreated.UNKNOWN_CHANNEL);
    }

    @Test
    void theRequestsTraceparentIsRecordedWithEveryEvent() {
        UUID id = given().contentType(ContentType.JSON)
                .header("traceparent", TRACEPARENT)
                .body(io.orderflow.orders.OrderRequests.validBody())
                .post("/orders")
                .then()
                .statusCode(201)
                .extract()
                .jsonPath()
                .getUUID("id");
        given().contentType(ContentType.JSON)
                .header("traceparent", TRACEPARENT)
                .post("/orders/" + id + "/cancel")
                .then()
                .statusCode(200);

        assertThat(tables.outbox(id)).hasSize(2).allSatisfy(row -> {
            assertThat(row.entry().traceparent()).isEqualTo(TRACEPARENT);
            assertThat(envelope(row).traceparent()).isEqualTo(TRACEPARENT);
        });
    }

    @Test
    void withoutAValidTraceparentEachChangeStartsANewTrace() {
        UUID id = given().contentType(ContentType.JSON)
                .header("traceparent", "00-4BF92F3577B34DA6A3CE929D0E0E4736-00F067AA0BA902B7-01")
                .body(io.orderflow.orders.OrderRequests.validBody())
                .post("/orders")
                .then()
                .statusCode(201)
                .extract()
                .jsonPath()
                .getUUID("id");
        transition(id, "cancel").statusCode(200);

        List<OutboxRow> rows = tables.outbox(id);
        assertThat(rows)
                .extracting(row -> row.entry().traceparent())
                .allMatch(Traceparent::isValid)
                .doesNotHaveDuplicates();
        assertThat(rows)
                .extracting(row -> envelope(row).traceparent())
                .containsExactlyElementsOf(
                        rows.stream().map(row -> row.entry().traceparent()).toList());
    }

    @Test
    void aFailingOutboxInsertRollsBackTheOrderChange() throws Exception {
        UUID id = createOrder();
        // Another writer's row for version 2: the outbox's UNIQUE (aggregate_id, aggregate_version) refuses ours.
        try (Connection writer = dataSource.getConnection()) {
            writer.setAutoCommit(false);
            HeldAggregateLocks lock = AggregateLocks.acquire(writer, List.of(id.toString()), writer);
            try (PreparedStatement insert = writer.prepareStatement(OutboxInsert.SQL)) {
                OutboxInsert.bind(
                        insert,
                        lock,
                        writer,
                        new OutboxEntry(
                                UUID.randomUUID(),
                                id.toString(),
                                2,
                                "OrderCancelled",
                                "1.0",
                                "{}",
                                null,
                                Instant.now()));
                insert.executeUpdate();
            }
            writer.commit();
        }
        tables.execute(
                "UPDATE outbox SET quarantined_at = now(), quarantine_reason = 'test: forced conflict'"
                        + " WHERE aggregate_id = ? AND aggregate_version = 2",
                id.toString());
        try {
            transition(id, "cancel", "{\"reason\": \"lost\"}")
                    .statusCode(409)
                    .body("type", equalTo("urn:orderflow:problem:concurrent-change"));

            assertThat(tables.order(id))
                    .get()
                    .extracting(OrderState::status, OrderState::version)
                    .containsExactly("CREATED", 1L);
            assertThat(tables.number("SELECT count(*) FROM orders WHERE id = ? AND cancellation_reason IS NULL", id))
                    .isOne();
            assertThat(tables.outbox(id))
                    .extracting(row -> row.entry().eventType())
                    .containsExactly("OrderCreated", "OrderCancelled");
        } finally {
            tables.execute("DELETE FROM outbox WHERE aggregate_id = ? AND aggregate_version = 2", id.toString());
        }
        transition(id, "cancel").statusCode(200).body("version", equalTo(2));
    }

    private void assertOneRowPerVersionWrittenWithTheOrder(UUID id, long version) {
        OrderState order = tables.order(id).orElseThrow();
        List<OutboxRow> rows = tables.outbox(id);
        assertThat(order.version()).isEqualTo(version);
        assertThat(rows)
                .extracting(row -> row.entry().aggregateVersion())
                .containsExactly(java.util.stream.LongStream.rangeClosed(1, version)
                        .boxed()
                        .toArray(Long[]::new));
        assertThat(OrderTables.xid(rows.getLast()))
                .as("the outbox row of version %d was written by the transaction that wrote the order row", version)
                .isEqualTo(order.xmin());
    }

    private Object decode(OutboxRow row, long version) {
        EventEnvelope envelope = envelope(row);
        assertThat(row.entry().aggregateVersion()).isEqualTo(version);
        assertThat(envelope.eventId()).isEqualTo(row.entry().eventId());
        assertThat(envelope.eventType()).isEqualTo(row.entry().eventType());
        assertThat(envelope.eventVersion().toString()).isEqualTo(row.entry().eventVersion());
        assertThat(envelope.eventVersion())
                .isEqualTo(EventCatalog.orderEvents()
                        .find(row.entry().eventType())
                        .orElseThrow()
                        .current());
        assertThat(envelope.orderId()).isEqualTo(row.entry().aggregateId());
        assertThat(envelope.producer()).isEqualTo("order-service");
        assertThat(envelope.occurredAt()).isEqualTo(row.entry().occurredAt());
        assertThat(envelope.traceparent()).isEqualTo(row.entry().traceparent());
        return codec.decodePayload(envelope);
    }

    private EventEnvelope envelope(OutboxRow row) {
        return codec.decode(row.entry().payload().getBytes(StandardCharsets.UTF_8));
    }
}
