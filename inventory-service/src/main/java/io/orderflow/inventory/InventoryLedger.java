package io.orderflow.inventory;

import io.orderflow.consumer.ConsumedEvent;
import io.orderflow.consumer.EventHandler;
import io.orderflow.contracts.EventCatalog;
import io.orderflow.contracts.EventCodec;
import io.orderflow.contracts.EventEnvelope;
import io.orderflow.contracts.order.OrderCancelled;
import io.orderflow.contracts.order.OrderCreated;
import io.orderflow.contracts.order.OrderEvent;
import io.orderflow.contracts.order.OrderShipped;
import io.orderflow.outbox.AggregateLocks;
import io.orderflow.outbox.HeldAggregateLocks;
import io.orderflow.outbox.OutboxEntry;
import io.orderflow.outbox.OutboxInsert;
import jakarta.inject.Inject;
import jakarta.inject.Singleton;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;

/**
 * Stock reservations from order events, correct whatever order an order's events arrive in (a retry takes an event out
 * of its key's order; libs/event-consumer/README.md):
 *
 * <ul>
 *   <li>{@code OrderCreated} reserves every line or none (short or unknown SKUs recorded) and publishes
 *       {@code InventoryReserved} or {@code InventoryRejected} through the outbox. If the order's cancellation came
 *       first it reserves nothing and publishes a rejection; if its shipment came first it reserves and deducts at once.
 *   <li>{@code OrderCancelled} releases a reservation; before the order is known it is remembered
 *       ({@code CANCELLED_FIRST}).
 *   <li>{@code OrderShipped} turns a reservation into a deduction; before the order is known it is remembered
 *       ({@code SHIPPED_FIRST}).
 * </ul>
 *
 * <p><b>A batch at once.</b> A batch reads what it needs in two statements (its reservations, each row with the lines the
 * order holds; the stock rows), decides every event in memory in record order ({@link ReservationBook}), and writes the
 * outcome in three: reservations with their lines, stock, outbox. One event is a batch of one, so both paths of
 * {@link EventHandler} run the same code.
 *
 * <p><b>Locks.</b> A batch takes its orders' advisory locks first (sorted; the outbox rule, and what serialises the main
 * and retry consumers on one order), then their reservation rows, then the stock rows it touches in SKU order, so
 * concurrent batches for one SKU wait for each other and never deadlock; the stock table's checks make an oversell
 * impossible regardless. Runs in the batch's transaction (the caller commits). Thread-safe (stateless apart from the
 * codec).
 */
@Singleton
public final class InventoryLedger implements EventHandler {

    static final String PRODUCER = "inventory-service";
    private static final Set<String> HANDLED = Set.of("OrderCreated", "OrderCancelled", "OrderShipped");

    // Keys as a joined unnest(), not "= ANY (?)": without statistics (a young table) the planner may scan the table
    // and test every row against every element; the join probes the primary key once per key instead.
    private static final String SELECT_RESERVATIONS = "SELECT r.order_id, r.status, r.line_skus, r.line_quantities"
            + " FROM unnest(?::text[]) AS k (order_id) JOIN reservations r ON r.order_id = k.order_id"
            + " ORDER BY r.order_id FOR UPDATE OF r";
    private static final String LOCK_STOCK = "SELECT s.sku, s.on_hand, s.reserved FROM unnest(?::text[]) AS k (sku)"
            + " JOIN stock s ON s.sku = k.sku ORDER BY s.sku FOR UPDATE OF s";
    // Short SKUs and lines arrive flattened, one (order, SKU) pair per element, and are regrouped per order by hashing:
    // a correlated subquery per order would compare every order with every line of the batch.
    private static final String UPSERT_RESERVATIONS = """
            WITH short AS (
                SELECT order_id, array_agg(sku ORDER BY n) AS skus
                FROM unnest(?::text[], ?::text[]) WITH ORDINALITY AS s (order_id, sku, n)
                GROUP BY order_id),
            held AS (
                SELECT order_id, array_agg(sku ORDER BY n) AS skus, array_agg(quantity ORDER BY n) AS quantities
                FROM unnest(?::text[], ?::text[], ?::integer[]) WITH ORDINALITY AS l (order_id, sku, quantity, n)
                GROUP BY order_id)
            INSERT INTO reservations (order_id, status, reason, short_skus, line_skus, line_quantities)
            SELECT r.order_id, r.status, r.reason, coalesce(short.skus, '{}'), coalesce(held.skus, '{}'),
                   coalesce(held.quantities, '{}')
            FROM unnest(?::text[], ?::text[], ?::text[]) AS r (order_id, status, reason)
            LEFT JOIN short ON short.order_id = r.order_id
            LEFT JOIN held ON held.order_id = r.order_id
            ON CONFLICT (order_id) DO UPDATE SET status = excluded.status, reason = excluded.reason,
                short_skus = excluded.short_skus, line_skus = excluded.line_skus,
                line_quantities = excluded.line_quantities, updated_at = clock_timestamp()
            """;
    private static final String UPDATE_STOCK = """
            UPDATE stock s SET on_hand = u.on_hand, reserved = u.reserved, updated_at = clock_timestamp()
            FROM unnest(?::text[], ?::integer[], ?::integer[]) AS u (sku, on_hand, reserved)
            WHERE s.sku = u.sku
            """;

