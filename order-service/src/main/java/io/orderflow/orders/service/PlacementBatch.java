package io.orderflow.orders.service;

import io.orderflow.contracts.EventEnvelope;
import io.orderflow.orders.domain.IdempotencyKeyReusedException;
import io.orderflow.orders.domain.Order;
import io.orderflow.orders.domain.OrderItem;
import io.orderflow.orders.outbox.OrderLocks;
import io.orderflow.orders.outbox.OutboxWriter;
import io.orderflow.orders.service.IdempotencyKeys.KnownKey;
import io.orderflow.outbox.HeldAggregateLocks;
import io.orderflow.outbox.OutboxInsert;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Writes a batch of order placements in one database transaction: the creating half of the transactional outbox, at
 * a cost per order that does not grow with the number of statements (application-level group commit).
 *
 * <p><b>Statements</b>, in this order, each executed once per batch however many orders it holds (inserts as JDBC
 * batches, which the driver sends as multi-row INSERTs with {@code reWriteBatchedInserts}):
 * <ol>
 *   <li>the advisory locks of every order the batch may create ({@link OrderLocks#acquireAll}): the outbox rule's
 *       first statement, before any write;
 *   <li>if any request has an idempotency key: the keys' locks, forgetting expired keys, and the lookup
 *       ({@link IdempotencyKeys#lockAndFind});
 *   <li>the new orders, their lines, their keys and one OrderCreated outbox row each, at version 1.
 * </ol>
 * The caller commits. Each order's row and its outbox row are in the same transaction, which is all the outbox
 * needs; that other orders share it changes nothing for the relay (it publishes in commit order, see
 * {@code libs/outbox/README.md}).
 *
 * <p><b>Idempotency keys within a batch</b> are decided in request order, as if the requests had been written one after
 * the other: the first request with a new key creates, a later one with the same key and request replays the order
 * the first created, and one with another request is refused.
 *
 * <p><b>Failure.</b> Any {@link SQLException} leaves the transaction to be rolled back by the caller, with nothing
 * written for any request of the batch. Thread-safe (stateless); a batch belongs to the calling thread's connection.
 */
@ApplicationScoped
public class PlacementBatch {

    /** A new order's row (parameters: id, customer, currency, channel, status, total, created and updated at). */
    public static final String INSERT_ORDER_SQL =
            "INSERT INTO orders (id, customer_id, currency, channel, status, total,"
                    + " version, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, 1, ?, ?)";

    /** One line of a new order (parameters: order id, line number, SKU, quantity, unit price). */
    public static final String INSERT_LINE_SQL =
            "INSERT INTO order_lines (order_id, line_no, sku, quantity, unit_price) VALUES (?, ?, ?, ?, ?)";

    private final IdempotencyKeys keys;
    private final OutboxWriter outbox;

    PlacementBatch(IdempotencyKeys keys, OutboxWriter outbox) {
        this.keys = keys;
        this.outbox = outbox;
    }

    /**
     * Writes {@code requests} at {@code now} in {@code connection}'s current transaction (auto-commit off) and returns
     * the outcome of each, in the same order. Nothing of it is true until the caller commits.
     */
    List<PlacementOutcome> write(Connection connection, List<PlacementRequest> requests, Instant now)
            throws SQLException {
        HeldAggregateLocks locks = OrderLocks.acquireAll(
                connection, requests.stream().map(PlacementRequest::orderId).toList());
        Map<String, KnownKey> known = new HashMap<>(lookUpKeys(connection, requests, now));
        List<PlacementOutcome> outcomes = new ArrayList<>(requests.size());
        List<Creation> creations = new ArrayList<>(requests.size());
        List<KnownKey> newKeys = new ArrayList<>();
        for (PlacementRequest request : requests) {
            KnownKey earlier = request.idempotencyKey() == null ? null : known.get(request.idempotencyKey());
            if (earlier != null) {
                outcomes.add(
                        earlier.requestHash().equals(request.fingerprint())
                                ? new PlacementOutcome.Replayed(earlier.orderId())
                                : new PlacementOutcome.Refused(
                                        new IdempotencyKeyReusedException(earlier.key(), earlier.orderId())));
                continue;
            }
            Order order = Order.created(request.orderId(), request.order(), now);
            creations.add(new Creation(order, request.traceparent()));
            outcomes.add(new PlacementOutcome.Created(order));
            if (request.idempotencyKey() != null) {
                KnownKey key = new KnownKey(request.idempotencyKey(), request.fingerprint(), order.id());
                known.put(key.key(), key);
                newKeys.add(key);
            }
        }
        if (!creations.isEmpty()) {
            insertOrders(connection, creations);
            if (!newKeys.isEmpty()) {
                keys.recordAll(connection, newKeys, now);
            }
            insertOutboxRows(connection, locks, creations, now);
        }
        return outcomes;
    }

    private Map<String, KnownKey> lookUpKeys(Connection connection, List<PlacementRequest> requests, Instant now)
            throws SQLException {
        Set<String> requested = new LinkedHashSet<>();
        for (PlacementRequest request : requests) {
            if (request.idempotencyKey() != null) {
                requested.add(request.idempotencyKey());
            }
        }
        return requested.isEmpty() ? Map.of() : keys.lockAndFind(connection, requested, now);
    }

    /** An order this batch creates, and the trace context its OrderCreated carries. */
    private record Creation(Order order, String traceparent) {}

    private static void insertOrders(Connection connection, List<Creation> creations) throws SQLException {
        try (PreparedStatement insertOrder = connection.prepareStatement(INSERT_ORDER_SQL);
                PreparedStatement insertLine = connection.prepareStatement(INSERT_LINE_SQL)) {
            for (Creation creation : creations) {
                Order order = creation.order();
                OffsetDateTime createdAt = OffsetDateTime.ofInstant(order.createdAt(), ZoneOffset.UTC);
                insertOrder.setObject(1, order.id());
                insertOrder.setString(2, order.customerId());
                insertOrder.setString(3, order.currency());
                insertOrder.setString(4, order.channel());
                insertOrder.setString(5, order.status().name());
                insertOrder.setBigDecimal(6, order.total());
                insertOrder.setObject(7, createdAt);
                insertOrder.setObject(8, createdAt);
                insertOrder.addBatch();
                int lineNo = 1;
                for (OrderItem item : order.items()) {
                    insertLine.setObject(1, order.id());
                    insertLine.setInt(2, lineNo++);
                    insertLine.setString(3, item.sku());
                    insertLine.setInt(4, item.quantity());
                    insertLine.setBigDecimal(5, item.unitPrice());
                    insertLine.addBatch();
                }
            }
            insertOrder.executeBatch();
            insertLine.executeBatch();
        }
    }

    private void insertOutboxRows(
            Connection connection, HeldAggregateLocks locks, List<Creation> creations, Instant now)
            throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement(OutboxInsert.SQL)) {
            for (Creation creation : creations) {
                Order order = creation.order();
                EventEnvelope created = outbox.wrap(OrderEvents.created(order), now, creation.traceparent());
                OutboxInsert.bind(insert, locks, connection, outbox.entry(created, order.version()));
                insert.addBatch();
            }
            insert.executeBatch();
        }
    }
}
