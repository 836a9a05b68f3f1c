package io.orderflow.orders.service;

import io.orderflow.orders.config.OrderServiceConfig;
import io.orderflow.orders.persistence.IdempotencyKeyRow;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Optional;
import java.util.UUID;
import org.hibernate.Session;

/**
 * The {@code idempotency_keys} table, and the lock that makes "first request with a key creates, the others replay"
 * hold under concurrency.
 *
 * <p>Two requests with the same new key would both find no row and both create an order; the second would then fail
 * on the key's primary key, after having done all its work. Instead, {@link #lock} takes a transaction-scoped advisory
 * lock on the key before looking it up: the second request waits until the first commits, then (READ COMMITTED: each
 * statement sees what committed before it) finds the key and replays. The lock lives in the two-integer advisory-lock
 * space, under {@link #LOCK_CLASS}, so it can never be confused with an order's lock (one 64-bit key).
 *
 * <p>Callers take the order's lock first (the outbox rule, see {@code OutboxWriter}); this lock and the lookup come
 * after it, so the order lock still precedes the transaction's first write.
 *
 * <p><b>Expiry.</b> A key is remembered for {@code order-service.idempotency.retention} after the request that created
 * its order. A key past it counts as unknown even before {@link IdempotencyKeyPurge} deletes it: {@link #find} deletes
 * it on the spot, so the request creates a new order and records the key again. Thread-safe (stateless).
 */
@ApplicationScoped
public class IdempotencyKeys {

    /** The advisory-lock class of idempotency keys: "idem" in ASCII. */
    static final int LOCK_CLASS = 0x6964656d;

    static final String LOCK_SQL = "SELECT pg_advisory_xact_lock(?, hashtext(?))";

    static final String PURGE_SQL = "DELETE FROM idempotency_keys WHERE idempotency_key IN"
            + " (SELECT idempotency_key FROM idempotency_keys WHERE created_at <= ? ORDER BY created_at LIMIT ?)";

    private final EntityManager entityManager;
    private final Duration retention;

    IdempotencyKeys(EntityManager entityManager, OrderServiceConfig config) {
        this.entityManager = entityManager;
        this.retention = config.idempotency().retention();
    }

    /** Blocks until this transaction holds {@code key}'s lock, released when the transaction ends. */
    public void lock(String key) {
        entityManager.unwrap(Session.class).doWork(connection -> {
            try (PreparedStatement lock = connection.prepareStatement(LOCK_SQL)) {
                lock.setInt(1, LOCK_CLASS);
                lock.setString(2, key);
                lock.execute();
            }
        });
    }

    /**
     * The row of {@code key} if it is still within its retention at {@code now}. An expired row is deleted first
     * (a JPQL bulk delete, so no entity of it is left in the session), making room for the new one.
     */
    public Optional<IdempotencyKeyRow> find(String key, Instant now) {
        IdempotencyKeyRow.delete("key = ?1 and createdAt <= ?2", key, now.minus(retention));
        return IdempotencyKeyRow.findByIdOptional(key);
    }

    /**
     * Deletes up to {@code limit} keys past their retention at {@code now}, oldest first, in the caller's
     * transaction.
     *
     * @return how many were deleted
     */
    public int purgeExpired(Instant now, int limit) {
        int[] deleted = new int[1];
        entityManager.unwrap(Session.class).doWork(connection -> {
            try (PreparedStatement purge = connection.prepareStatement(PURGE_SQL)) {
                purge.setObject(1, OffsetDateTime.ofInstant(now.minus(retention), ZoneOffset.UTC));
                purge.setInt(2, limit);
                deleted[0] = purge.executeUpdate();
            }
        });
        return deleted[0];
    }

    /** Records that {@code key} created {@code orderId}; the order row must be persisted first (foreign key). */
    public void record(String key, String requestHash, UUID orderId, Instant now) {
        new IdempotencyKeyRow(key, requestHash, orderId, now).persist();
    }
}