    private final EventCodec outcomes = new EventCodec(EventCatalog.inventoryEvents());
    private final Clock clock;

    /** The service's ledger, on the system clock. */
    @Inject
    InventoryLedger() {
        this(Clock.systemUTC());
    }

    public InventoryLedger(Clock clock) {
        this.clock = clock;
    }

    @Override
    public boolean handles(String eventType) {
        return HANDLED.contains(eventType);
    }

    @Override
    public void apply(Connection tx, ConsumedEvent event) throws SQLException {
        applyAll(tx, List.of(event));
    }

    @Override
    public void applyAll(Connection tx, List<ConsumedEvent> events) throws SQLException {
        if (events.isEmpty()) {
            return;
        }
        Set<String> orderIds = new TreeSet<>();
        Set<String> skus = new TreeSet<>();
        for (ConsumedEvent event : events) {
            orderIds.add(event.event().orderId());
            if (event.event() instanceof OrderCreated created) {
                created.items().forEach(line -> skus.add(line.sku()));
            }
        }
        HeldAggregateLocks locks = AggregateLocks.acquire(tx, orderIds, tx);
        Map<String, String> statuses = new HashMap<>();
        Map<String, SortedMap<String, Integer>> lines = new HashMap<>();
        readReservations(tx, orderIds, statuses, lines);
        lines.forEach((orderId, held) -> {
            if (statuses.get(orderId).equals(ReservationBook.RESERVED)) {
                skus.addAll(held.keySet()); // what a cancellation releases or a shipment deducts
            }
        });
        ReservationBook book = new ReservationBook(statuses, lines, lockStock(tx, skus));
        List<OutboxEntry> published = new ArrayList<>();
        for (ConsumedEvent event : events) {
            switch (event.event()) {
                case OrderCreated created ->
                    book.created(created).ifPresent(outcome -> published.add(outboxEntry(event.envelope(), outcome)));
                case OrderCancelled cancelled -> book.cancelled(cancelled.orderId());
                case OrderShipped shipped -> book.shipped(shipped.orderId());
                default -> {
                    // handles() admits only the three types above.
                }
            }
        }
        writeReservations(tx, book.changedReservations());
        writeStock(tx, book.changedStock());
        if (!published.isEmpty()) {
            try (PreparedStatement insert = tx.prepareStatement(OutboxInsert.SQL_MANY)) {
                OutboxInsert.bindAll(insert, locks, tx, published);
                insert.executeUpdate();
            }
        }
    }

