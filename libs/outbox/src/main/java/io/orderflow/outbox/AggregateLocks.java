package io.orderflow.outbox;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Collection;
import java.util.Set;

/**
 * Takes aggregates' transaction-scoped advisory locks: {@code pg_advisory_xact_lock(hashtextextended(id, 0))}, one per
 * aggregate id (the outbox's {@code aggregate_id}). Every transaction that writes an outbox row takes the lock of the
 * row's aggregate as its first statement, before any write: PostgreSQL gives a transaction its id at its first write,
 * so two transactions changing one aggregate then get {@code tx_id}s in the order they changed it, and the relay,
 * publishing in {@code (tx_id, id)} order, keeps each aggregate's events in order (libs/outbox/README.md).
 *
 * <p>The locks are released when the transaction ends; there is no unlock. Two ids whose 64-bit hashes collide share a
 * lock: some waiting, never a wrong order. Thread-safe (stateless); the locks belong to the connection's transaction.
 */
public final class AggregateLocks {
    /** The locks of several aggregates in one statement: their ids as one {@code text[]} parameter. */
    public static final String LOCK_SQL = "SELECT pg_advisory_xact_lock(hashtextextended(id, 0)) FROM unnest(?) AS id";

    private AggregateLocks() {}

    /**
     * Blocks until {@code connection}'s current transaction (auto-commit off) holds the locks of every id; it must be
     * the transaction's first statement. {@code transactionKey} names that transaction for the token.
     */
    public static HeldAggregateLocks acquire(
            Connection connection, Collection<String> aggregateIds, Object transactionKey) throws SQLException {
        if (connection.getAutoCommit()) {
            throw new IllegalStateException(
                    "advisory locks of aggregates are transaction-scoped, but the connection is in auto-commit mode");
        }
        try (PreparedStatement lock = connection.prepareStatement(LOCK_SQL)) {
            lock.setArray(1, connection.createArrayOf("text", aggregateIds.toArray(String[]::new)));
            lock.execute();
        }
        return new HeldAggregateLocks(Set.copyOf(aggregateIds), transactionKey);
    }
}
