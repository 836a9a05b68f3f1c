package io.orderflow.orders.outbox;

import io.orderflow.contracts.EventCodec;
import io.orderflow.contracts.EventEnvelope;
import io.orderflow.contracts.order.OrderEvent;
import io.orderflow.orders.config.OrderServiceConfig;
import io.orderflow.outbox.HeldAggregateLocks;
import io.orderflow.outbox.OutboxEntry;
import io.orderflow.outbox.OutboxInsert;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.transaction.TransactionSynchronizationRegistry;
import java.nio.charset.StandardCharsets;
import java.sql.PreparedStatement;
import java.time.Instant;
import java.util.Objects;
import java.util.UUID;
import org.hibernate.Session;

/**
 * Appends one event to the transactional outbox, in the caller's transaction: the port between order-service and
 * outbox-relay, through the outbox library's one INSERT ({@link OutboxInsert}), which takes a row only with its
 * order's lock from the same transaction.
 *
 * <p><b>The rule every writer follows.</b> In every transaction that writes an outbox row, the first statement is
 * {@code SELECT pg_advisory_xact_lock(hashtextextended(:orderId, 0))} for the order the row is about
 * ({@link OrderLocks#acquire}), executed before any write in that transaction. Then the order is read, the transition
 * checked, the order row written (version + 1) and exactly one outbox row inserted, and the transaction commits.
 * Creation follows the same rule with the new order's id: lock, then the order, its lines, its idempotency key and its
 * outbox row.
 *
 * <p><b>Why.</b> PostgreSQL gives a transaction its id (xid, here {@code tx_id}) at its first write, not at BEGIN.
 * Holding the order's lock before the first write means that of two transactions changing the same order, the second
 * cannot get its xid until the first has committed or rolled back, so an order's outbox rows have increasing
 * {@code tx_id}s in the order of their versions. The relay publishes pending rows in {@code (tx_id, id)} order (see
 * {@code libs/outbox/README.md}), which then keeps each order's events in version order on its partition. A write before the lock (an INSERT of anything, a {@code SELECT ... FOR UPDATE}, a
 * {@code pg_current_xact_id()}) would let a later change of the order carry an older {@code tx_id} and be published
 * first. The test {@code OrderLockingTest} checks this ordering on a real PostgreSQL.
 *
 * <p>{@link #append} insists on the {@link HeldAggregateLocks} of the event's order taken in the current transaction;
 * that catches a forgotten lock, though not a write issued before it. Thread-safe (stateless).
 */
@ApplicationScoped
public class OutboxWriter {

    private final EntityManager entityManager;
    private final TransactionSynchronizationRegistry transactions;
    private final EventCodec codec;
    private final OrderServiceConfig config;

    OutboxWriter(
            EntityManager entityManager,
            TransactionSynchronizationRegistry transactions,
            EventCodec codec,
            OrderServiceConfig config) {
        this.entityManager = entityManager;
        this.transactions = transactions;
        this.codec = codec;
        this.config = config;
    }

    /**
     * Wraps {@code event} in an envelope of its type's current version with a new event id, and inserts it as the
     * outbox row of {@code aggregateVersion} (the order's version after the change). {@code traceparent} may be null.
     * Returns the envelope, whose encoding is the row's payload byte for byte.
     */
    public EventEnvelope append(
            HeldAggregateLocks lock, long aggregateVersion, OrderEvent event, Instant occurredAt, String traceparent) {
        Objects.requireNonNull(lock, "lock");
        EventEnvelope envelope = wrap(event, occurredAt, traceparent);
        Object transaction = transactions.getTransactionKey();
        entityManager.unwrap(Session.class).doWork(connection -> {
            try (PreparedStatement insert = connection.prepareStatement(OutboxInsert.SQL)) {
                OutboxInsert.bind(insert, lock, transaction, entry(envelope, aggregateVersion));
                insert.executeUpdate();
            }
        });
        return envelope;
    }

    /** {@code event} in an envelope of its type's current version, with a new event id. */
    public EventEnvelope wrap(OrderEvent event, Instant occurredAt, String traceparent) {
        return codec.wrap(event, UUID.randomUUID(), occurredAt, config.producer(), traceparent);
    }

    /**
     * {@code envelope} as the outbox row of {@code aggregateVersion}, its payload the envelope's encoding byte for
     * byte; for writers that batch rows through {@link OutboxInsert} themselves, under the same rule.
     */
    public OutboxEntry entry(EventEnvelope envelope, long aggregateVersion) {
        return new OutboxEntry(
                envelope.eventId(),
                envelope.orderId(),
                aggregateVersion,
                envelope.eventType(),
                envelope.eventVersion().toString(),
                new String(codec.encode(envelope), StandardCharsets.UTF_8),
                envelope.traceparent(),
                envelope.occurredAt());
    }
}