    /** Locks the reservation rows of {@code orderIds}; fills in the status and lines of each that exists. */
    private static void readReservations(
            Connection tx,
            Set<String> orderIds,
            Map<String, String> statuses,
            Map<String, SortedMap<String, Integer>> lines)
            throws SQLException {
        try (PreparedStatement select = tx.prepareStatement(SELECT_RESERVATIONS)) {
            select.setArray(1, tx.createArrayOf("text", orderIds.toArray()));
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    String orderId = rows.getString(1);
                    statuses.put(orderId, rows.getString(2));
                    String[] skus = (String[]) rows.getArray(3).getArray();
                    Integer[] quantities = (Integer[]) rows.getArray(4).getArray();
                    SortedMap<String, Integer> held = new TreeMap<>();
                    for (int i = 0; i < skus.length; i++) {
                        held.put(skus[i], quantities[i]);
                    }
                    lines.put(orderId, held);
                }
            }
        }
    }

    /** Locks the stock rows of {@code skus} in SKU order; returns those that exist. */
    private static Map<String, ReservationBook.Stock> lockStock(Connection tx, Set<String> skus) throws SQLException {
        Map<String, ReservationBook.Stock> stock = new HashMap<>();
        if (skus.isEmpty()) {
            return stock;
        }
        try (PreparedStatement select = tx.prepareStatement(LOCK_STOCK)) {
            select.setArray(1, tx.createArrayOf("text", skus.toArray()));
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    stock.put(rows.getString(1), new ReservationBook.Stock(rows.getInt(2), rows.getInt(3)));
                }
            }
        }
        return stock;
    }

    private static void writeReservations(Connection tx, Map<String, ReservationBook.Decision> decisions)
            throws SQLException {
        if (decisions.isEmpty()) {
            return;
        }
        List<String> shortOrders = new ArrayList<>();
        List<String> shortSkus = new ArrayList<>();
        List<String> lineOrders = new ArrayList<>();
        List<String> lineSkus = new ArrayList<>();
        List<Integer> lineQuantities = new ArrayList<>();
        decisions.forEach((orderId, decision) -> {
            decision.shortSkus().forEach(sku -> {
                shortOrders.add(orderId);
                shortSkus.add(sku);
            });
            decision.lines().forEach((sku, quantity) -> {
                lineOrders.add(orderId);
                lineSkus.add(sku);
                lineQuantities.add(quantity);
            });
        });
        try (PreparedStatement upsert = tx.prepareStatement(UPSERT_RESERVATIONS)) {
            upsert.setArray(1, tx.createArrayOf("text", shortOrders.toArray()));
            upsert.setArray(2, tx.createArrayOf("text", shortSkus.toArray()));
            upsert.setArray(3, tx.createArrayOf("text", lineOrders.toArray()));
            upsert.setArray(4, tx.createArrayOf("text", lineSkus.toArray()));
            upsert.setArray(5, tx.createArrayOf("integer", lineQuantities.toArray()));
            upsert.setArray(6, tx.createArrayOf("text", decisions.keySet().toArray()));
            upsert.setArray(
                    7,
                    tx.createArrayOf(
                            "text",
                            decisions.values().stream()
                                    .map(ReservationBook.Decision::status)
                                    .toArray()));
            upsert.setArray(
                    8,
                    tx.createArrayOf(
                            "text",
                            decisions.values().stream()
                                    .map(ReservationBook.Decision::reason)
                                    .toArray()));
            upsert.executeUpdate();
        }
    }

    private static void writeStock(Connection tx, Map<String, ReservationBook.Stock> stock) throws SQLException {
        if (stock.isEmpty()) {
            return;
        }
        try (PreparedStatement update = tx.prepareStatement(UPDATE_STOCK)) {
            update.setArray(1, tx.createArrayOf("text", stock.keySet().toArray()));
            update.setArray(
                    2,
                    tx.createArrayOf(
                            "integer",
                            stock.values().stream()
                                    .map(ReservationBook.Stock::onHand)
                                    .toArray()));
            update.setArray(
                    3,
                    tx.createArrayOf(
                            "integer",
                            stock.values().stream()
                                    .map(ReservationBook.Stock::reserved)
                                    .toArray()));
            update.executeUpdate();
        }
    }

    /** The order's one inventory outcome (aggregate version 1), carrying the trace of the event that caused it. */
    private OutboxEntry outboxEntry(EventEnvelope cause, OrderEvent outcome) {
        EventEnvelope envelope =
                outcomes.wrap(outcome, UUID.randomUUID(), clock.instant(), PRODUCER, cause.traceparent());
        return new OutboxEntry(
                envelope.eventId(),
                outcome.orderId(),
                1,
                envelope.eventType(),
                envelope.eventVersion().toString(),
                new String(outcomes.encode(envelope), StandardCharsets.UTF_8),
                envelope.traceparent(),
                envelope.occurredAt());
    }
}
