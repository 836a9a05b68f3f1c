package io.orderflow.orders.outbox;

import io.orderflow.outbox.AggregateLocks;
import io.orderflow.outbox.HeldAggregateLocks;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import jakarta.transaction.Status;
import jakarta.transaction.TransactionSynchronizationRegistry;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.UUID;
import org.hibernate.Session;

/**
 * Takes an order's transaction-scoped advisory lock through the outbox library's {@link AggregateLocks}, the order id
 * as its canonical lower-case text (the outbox's {@code aggregate_id}). Why every transaction that writes an outbox row
 * must call this first, before any write, is the design note of {@link OutboxWriter}.
 *
 * <p>The lock is released when the transaction ends, by commit or rollback; there is no unlock. Waiting for it has no
 * timeout of its own: it lasts as long as the holder's transaction, which only runs a handful of short statements.
 * Two ids whose 64-bit hashes collide share a lock; that costs some waiting, never correctness.
 *
 * <p>Thread-safe (stateless); the lock belongs to the calling thread's transaction.
 */
@ApplicationScoped
public class OrderLocks {

    private final EntityManager entityManager;
    private final TransactionSynchronizationRegistry transactions;

    OrderLocks(EntityManager entityManager, TransactionSynchronizationRegistry transactions) {
        this.entityManager = entityManager;
        this.transactions = transactions;
    }

    /** Blocks until this transaction holds {@code orderId}'s lock; {@link IllegalStateException} outside one. */
    public HeldAggregateLocks acquire(UUID orderId) {
        if (transactions.getTransactionStatus() != Status.STATUS_ACTIVE) {
            throw new IllegalStateException("the advisory lock of order " + orderId
                    + " is transaction-scoped, but no transaction is active (status "
                    + transactions.getTransactionStatus() + ")");
        }
        Object transaction = transactions.getTransactionKey();
        return entityManager
                .unwrap(Session.class)
                .doReturningWork(
                        connection -> AggregateLocks.acquire(connection, List.of(orderId.toString()), transaction));
    }

    /**
     * Takes the locks of all {@code orderIds} in {@code connection}'s current transaction (auto-commit off), for a
     * writer that manages its own JDBC transaction rather than a JTA one: the connection is the token's transaction.
     * It must be that transaction's first statement, as with {@link #acquire}.
     */
    public static HeldAggregateLocks acquireAll(Connection connection, List<UUID> orderIds) throws SQLException {
        return AggregateLocks.acquire(
                connection, orderIds.stream().map(UUID::toString).toList(), connection);
    }
}
