package io.orderflow.inventory;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.consumer.ConsumedEvent;
import io.orderflow.contracts.EventCatalog;
import io.orderflow.contracts.EventCodec;
import io.orderflow.contracts.EventEnvelope;
import io.orderflow.contracts.order.OrderCancelled;
import io.orderflow.contracts.order.OrderCreated;
import io.orderflow.contracts.order.OrderEvent;
import io.orderflow.contracts.order.OrderLine;
import io.orderflow.contracts.order.OrderShipped;
import io.orderflow.postgres.PostgresDatabase;
import io.orderflow.testing.CleanSchema;
import io.orderflow.testing.PostgresTest;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The ledger's batch path against its oracle, the same events applied one transaction each, on a real PostgreSQL:
 * seeded random histories of a few orders over a few scarce SKUs (rejections, out-of-order cancellations and shipments,
 * repeated {@code OrderCreated}s, unknown SKUs), split into random batches, must leave the same reservations, lines,
 * stock and published outcomes. A failure names its seed.
 */
@PostgresTest(service = "inventory-ledger")
class InventoryLedgerBatchTest {

    private static final int HISTORIES = 120;
    private static final List<String> SKUS = List.of("sku-1", "sku-2", "sku-3");

    private final EventCodec orders = new EventCodec();
    private final EventCodec outcomes = new EventCodec(EventCatalog.inventoryEvents());
    private final InventoryLedger ledger = new InventoryLedger(Clock.systemUTC());
    private Connection connection;

    @BeforeEach
    void setUp(PostgresDatabase database) throws SQLException {
        CleanSchema.migrate(database, "classpath:db/migration", "classpath:db/outbox", "classpath:db/consumer");
        connection = database.connect();
        connection.setAutoCommit(false);
    }

    @AfterEach
    void tearDown() throws SQLException {
        connection.close();
    }

    @Test
    void batchesOfAnyCutLeaveWhatTheSameEventsLeaveOneTransactionEach() throws Exception {
        for (long seed = 1; seed <= HISTORIES; seed++) {
            Random random = new Random(seed);
            List<Integer> onHand = SKUS.stream().map(sku -> random.nextInt(9)).toList();
            List<ConsumedEvent> history = history(random);

            reset(onHand);
            for (ConsumedEvent event : history) {
                inTransaction(tx -> ledger.apply(tx, event));
            }
            List<String> oneByOne = state();

            reset(onHand);
            int from = 0;
            while (from < history.size()) {
                int to = Math.min(history.size(), from + 1 + random.nextInt(history.size()));
                List<ConsumedEvent> batch = history.subList(from, to);
                inTransaction(tx -> ledger.applyAll(tx, batch));
                from = to;
            }
            List<String> batched = state();

            assertThat(batched)
                    .as("seed %d, stock %s, events %s", seed, onHand, describe(history))
                    .isEqualTo(oneByOne);
        }
    }

    private List<ConsumedEvent> history(Random random) {
        List<ConsumedEvent> events = new ArrayList<>();
        int length = 1 + random.nextInt(20);
        for (int n = 0; n < length; n++) {
            String orderId = "order-" + random.nextInt(5);
            int kind = random.nextInt(4);
            OrderEvent event;
            if (kind <= 1) {
                List<OrderLine> lines = new ArrayList<>();
                int count = 1 + random.nextInt(3);
                for (int l = 0; l < count; l++) {
                    String sku = random.nextInt(12) == 0 ? "sku-unknown" : SKUS.get(random.nextInt(SKUS.size()));
                    lines.add(new OrderLine(sku, 1 + random.nextInt(4), new BigDecimal("1.00")));
                }
                BigDecimal total = lines.stream()
                        .map(line -> line.unitPrice().multiply(BigDecimal.valueOf(line.quantity())))
                        .reduce(BigDecimal.ZERO, BigDecimal::add);
                event = new OrderCreated(orderId, "customer-1", "EUR", lines, total, "web");
            } else if (kind == 2) {
                event = new OrderCancelled(orderId, "changed my mind");
            } else {
                event = new OrderShipped(orderId, "carrier", "track-" + n);
            }
            EventEnvelope envelope = orders.wrap(event, UUID.randomUUID(), Instant.now(), "test", null);
            ConsumerRecord<String, byte[]> record =
                    new ConsumerRecord<>("orders", 0, n, orderId, orders.encode(envelope));
            events.add(new ConsumedEvent(record, envelope, event));
        }
        return events;
    }

    private static List<String> describe(List<ConsumedEvent> history) {
        return history.stream().map(e -> e.event().toString()).toList();
    }

    private interface Work {
        void run(Connection tx) throws Exception;
    }

    private void inTransaction(Work work) throws Exception {
        try {
            work.run(connection);
            connection.commit();
        } catch (Exception e) {
            connection.rollback();
            throw e;
        }
    }

    private void reset(List<Integer> onHand) throws Exception {
        inTransaction(tx -> {
            try (Statement statement = tx.createStatement()) {
                statement.execute("DELETE FROM reservations; DELETE FROM outbox");
            }
            try (PreparedStatement update =
                    tx.prepareStatement("UPDATE stock SET on_hand = ?, reserved = 0 WHERE sku = ?")) {
                for (int i = 0; i < SKUS.size(); i++) {
                    update.setInt(1, onHand.get(i));
                    update.setString(2, SKUS.get(i));
                    update.addBatch();
                }
                update.executeBatch();
            }
        });
    }

    /** Every reservation, line, touched stock row and published outcome, as comparable lines. */
    private List<String> state() throws SQLException {
        List<String> state = new ArrayList<>();
        try (Statement statement = connection.createStatement()) {
            rows(
                    statement,
                    "SELECT order_id, status, reason, short_skus::text FROM reservations ORDER BY order_id",
                    4,
                    state);
            rows(
                    statement,
                    "SELECT order_id, l.sku, l.quantity FROM reservations,"
                            + " unnest(line_skus, line_quantities) AS l (sku, quantity) ORDER BY order_id, l.sku",
                    3,
                    state);
            rows(statement, "SELECT sku, on_hand, reserved FROM stock WHERE sku LIKE 'sku-_' ORDER BY sku", 3, state);
            try (ResultSet rows =
                    statement.executeQuery("SELECT aggregate_id, payload FROM outbox ORDER BY aggregate_id")) {
                while (rows.next()) {
                    EventEnvelope envelope = outcomes.decode(rows.getString(2).getBytes(StandardCharsets.UTF_8));
                    state.add("outbox " + rows.getString(1) + " " + outcomes.decodePayload(envelope));
                }
            }
            connection.commit();
        }
        return state;
    }

    private static void rows(Statement statement, String query, int columns, List<String> into) throws SQLException {
        try (ResultSet rows = statement.executeQuery(query)) {
            while (rows.next()) {
                StringBuilder line = new StringBuilder();
                for (int c = 1; c <= columns; c++) {
                    line.append(rows.getString(c)).append(' ');
                }
                into.add(line.toString().trim());
            }
        }
    }
}
