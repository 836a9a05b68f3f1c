package io.orderflow.orders.service;

import io.orderflow.orders.config.OrderServiceConfig;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.EntityManager;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.hibernate.Session;

/**
 * The {@code idempotency_keys} table, and the lock that makes "first request with a key creates, the others replay"
 * hold under concurrency.
 *
 * <p>Two requests with the same new key would both find no row and both create an order; the second would then fail
 * on the key's primary key, after having done all its work. Instead, {@link #lockAndFind} takes a transaction-scoped
 * advisory lock on each key before looking them up: a second transaction with one of the keys waits until the first
 * commits, then (READ COMMITTED: each statement sees what committed before it) finds the key and replays. The locks
 * live in the two-integer advisory-lock space, under {@link #LOCK_CLASS}, so they can never be confused with an order's
 * lock (one 64-bit key). They are taken in the order of their hashes, so two transactions locking several keys cannot
 * deadlock each other (PostgreSQL would detect it and fail one, which the caller retries alone).
 *
 * <p>Callers take the orders' locks first (the outbox rule, see {@code OutboxWriter}); these locks and the lookup come
 * after them, so the order locks still precede the transaction's first write.
 *
 * <p><b>Expiry.</b> A key is remembered for {@code orderflow.order-service.idempotency.retention} after the request that created
 * its order. A key past it counts as unknown even before {@link IdempotencyKeyPurge} deletes it: {@link #lockAndFind}
 * deletes it on the spot, so the request creates a new order and records the key again. Thread-safe (stateless).
 */
@ApplicationScoped
public class IdempotencyKeys {

    /** The advisory-lock class of idempotency keys: "idem" in ASCII. */
    static final int LOCK_CLASS = 0x6964656d;

    static final String LOCK_ALL_SQL = "SELECT pg_advisory_xact_lock(?, hash)"
            + " FROM (SELECT DISTINCT hashtext(key) AS hash FROM unnest(?) AS key ORDER BY hash) AS hashes";

    static final String FORGET_EXPIRED_SQL =
            "DELETE FROM idempotency_keys WHERE idempotency_key = ANY(?) AND created_at <= ?";

    static final String FIND_SQL =
            "SELECT idempotency_key, request_hash, order_id FROM idempotency_keys WHERE idempotency_key = ANY(?)";

    static final String RECORD_SQL =
            "INSERT INTO idempotency_keys (idempotency_key, request_hash, order_id, created_at)"
                    + " VALUES (?, ?, ?, ?)";

    static final String PURGE_SQL = "DELETE FROM idempotency_keys WHERE idempotency_key IN"
            + " (SELECT idempotency_key FROM idempotency_keys WHERE created_at <= ? ORDER BY created_at LIMIT ?)";

    private final EntityManager entityManager;
    private final Duration retention;

    IdempotencyKeys(EntityManager entityManager, OrderServiceConfig config) {
        this.entityManager = entityManager;
        this.retention = config.idempotency().retention();
    }

    /** A key and what it is bound to: the digest of the request that first used it and the order it created. */
    public record KnownKey(String key, String requestHash, UUID orderId) {}

    /**
     * In {@code connection}'s current transaction: blocks until it holds the locks of all {@code keys}, forgets those
     * past their retention at {@code now}, and returns the others that are known, by key.
     */
    public Map<String, KnownKey> lockAndFind(Connection connection, Collection<String> keys, Instant now)
            throws SQLException {
        Array keyArray = connection.createArrayOf("text", keys.toArray(String[]::new));
        try (PreparedStatement lock = connection.prepareStatement(LOCK_ALL_SQL)) {
            lock.setInt(1, LOCK_CLASS);
            lock.setArray(2, keyArray);
            lock.execute();
        }
        try (PreparedStatement forget = connection.prepareStatement(FORGET_EXPIRED_SQL)) {
            forget.setArray(1, keyArray);
            forget.setObject(2, OffsetDateTime.ofInstant(now.minus(retention), ZoneOffset.UTC));
            forget.executeUpdate();
        }
        Map<String, KnownKey> known = new HashMap<>();
        try (PreparedStatement find = connection.prepareStatement(FIND_SQL)) {
            find.setArray(1, keyArray);
            try (ResultSet rows = find.executeQuery()) {
                while (rows.next()) {
                    KnownKey key = new KnownKey(rows.getString(1), rows.getString(2), rows.getObject(3, UUID.class));
                    known.put(key.key(), key);
                }
            }
        }
        return known;
    }

    /** Records {@code keys} as created at {@code now}; their orders must be inserted first (foreign key). */
    public void recordAll(Connection connection, List<KnownKey> keys, Instant now) throws SQLException {
        OffsetDateTime createdAt = OffsetDateTime.ofInstant(now, ZoneOffset.UTC);
        try (PreparedStatement record = connection.prepareStatement(RECORD_SQL)) {
            for (KnownKey key : keys) {
                record.setString(1, key.key());
                record.setString(2, key.requestHash());
                record.setObject(3, key.orderId());
                record.setObject(4, createdAt);
                record.addBatch();
            }
            record.executeBatch();
        }
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
}
