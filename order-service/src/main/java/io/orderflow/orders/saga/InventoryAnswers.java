package io.orderflow.orders.saga;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.orderflow.consumer.ConsumedEvent;
import io.orderflow.consumer.EventHandler;
import io.orderflow.contracts.inventory.InventoryRejected;
import io.orderflow.contracts.inventory.InventoryReserved;
import io.orderflow.contracts.order.OrderConfirmed;
import io.orderflow.contracts.order.OrderEvent;
import io.orderflow.contracts.order.OrderRejected;
import io.orderflow.orders.domain.OrderStatus;
import io.orderflow.orders.domain.OrderTransition;
import io.orderflow.orders.outbox.OutboxWriter;
import io.orderflow.outbox.AggregateLocks;
import io.orderflow.outbox.HeldAggregateLocks;
import io.orderflow.outbox.OutboxEntry;
import io.orderflow.outbox.OutboxInsert;
import jakarta.inject.Singleton;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.UUID;
import org.jboss.logging.Logger;

/**
 * The saga's step in order-service: inventory's answer moves the order on. {@code InventoryReserved} confirms a
 * {@code CREATED} order ({@link OrderTransition#CONFIRM}, OrderConfirmed); {@code InventoryRejected} rejects it
 * ({@link OrderTransition#REJECT}, OrderRejected with inventory's reason and short SKUs, both kept on the order). The
 * whole saga, with every event and what happens on a duplicate, a reorder and a crash, is docs/saga.md.
 *
 * <p><b>What an answer changes.</b> Only a {@code CREATED} order moves. An answer for an order that has moved already
 * changes nothing and publishes nothing: a cancellation that crossed a reservation in flight (inventory releases the
 * units when it reads the OrderCancelled, which follows the OrderCreated on the order's partition), or a second answer
 * for one order (a re-driven OrderCreated that inventory answered again). An answer for an order this service does not
 * have (an OrderCreated written to {@code orders} by another producer, such as the load generator's records at older
 * event versions) is skipped and counted ({@code orderflow.saga.answers.unknown.orders}); an order id that is not a UUID
 * cannot be an order of this service either.
 *
 * <p><b>One batch, one transaction, a few statements.</b> Runs in the consumer's batch transaction (event-consumer's
 * {@code EventBatchProcessor}, which claims each event id once): the orders' advisory locks first
 * ({@link #lockFirst}, the outbox rule of {@link OutboxWriter}, taken before the claim writes), then one read of the
 * batch's orders, the decisions in memory in record order, one batched UPDATE guarded by each order's read version, and
 * one INSERT of the outbox rows. The advisory lock also serialises an answer with the API's pay and cancel of the same
 * order. Thread-safe (stateless apart from the counter).
 */
@Singleton
public class InventoryAnswers implements EventHandler {

    private static final Logger LOG = Logger.getLogger(InventoryAnswers.class);
    private static final Set<String> HANDLED = Set.of("InventoryReserved", "InventoryRejected");
    private static final String SELECT_ORDERS =
            "SELECT o.id, o.status, o.version FROM unnest(?::uuid[]) AS k (id)" + " JOIN orders o ON o.id = k.id";
    private static final String UPDATE_ORDER = "UPDATE orders SET status = ?, version = ?, updated_at = ?,"
            + " rejection_reason = ?, short_skus = ? WHERE id = ? AND version = ?";

    private final OutboxWriter outbox;
    private final Clock clock;
    private final Counter unknownOrders;

    InventoryAnswers(OutboxWriter outbox, Clock clock, MeterRegistry registry) {
        this.outbox = outbox;
        this.clock = clock;
        this.unknownOrders = Counter.builder("orderflow.saga.answers.unknown.orders")
                .description("Inventory answers for orders this service does not have, skipped")
                .register(registry);
    }

    @Override
    public boolean handles(String eventType) {
        return HANDLED.contains(eventType);
    }

    @Override
    public void lockFirst(Connection transaction, List<ConsumedEvent> events) throws SQLException {
        locks(transaction, events);
    }

    @Override
    public void apply(Connection transaction, ConsumedEvent event) throws SQLException {
        applyAll(transaction, List.of(event));
    }

