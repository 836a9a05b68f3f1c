package io.orderflow.orders.outbox;

import static io.orderflow.orders.OrderRequests.createConfirmedOrder;
import static io.orderflow.orders.OrderRequests.createOrder;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.orderflow.contracts.inventory.InventoryReserved;
import io.orderflow.contracts.inventory.ReservedLine;
import io.orderflow.contracts.order.OrderCancelled;
import io.orderflow.orders.InventoryTopic;
import io.orderflow.orders.OrderTables;
import io.orderflow.orders.PostgresResource;
import io.orderflow.outbox.AggregateLocks;
import io.orderflow.outbox.HeldAggregateLocks;
import io.orderflow.outbox.OutboxRow;
import io.orderflow.testing.quarkus.BrokerResource;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The outbox rule on a real PostgreSQL: a transaction that changes an order takes the order's advisory lock before
 * its first write, so its transaction id is assigned only once it holds the lock, and changes of one order get
 * transaction ids in the order they were made.
 */
@QuarkusTest
@WithTestResource(PostgresResource.class)
@WithTestResource(value = BrokerResource.class, initArgs = @ResourceArg(name = "topics", value = "inventory:3"))
class OrderLockingTest {

    @Inject
    DataSource dataSource;

    @Inject
    OrderLocks locks;

    @Inject
    OutboxWriter outbox;

    @TestHTTPResource("/")
    URI base;

    private final HttpClient client = HttpClient.newHttpClient();
    private OrderTables tables;

    @BeforeEach
    void tables() {
        tables = new OrderTables(dataSource);
    }

    /**
     * A holder takes the order's lock; the pay request must wait for it. Only then does the holder get a transaction
     * id. Had the pay transaction written anything before asking for the lock, its id would be the older one.
     */
    @Test
    void aTransitionGetsItsTransactionIdOnlyAfterTakingTheOrderLock() throws Exception {
        UUID id = createConfirmedOrder();
        long holderXid;
        CompletableFuture<HttpResponse<String>> pay;
        try (Connection holder = dataSource.getConnection()) {
            holder.setAutoCommit(false);
            AggregateLocks.acquire(holder, List.of(id.toString()), holder);

            pay = client.sendAsync(post(id, "pay"), HttpResponse.BodyHandlers.ofString());
            await().atMost(Duration.ofSeconds(10)).until(() -> waitersFor(id) == 1);

            holderXid = number(holder, "SELECT pg_current_xact_id()::text::bigint");
            holder.commit();
        }

        assertThat(pay.get().statusCode()).isEqualTo(200);
        OutboxRow paid = tables.outbox(id).getLast();
        assertThat(paid.entry().aggregateVersion()).isEqualTo(3);
        assertThat(paid.txId()).isGreaterThan(holderXid);
    }

    @Test
    void concurrentTransitionsOfOneOrderAreSerialised() {
        UUID id = createOrder();

        List<Integer> statuses = IntStream.range(0, 6)
                .mapToObj(i -> client.sendAsync(post(id, "cancel"), HttpResponse.BodyHandlers.ofString()))
                .toList()
                .stream()
                .map(CompletableFuture::join)
                .map(HttpResponse::statusCode)
                .toList();

        assertThat(statuses).containsOnlyOnce(200).containsOnly(200, 409);
        assertThat(tables.outbox(id))
                .extracting(row -> row.entry().aggregateVersion())
                .containsExactly(1L, 2L);
    }

    @Test
    void racingPaysAndCancelsLeaveEachOrderWithContiguousVersionsInTransactionOrder() {
        List<UUID> ids =
                IntStream.range(0, 5).mapToObj(i -> createConfirmedOrder()).toList();

        ids.stream()
                .flatMap(id -> List.of("pay", "cancel", "ship", "pay").stream()
                        .map(verb -> client.sendAsync(post(id, verb), HttpResponse.BodyHandlers.ofString())))
                .toList()
                .forEach(CompletableFuture::join);

        for (UUID id : ids) {
            List<OutboxRow> rows = tables.outbox(id);
            long version = tables.order(id).orElseThrow().version();
            assertThat(rows)
                    .extracting(row -> row.entry().aggregateVersion())
                    .containsExactly(java.util.stream.LongStream.rangeClosed(1, version)
                            .boxed()
                            .toArray(Long[]::new));
            assertThat(rows).extracting(OutboxRow::txId).isSorted().doesNotHaveDuplicates();
        }
    }

