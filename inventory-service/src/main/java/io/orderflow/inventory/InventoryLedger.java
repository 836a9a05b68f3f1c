package io.orderflow.inventory;

import io.orderflow.consumer.ConsumedEvent;
import io.orderflow.consumer.EventHandler;
import io.orderflow.contracts.EventCatalog;
import io.orderflow.contracts.EventCodec;
import io.orderflow.contracts.EventEnvelope;
import io.orderflow.contracts.inventory.InventoryRejected;
import io.orderflow.contracts.inventory.InventoryReserved;
import io.orderflow.contracts.inventory.ReservedLine;
import io.orderflow.contracts.order.OrderCancelled;
import io.orderflow.contracts.order.OrderCreated;
import io.orderflow.contracts.order.OrderEvent;
import io.orderflow.contracts.order.OrderLine;
import io.orderflow.contracts.order.OrderShipped;
import io.orderflow.outbox.AggregateLocks;
import io.orderflow.outbox.HeldAggregateLocks;
import io.orderflow.outbox.OutboxEntry;
import io.orderflow.outbox.OutboxInsert;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;

/**
 * Stock reservations from order events, correct whatever order an order's events arrive in (a retry takes an event out
 * of its key's order; docs/consumers.md):
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
 * <p>Every event takes the order's advisory lock first (the outbox rule, and what serialises the main and retry
 * consumers on one order), then the order's row, then the stock rows in SKU order, so concurrent orders for one SKU
 * wait for each other and never deadlock; the stock table's checks make an oversell impossible regardless. Runs in the
 * batch's transaction (the caller commits). Thread-safe (stateless apart from the codec).
 */
public final class InventoryLedger implements EventHandler {

    static final String PRODUCER = "inventory-service";
    private static final Set<String> HANDLED = Set.of("OrderCreated", "OrderCancelled", "OrderShipped");

    private final EventCodec outcomes = new EventCodec(EventCatalog.inventoryEvents());
    private final Clock clock;

    public InventoryLedger(Clock clock) {
        this.clock = clock;
    }

    @Override
    public boolean handles(String eventType) {
        return HANDLED.contains(eventType);
    }

    @Override
    public void apply(Connection tx, ConsumedEvent consumed) throws SQLException {
        OrderEvent event = consumed.event();
        HeldAggregateLocks locks = AggregateLocks.acquire(tx, List.of(event.orderId()), tx);
        Optional<String> status = status(tx, event.orderId());
        switch (event) {
            case OrderCreated created -> created(tx, locks, consumed.envelope(), created, status);
            case OrderCancelled cancelled -> cancelled(tx, cancelled.orderId(), status);
            case OrderShipped shipped -> shipped(tx, shipped.orderId(), status);
            default -> {
                // handles() admits only the three types above.
            }
        }
    }

    private void created(
            Connection tx,
            HeldAggregateLocks locks,
            EventEnvelope envelope,
            OrderCreated order,
            Optional<String> status)
            throws SQLException {
        if (status.isPresent() && !status.get().equals("SHIPPED_FIRST")) {
            if (status.get().equals("CANCELLED_FIRST")) {
                String reason = "cancelled before it was reserved";
                upsertStatus(tx, order.orderId(), "REJECTED", reason, List.of());
                publish(tx, locks, envelope, new InventoryRejected(order.orderId(), reason, List.of()));
            }
            return; // already decided: another OrderCreated of the same order changes nothing
        }
        Map<String, Integer> wanted = new TreeMap<>();
        for (OrderLine line : order.items()) {
            wanted.merge(line.sku(), line.quantity(), Integer::sum);
        }
        Map<String, Integer> available = lockStock(tx, wanted.keySet());
        List<String> shortSkus = new ArrayList<>();
        wanted.forEach((sku, quantity) -> {
            if (available.getOrDefault(sku, -1) < quantity) {
                shortSkus.add(sku);
            }
        });
        if (!shortSkus.isEmpty()) {
            String reason = "not enough stock of " + String.join(", ", shortSkus);
            upsertStatus(tx, order.orderId(), "REJECTED", reason, shortSkus);
            publish(tx, locks, envelope, new InventoryRejected(order.orderId(), reason, shortSkus));
            return;
        }
        boolean shippedFirst = status.isPresent();
        upsertStatus(tx, order.orderId(), shippedFirst ? "DEDUCTED" : "RESERVED", null, List.of());
        try (PreparedStatement reserve = tx.prepareStatement(
                        shippedFirst
                                ? "UPDATE stock SET on_hand = on_hand - ?, updated_at = clock_timestamp() WHERE sku = ?"
                                : "UPDATE stock SET reserved = reserved + ?, updated_at = clock_timestamp() WHERE sku = ?");
                PreparedStatement line = tx.prepareStatement(
                        "INSERT INTO reservation_lines (order_id, sku, quantity) VALUES (?, ?, ?)")) {
            for (Map.Entry<String, Integer> entry : wanted.entrySet()) {
                reserve.setInt(1, entry.getValue());
                reserve.setString(2, entry.getKey());
                reserve.addBatch();
                line.setString(1, order.orderId());
                line.setString(2, entry.getKey());
                line.setInt(3, entry.getValue());
                line.addBatch();
            }
            reserve.executeBatch();
            line.executeBatch();
        }
        List<ReservedLine> lines = wanted.entrySet().stream()
                .map(e -> new ReservedLine(e.getKey(), e.getValue()))
                .toList();
        publish(tx, locks, envelope, new InventoryReserved(order.orderId(), lines));
    }

