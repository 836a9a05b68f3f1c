package io.orderflow.orders.outbox;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.transaction.Status;
import jakarta.transaction.TransactionSynchronizationRegistry;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;
import java.util.UUID;
import org.hibernate.Session;

/**
 * Takes an order's transaction-scoped advisory lock: {@code SELECT pg_advisory_xact_lock(hashtextextended(:orderId,
 * 0))}, the order id as its canonical lower-case text (the outbox's {@code aggregate_id}). Why every transaction that
 * writes an outbox row must call this first, before any write, is the design note of {@link OutboxWriter}.
 *
 * <p>The lock is released when the transaction ends, by commit or rollback; there is no unlock. Waiting for it has no
 * timeout of its own: it lasts as long as the holder's transaction, which only runs a handful of short statements.
 * Two ids whose 64-bit hashes collide share a lock; that costs some waiting, never correctness.
 *
 * <p>Thread-safe (stateless); the lock belongs to the calling thread's transaction.
 */
@ApplicationScoped
public class OrderLocks {

    static final String LOCK_SQL = "SELECT pg_advisory_xact_lock(hashtextextended(?, 0))";

    /** The same lock for several orders, in one statement: the orders' ids as one {@code text[]} parameter. */
    static final String LOCK_ALL_SQL = "SELECT pg_advisory_xact_lock(hashtextextended(id, 0)) FROM unnest(?) AS id";

    private final EntityManager entityManager;
    private final TransactionSynchronizationRegistry transactions;

    OrderLocks(EntityManager entityManager, TransactionSynchronizationRegistry transactions) {
        this.entityManager = entityManager;
        this.transactions = transactions;
    }

    /** Blocks until this transaction holds {@code orderId}'s lock; {@link IllegalStateException} outside one. */
    public HeldOrderLock acquire(UUID orderId) {
        if (transactions.getTransactionStatus() != Status.STATUS_ACTIVE) {
            throw new IllegalStateException("the advisory lock of order " + orderId
                    + " is transaction-scoped, but no transaction is active (status "
                    + transactions.getTransactionStatus() + ")");
        }
        entityManager.unwrap(Session.class).doWork(connection -> {
            try (PreparedStatement lock = connection.prepareStatement(LOCK_SQL)) {
                lock.setString(1, orderId.toString());
                lock.execute();
            }
        });
        return new HeldOrderLock(orderId, transactions.getTransactionKey());
    }

    /**
     * Takes the locks of all {@code orderIds} in {@code connection}'s current transaction (auto-commit off), for a
     * writer that manages its own JDBC transaction rather than a JTA one. It must be that transaction's first
     * statement, as with {@link #acquire}.
     */
    public static void acquireAll(Connection connection, List<UUID> orderIds) throws SQLException {
        if (connection.getAutoCommit()) {
            throw new IllegalStateException(
                    "advisory locks of orders are transaction-scoped, but the connection is in auto-commit mode");
        }
        String[] ids = orderIds.stream().map(UUID::toString).toArray(String[]::new);
        try (PreparedStatement lock = connection.prepareStatement(LOCK_ALL_SQL)) {
            lock.setArray(1, connection.createArrayOf("text", ids));
            lock.execute();
        }
    }
}