    @Override
    public void applyAll(Connection transaction, List<ConsumedEvent> events) throws SQLException {
        if (events.isEmpty()) {
            return;
        }
        HeldAggregateLocks locks = locks(transaction, events);
        Map<UUID, Current> orders = read(transaction, events);
        Map<UUID, Change> changes = new LinkedHashMap<>();
        List<OutboxEntry> published = new ArrayList<>();
        Instant now = clock.instant();
        for (ConsumedEvent event : events) {
            UUID orderId = orderId(event.event().orderId());
            Current order = orderId == null ? null : orders.get(orderId);
            if (order == null) {
                unknownOrders.increment();
                LOG.debugf(
                        "%s for order %s, which this service does not have: skipped",
                        event.envelope().eventType(), event.event().orderId());
                continue;
            }
            if (order.status() != OrderStatus.CREATED) {
                LOG.debugf(
                        "%s for order %s, which is %s already: changes nothing",
                        event.envelope().eventType(), orderId, order.status());
                continue;
            }
            Change change = decide(orderId, order, event.event());
            orders.put(orderId, new Current(change.status(), change.version()));
            changes.put(orderId, change);
            published.add(outbox.entry(
                    outbox.wrap(change.event(), now, event.envelope().traceparent()), change.version()));
        }
        if (changes.isEmpty()) {
            return;
        }
        write(transaction, changes.values(), now);
        try (PreparedStatement insert = transaction.prepareStatement(OutboxInsert.SQL_MANY)) {
            OutboxInsert.bindAll(insert, locks, transaction, published);
            insert.executeUpdate();
        }
    }

    /** A CREATED order's next state after {@code answer}, and the event that records it. */
    private static Change decide(UUID orderId, Current order, OrderEvent answer) {
        long version = order.version() + 1;
        return switch (answer) {
            case InventoryReserved reserved ->
                new Change(
                        orderId,
                        OrderTransition.CONFIRM.applyTo(orderId, order.status()),
                        order.version(),
                        version,
                        null,
                        null,
                        new OrderConfirmed(reserved.orderId()));
            case InventoryRejected rejected ->
                new Change(
                        orderId,
                        OrderTransition.REJECT.applyTo(orderId, order.status()),
                        order.version(),
                        version,
                        rejected.reason(),
                        rejected.shortSkus(),
                        new OrderRejected(rejected.orderId(), rejected.reason(), rejected.shortSkus()));
            default ->
                throw new IllegalArgumentException(
                        "not an inventory answer: " + answer.getClass().getName());
        };
    }

    /** Takes the advisory locks of the batch's orders, in id order; repeated, it takes nothing new. */
    private static HeldAggregateLocks locks(Connection transaction, List<ConsumedEvent> events) throws SQLException {
        List<String> ids = orderIds(events).stream().map(UUID::toString).toList();
        return AggregateLocks.acquire(transaction, ids, transaction);
    }

    /** The batch's order ids, in order; an id that is not a UUID is no order of this service and is left out. */
    private static SortedSet<UUID> orderIds(List<ConsumedEvent> events) {
        SortedSet<UUID> ids = new TreeSet<>();
        for (ConsumedEvent event : events) {
            UUID orderId = orderId(event.event().orderId());
            if (orderId != null) {
                ids.add(orderId);
            }
        }
        return ids;
    }

    private static Map<UUID, Current> read(Connection transaction, List<ConsumedEvent> events) throws SQLException {
        SortedSet<UUID> ids = orderIds(events);
        Map<UUID, Current> orders = new HashMap<>();
        try (PreparedStatement select = transaction.prepareStatement(SELECT_ORDERS)) {
            select.setArray(1, transaction.createArrayOf("uuid", ids.toArray()));
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    orders.put(
                            rows.getObject(1, UUID.class),
                            new Current(OrderStatus.valueOf(rows.getString(2)), rows.getLong(3)));
                }
            }
        }
        return orders;
    }

    private static void write(Connection transaction, Iterable<Change> changes, Instant now) throws SQLException {
        List<Change> written = new ArrayList<>();
        try (PreparedStatement update = transaction.prepareStatement(UPDATE_ORDER)) {
            for (Change change : changes) {
                update.setString(1, change.status().name());
                update.setLong(2, change.version());
                update.setTimestamp(3, Timestamp.from(now));
                update.setString(4, change.reason());
                update.setArray(
                        5,
                        change.shortSkus() == null
                                ? null
                                : transaction.createArrayOf(
                                        "text", change.shortSkus().toArray()));
                update.setObject(6, change.orderId());
                update.setLong(7, change.readVersion());
                update.addBatch();
                written.add(change);
            }
            int[] counts = update.executeBatch();
            for (int i = 0; i < counts.length; i++) {
                if (counts[i] == 0) {
                    // Impossible under the advisory lock; a lost update must fail the batch, never pass silently.
                    throw new IllegalStateException("order " + written.get(i).orderId()
                            + " changed while its lock was held; the batch is rolled back");
                }
            }
        }
    }

    /** {@code text} as an order id, or null if it is not a UUID (then it is no order of this service). */
    private static UUID orderId(String text) {
        try {
            return UUID.fromString(text);
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    private record Current(OrderStatus status, long version) {}

    private record Change(
            UUID orderId,
            OrderStatus status,
            long readVersion,
            long version,
            String reason,
            List<String> shortSkus,
            OrderEvent event) {}
}
