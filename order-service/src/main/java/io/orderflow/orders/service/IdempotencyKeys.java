package io.orderflow.orders.service;

import io.orderflow.orders.persistence.IdempotencyKeyRow;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import java.sql.PreparedStatement;
import java.time.Instant;
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
 * <p>Callers take the order's lock first (the outbox rule, see {@code OutboxWriter}); this lock and the lookup are not
 * writes, so the order lock still precedes the transaction's first write. Thread-safe (stateless).
 */
@ApplicationScoped
public class IdempotencyKeys {

    /** The advisory-lock class of idempotency keys: "idem" in ASCII. */
    static final int LOCK_CLASS = 0x6964656d;

    static final String LOCK_SQL = "SELECT pg_advisory_xact_lock(?, hashtext(?))";

    private final EntityManager entityManager;

    IdempotencyKeys(EntityManager entityManager) {
        this.entityManager = entityManager;
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

    public Optional<IdempotencyKeyRow> find(String key) {
        return IdempotencyKeyRow.findByIdOptional(key);
    }

    /** Records that {@code key} created {@code orderId}; the order row must be persisted first (foreign key). */
    public void record(String key, String requestHash, UUID orderId, Instant now) {
        new IdempotencyKeyRow(key, requestHash, orderId, now).persist();
    }
}
