package io.orderflow.orders.service;

import static io.orderflow.orders.OrderRequests.create;
import static io.orderflow.orders.OrderRequests.validBody;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;

import io.orderflow.orders.OrderTables;
import io.orderflow.orders.PostgresResource;
import io.orderflow.orders.domain.IdempotencyKeyReusedException;
import io.orderflow.orders.domain.NewOrder;
import io.orderflow.orders.domain.OrderItem;
import io.orderflow.testing.quarkus.BrokerResource;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Group commit on a real PostgreSQL: several orders in one transaction, a bad request in a batch failing alone, and
 * the bounded queue. One writer and a queue of three, so that a test can hold the writer (it waits for an order's
 * advisory lock that the test holds) and know exactly what queues up behind it.
 */
@QuarkusTest
@WithTestResource(PostgresResource.class)
@WithTestResource(value = BrokerResource.class, initArgs = @ResourceArg(name = "topics", value = "inventory:3"))
@TestProfile(PlacementBatchingTest.OneWriterShortQueue.class)
class PlacementBatchingTest {

    public static class OneWriterShortQueue implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of(
                    "orderflow.order-service.placement.writers",
                    "1",
                    "orderflow.order-service.placement.queue-capacity",
                    "3");
        }
    }

    @Inject
    DataSource dataSource;

    @Inject
    OrderPlacement placement;

    @Inject
    PlacementBatch batch;

    private OrderTables tables;

    @BeforeEach
    void tables() {
        tables = new OrderTables(dataSource);
    }

    @Test
    void aRequestThatFailsInABatchFailsAloneAndTheRestOfTheBatchIsWritten() throws Exception {
        UUID held = UUID.randomUUID();
        UUID duplicated = UUID.randomUUID();
        CompletionStage<PlacedOrder> first;
        CompletionStage<PlacedOrder> second;
        CompletionStage<PlacedOrder> clash;
        CompletionStage<PlacedOrder> third;
        try (Connection holder = dataSource.getConnection()) {
            holder.setAutoCommit(false);
            lockOrder(holder, held);
            first = placement.place(request(held));
            await().atMost(Duration.ofSeconds(10)).until(() -> waitersFor(held) == 1);

            // Queued behind the held writer, so it takes all three as one batch; the clash reuses second's order id.
            second = placement.place(request(duplicated));
            clash = placement.place(request(duplicated));
            third = placement.place(request(UUID.randomUUID()));
            holder.commit();
        }

        assertThat(join(first).order().id()).isEqualTo(held);
        assertThat(join(second).order().id()).isEqualTo(duplicated);
        assertThat(join(third).replayed()).isFalse();
        assertThat(clash.toCompletableFuture())
                .failsWithin(Duration.ofSeconds(10))
                .withThrowableThat()
                .havingRootCause()
                .isInstanceOf(SQLException.class)
                .withMessageContaining("orders_pkey");
        for (UUID id : List.of(held, duplicated, join(third).order().id())) {
            assertThat(tables.outbox(id))
                    .singleElement()
                    .satisfies(row -> assertThat(row.entry().eventType()).isEqualTo("OrderCreated"));
        }
    }

    @Test
    void aRequestFindingTheQueueFullIsRefusedWith503AndWritesNothing() throws Exception {
        UUID held = UUID.randomUUID();
        String customer = "customer-" + UUID.randomUUID();
        long ordersBefore = tables.number("SELECT count(*) FROM orders WHERE customer_id = ?", customer);
        try (Connection holder = dataSource.getConnection()) {
            holder.setAutoCommit(false);
            lockOrder(holder, held);
            CompletionStage<PlacedOrder> blocked = placement.place(request(held));
            await().atMost(Duration.ofSeconds(10)).until(() -> waitersFor(held) == 1);
            List<CompletionStage<PlacedOrder>> queued = List.of(
                    placement.place(request(UUID.randomUUID())),
                    placement.place(request(UUID.randomUUID())),
                    placement.place(request(UUID.randomUUID())));

            create(validBody(customer))
                    .statusCode(503)
                    .contentType("application/problem+json")
                    .header("Retry-After", "1")
                    .body("type", equalTo("urn:orderflow:problem:busy"));
            holder.commit();

            assertThat(join(blocked).order().id()).isEqualTo(held);
            queued.forEach(order -> assertThat(join(order).replayed()).isFalse());
        }
        assertThat(tables.number("SELECT count(*) FROM orders WHERE customer_id = ?", customer))
                .isEqualTo(ordersBefore);
    }

    /** Within one batch, requests with the same key are decided as if they had been written one after the other. */
    @Test
    void idempotencyKeysWithinOneBatchCreateOnceThenReplayOrRefuse() throws Exception {
        String key = "key-" + UUID.randomUUID();
        NewOrder order = newOrder("customer-1");
        PlacementRequest original = PlacementRequest.of(order, key, null);
        PlacementRequest retry = PlacementRequest.of(order, key, null);
        PlacementRequest other = PlacementRequest.of(newOrder("customer-2"), key, null);
        PlacementRequest keyless = PlacementRequest.of(order, null, null);

        List<PlacementOutcome> outcomes;
        try (Connection connection = dataSource.getConnection()) {
            connection.setAutoCommit(false);
            outcomes = batch.write(connection, List.of(original, retry, other, keyless), Instant.now());
            connection.commit();
        }

        assertThat(outcomes.get(0)).isInstanceOf(PlacementOutcome.Created.class);
        assertThat(outcomes.get(1)).isEqualTo(new PlacementOutcome.Replayed(original.orderId()));
        assertThat(outcomes.get(2))
                .isInstanceOfSatisfying(
                        PlacementOutcome.Refused.class,
                        refused -> assertThat(refused.reason()).isInstanceOf(IdempotencyKeyReusedException.class));
        assertThat(outcomes.get(3)).isInstanceOf(PlacementOutcome.Created.class);
        assertThat(tables.text("SELECT order_id::text FROM idempotency_keys WHERE idempotency_key = ?", key))
                .isEqualTo(original.orderId().toString());
        assertThat(tables.order(retry.orderId())).isEmpty();
        assertThat(tables.order(other.orderId())).isEmpty();
        assertThat(tables.outbox(original.orderId())).hasSize(1);
        assertThat(tables.outbox(keyless.orderId())).hasSize(1);
    }

    private static PlacementRequest request(UUID orderId) {
        return new PlacementRequest(newOrder("customer-" + orderId), orderId, null, null, null);
    }

    private static NewOrder newOrder(String customer) {
        return new NewOrder(customer, "EUR", "web", List.of(new OrderItem("SKU-1", 2, new BigDecimal("9.95"))));
    }

    private static PlacedOrder join(CompletionStage<PlacedOrder> placed) {
        try {
            return placed.toCompletableFuture().get(10, java.util.concurrent.TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new CompletionException(e);
        }
    }

    private static void lockOrder(Connection connection, UUID orderId) throws SQLException {
        try (PreparedStatement lock =
                connection.prepareStatement("SELECT pg_advisory_xact_lock(hashtextextended(?, 0))")) {
            lock.setString(1, orderId.toString());
            lock.execute();
        }
    }

    private long waitersFor(UUID id) {
        return tables.number(
                "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND objsubid = 1"
                        + " AND ((classid::bigint << 32) | objid::bigint) = hashtextextended(?, 0)",
                id.toString());
    }
}
