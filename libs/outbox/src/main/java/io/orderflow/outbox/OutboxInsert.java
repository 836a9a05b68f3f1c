package io.orderflow.outbox;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

/**
 * The one INSERT of an outbox row, for every writer: services in their own transaction, the benchmarks, the tests.
 * {@code id} (identity) and {@code tx_id} ({@code pg_current_xact_id()}) are left to their defaults, as are
 * {@code created_at} and the relay's columns.
 *
 * <p>{@link #bind} takes a row only with the lock of its aggregate taken in the current transaction
 * ({@link AggregateLocks}): that catches a writer that forgot the lock, though not one that wrote before taking it.
 * Prepare {@link #SQL} once and bind it per row (executing each, or batching), or prepare {@link #SQL_MANY} and bind
 * many rows at once with {@link #bindAll}: one statement, one execution, rows in the given order. Thread-safe
 * (stateless).
 */
public final class OutboxInsert {
    public static final String SQL = "INSERT INTO outbox (event_id, aggregate_id, aggregate_version, event_type,"
            + " event_version, payload, traceparent, occurred_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)";

    /** The same INSERT for many rows: eight array parameters, one element per row, inserted in array order. */
    public static final String SQL_MANY = "INSERT INTO outbox (event_id, aggregate_id, aggregate_version, event_type,"
            + " event_version, payload, traceparent, occurred_at)"
            + " SELECT event_id, aggregate_id, aggregate_version, event_type, event_version, payload, traceparent,"
            + " occurred_at FROM unnest(?::uuid[], ?::text[], ?::bigint[], ?::text[], ?::text[], ?::text[], ?::text[],"
            + " ?::timestamptz[]) WITH ORDINALITY AS row (event_id, aggregate_id, aggregate_version, event_type,"
            + " event_version, payload, traceparent, occurred_at, n) ORDER BY n";

    private OutboxInsert() {}

    /**
     * Sets {@code insert}'s parameters ({@link #SQL_MANY} prepared) to {@code entries}, after checking each the way
     * {@link #bind} does: nothing is set if one of them is refused.
     */
    public static void bindAll(
            PreparedStatement insert, HeldAggregateLocks locks, Object currentTransaction, List<OutboxEntry> entries)
            throws SQLException {
        entries.forEach(entry -> check(locks, currentTransaction, entry));
        Connection connection = insert.getConnection();
        insert.setArray(1, connection.createArrayOf("uuid", column(entries, OutboxEntry::eventId)));
        insert.setArray(2, connection.createArrayOf("text", column(entries, OutboxEntry::aggregateId)));
        insert.setArray(3, connection.createArrayOf("bigint", column(entries, OutboxEntry::aggregateVersion)));
        insert.setArray(4, connection.createArrayOf("text", column(entries, OutboxEntry::eventType)));
        insert.setArray(5, connection.createArrayOf("text", column(entries, OutboxEntry::eventVersion)));
        insert.setArray(6, connection.createArrayOf("text", column(entries, OutboxEntry::payload)));
        insert.setArray(7, connection.createArrayOf("text", column(entries, OutboxEntry::traceparent)));
        // As ISO-8601 text, cast by the statement: exact to the microsecond, whatever the driver does with Instants.
        insert.setArray(
                8,
                connection.createArrayOf(
                        "text", column(entries, e -> e.occurredAt().toString())));
    }

    private static Object[] column(List<OutboxEntry> entries, Function<OutboxEntry, ?> field) {
        return entries.stream().map(field).toArray();
    }

    /**
     * Sets {@code insert}'s parameters ({@link #SQL} prepared) to {@code entry}, after checking that {@code locks}
     * covers its aggregate and were taken in {@code currentTransaction}.
     */
    public static void bind(
            PreparedStatement insert, HeldAggregateLocks locks, Object currentTransaction, OutboxEntry entry)
            throws SQLException {
        check(locks, currentTransaction, entry);
        insert.setObject(1, entry.eventId());
        insert.setString(2, entry.aggregateId());
        insert.setLong(3, entry.aggregateVersion());
        insert.setString(4, entry.eventType());
        insert.setString(5, entry.eventVersion());
        insert.setString(6, entry.payload());
        insert.setString(7, entry.traceparent());
        insert.setObject(8, OffsetDateTime.ofInstant(entry.occurredAt(), ZoneOffset.UTC));
    }

    private static void check(HeldAggregateLocks locks, Object currentTransaction, OutboxEntry entry) {
        if (!locks.covers(entry.aggregateId())) {
            throw new IllegalArgumentException("an outbox row of " + entry.aggregateId()
                    + " needs that aggregate's advisory lock, but the locks held are " + locks.aggregateIds());
        }
        if (!Objects.equals(locks.transactionKey(), currentTransaction)) {
            throw new IllegalStateException("the advisory lock of " + entry.aggregateId()
                    + " was taken in another transaction; take it again in this one before writing");
        }
    }
}