    private void cancelled(Connection tx, String orderId, Optional<String> status) throws SQLException {
        if (status.isEmpty()) {
            upsertStatus(tx, orderId, "CANCELLED_FIRST", null, List.of());
        } else if (status.get().equals("RESERVED")) {
            moveStock(tx, orderId, "reserved = reserved - l.quantity");
            upsertStatus(tx, orderId, "RELEASED", null, List.of());
        }
    }

    private void shipped(Connection tx, String orderId, Optional<String> status) throws SQLException {
        if (status.isEmpty()) {
            upsertStatus(tx, orderId, "SHIPPED_FIRST", null, List.of());
        } else if (status.get().equals("RESERVED")) {
            moveStock(tx, orderId, "on_hand = on_hand - l.quantity, reserved = reserved - l.quantity");
            upsertStatus(tx, orderId, "DEDUCTED", null, List.of());
        }
    }

    private static Optional<String> status(Connection tx, String orderId) throws SQLException {
        try (PreparedStatement select =
                tx.prepareStatement("SELECT status FROM reservations WHERE order_id = ? FOR UPDATE")) {
            select.setString(1, orderId);
            try (ResultSet row = select.executeQuery()) {
                return row.next() ? Optional.of(row.getString(1)) : Optional.empty();
            }
        }
    }

    /** Locks the stock rows of {@code skus} in SKU order; returns what is available of each that exists. */
    private static Map<String, Integer> lockStock(Connection tx, Set<String> skus) throws SQLException {
        Map<String, Integer> available = new TreeMap<>();
        try (PreparedStatement select = tx.prepareStatement(
                "SELECT sku, on_hand - reserved FROM stock" + " WHERE sku = ANY (?) ORDER BY sku FOR UPDATE")) {
            select.setArray(1, tx.createArrayOf("text", skus.toArray()));
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    available.put(rows.getString(1), rows.getInt(2));
                }
            }
        }
        return available;
    }

    /** Applies {@code assignment} to the stock of every line of the order (stock rows locked in SKU order). */
    private static void moveStock(Connection tx, String orderId, String assignment) throws SQLException {
        try (PreparedStatement lock = tx.prepareStatement("SELECT s.sku FROM stock s JOIN reservation_lines l"
                        + " ON l.sku = s.sku WHERE l.order_id = ? ORDER BY s.sku FOR UPDATE OF s");
                PreparedStatement update = tx.prepareStatement("UPDATE stock s SET " + assignment
                        + ", updated_at = clock_timestamp() FROM reservation_lines l"
                        + " WHERE l.order_id = ? AND l.sku = s.sku")) {
            lock.setString(1, orderId);
            lock.executeQuery().close();
            update.setString(1, orderId);
            update.executeUpdate();
        }
    }

    private static void upsertStatus(Connection tx, String orderId, String status, String reason, List<String> skus)
            throws SQLException {
        try (PreparedStatement upsert = tx.prepareStatement("INSERT INTO reservations (order_id, status, reason,"
                + " short_skus) VALUES (?, ?, ?, ?) ON CONFLICT (order_id) DO UPDATE SET status = excluded.status,"
                + " reason = excluded.reason, short_skus = excluded.short_skus, updated_at = clock_timestamp()")) {
            upsert.setString(1, orderId);
            upsert.setString(2, status);
            upsert.setString(3, reason);
            upsert.setArray(4, tx.createArrayOf("text", skus.toArray()));
            upsert.executeUpdate();
        }
    }

    /** The order's one inventory outcome (aggregate version 1), through the outbox, carrying the trace on. */
    private void publish(Connection tx, HeldAggregateLocks locks, EventEnvelope cause, OrderEvent outcome)
            throws SQLException {
        EventEnvelope envelope =
                outcomes.wrap(outcome, UUID.randomUUID(), clock.instant(), PRODUCER, cause.traceparent());
        try (PreparedStatement insert = tx.prepareStatement(OutboxInsert.SQL)) {
            OutboxInsert.bind(
                    insert,
                    locks,
                    tx,
                    new OutboxEntry(
                            envelope.eventId(),
                            outcome.orderId(),
                            1,
                            envelope.eventType(),
                            envelope.eventVersion().toString(),
                            new String(outcomes.encode(envelope), StandardCharsets.UTF_8),
                            envelope.traceparent(),
                            envelope.occurredAt()));
            insert.executeUpdate();
        }
    }
}