    /**
     * Inventory's answers race the API's cancels of the same orders: whichever commits first, each order's outbox rows
     * have contiguous versions in transaction-id order (the saga's consumer takes the orders' locks before its claim
     * writes), and every order ends CANCELLED.
     */
    @Test
    void inventoryAnswersRacingCancelsLeaveEachOrderWithContiguousVersionsInTransactionOrder() {
        List<UUID> ids = IntStream.range(0, 8).mapToObj(i -> createOrder()).toList();

        List<UUID> answers = ids.stream()
                .map(id -> InventoryTopic.publish(
                        new InventoryReserved(id.toString(), List.of(new ReservedLine("SKU-1", 2)))))
                .toList();
        ids.stream()
                .map(id -> client.sendAsync(post(id, "cancel"), HttpResponse.BodyHandlers.ofString()))
                .toList()
                .forEach(CompletableFuture::join);
        await().atMost(Duration.ofSeconds(30))
                .until(() -> tables.number(
                                "SELECT count(*) FROM processed_events WHERE event_id::text = ANY (string_to_array(?, ','))",
                                String.join(
                                        ",",
                                        answers.stream().map(UUID::toString).toList()))
                        == ids.size());

        for (UUID id : ids) {
            List<OutboxRow> rows = tables.outbox(id);
            assertThat(tables.order(id).orElseThrow().status()).isEqualTo("CANCELLED");
            assertThat(rows)
                    .extracting(row -> row.entry().eventType())
                    .isIn(
                            List.of("OrderCreated", "OrderCancelled"),
                            List.of("OrderCreated", "OrderConfirmed", "OrderCancelled"));
            assertThat(rows)
                    .extracting(row -> row.entry().aggregateVersion())
                    .containsExactly(java.util.stream.LongStream.rangeClosed(1, rows.size())
                            .boxed()
                            .toArray(Long[]::new));
            assertThat(rows).extracting(OutboxRow::txId).isSorted().doesNotHaveDuplicates();
        }
    }

    @Test
    void theWriterRefusesTheLockOfAnotherOrder() {
        UUID locked = UUID.randomUUID();
        UUID other = UUID.randomUUID();

        QuarkusTransaction.requiringNew().run(() -> {
            HeldAggregateLocks lock = locks.acquire(locked);
            assertThatThrownBy(() ->
                            outbox.append(lock, 1, new OrderCancelled(other.toString(), "test"), Instant.now(), null))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining(other.toString())
                    .hasMessageContaining(locked.toString());
        });
        assertThat(tables.outbox(other)).isEmpty();
    }

    @Test
    void theWriterRefusesALockTakenInAnotherTransaction() {
        UUID id = UUID.randomUUID();
        HeldAggregateLocks stale = QuarkusTransaction.requiringNew().call(() -> locks.acquire(id));

        QuarkusTransaction.requiringNew()
                .run(() -> assertThatThrownBy(() ->
                                outbox.append(stale, 1, new OrderCancelled(id.toString(), "test"), Instant.now(), null))
                        .isInstanceOf(IllegalStateException.class)
                        .hasMessageContaining("another transaction"));
        assertThat(tables.outbox(id)).isEmpty();
    }

    @Test
    void theLockIsRefusedOutsideATransaction() {
        assertThatThrownBy(() -> locks.acquire(UUID.randomUUID()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("no transaction is active");
    }

    private HttpRequest post(UUID id, String verb) {
        return HttpRequest.newBuilder(base.resolve("orders/" + id + "/" + verb))
                .POST(HttpRequest.BodyPublishers.noBody())
                .build();
    }

    /** Sessions waiting for the order's advisory lock (its 64-bit key is split into classid and objid). */
    private long waitersFor(UUID id) {
        return tables.number(
                "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND objsubid = 1"
                        + " AND ((classid::bigint << 32) | objid::bigint) = hashtextextended(?, 0)",
                id.toString());
    }

    private static long number(Connection connection, String sql) throws Exception {
        try (PreparedStatement statement = connection.prepareStatement(sql);
                ResultSet rows = statement.executeQuery()) {
            rows.next();
            return rows.getLong(1);
        }
    }
}
