package io.orderflow.outbox;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Objects;

/**
 * The one INSERT of an outbox row, for every writer: services in their own transaction, the benchmarks, the tests.
 * {@code id} (identity) and {@code tx_id} ({@code pg_current_xact_id()}) are left to their defaults, as are
 * {@code created_at} and the relay's columns.
 *
 * <p>{@link #bind} takes a row only with the lock of its aggregate taken in the current transaction
 * ({@link AggregateLocks}): that catches a writer that forgot the lock, though not one that wrote before taking it.
 * Prepare {@link #SQL} once and bind it per row (executing each, or batching). Thread-safe (stateless).
 */
public final class OutboxInsert {
    public static final String SQL = "INSERT INTO outbox (event_id, aggregate_id, aggregate_version, event_type,"
            + " event_version, payload, traceparent, occurred_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)";

    private OutboxInsert() {}

    /**
     * Sets {@code insert}'s parameters ({@link #SQL} prepared) to {@code entry}, after checking that {@code locks}
     * covers its aggregate and were taken in {@code currentTransaction}.
     */
    public static void bind(
            PreparedStatement insert, HeldAggregateLocks locks, Object currentTransaction, OutboxEntry entry)
            throws SQLException {
        if (!locks.covers(entry.aggregateId())) {
            throw new IllegalArgumentException("an outbox row of " + entry.aggregateId()
                    + " needs that aggregate's advisory lock, but the locks held are " + locks.aggregateIds());
        }
        if (!Objects.equals(locks.transactionKey(), currentTransaction)) {
            throw new IllegalStateException("the advisory lock of " + entry.aggregateId()
                    + " was taken in another transaction; take it again in this one before writing");
        }
        insert.setObject(1, entry.eventId());
        insert.setString(2, entry.aggregateId());
        insert.setLong(3, entry.aggregateVersion());
        insert.setString(4, entry.eventType());
        insert.setString(5, entry.eventVersion());
        insert.setString(6, entry.payload());
        insert.setString(7, entry.traceparent());
        insert.setObject(8, OffsetDateTime.ofInstant(entry.occurredAt(), ZoneOffset.UTC));
    }
}
