package io.orderflow.relay;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * Which relay instance publishes: the one holding a session-level PostgreSQL advisory lock.
 *
 * <p>Several instances may run for availability; exactly one reads and publishes at a time, because two publishers
 * reading the same rows would interleave one order's events (a row-locking scheme such as {@code SKIP LOCKED} hands
 * an order's second event to another instance while the first is still in flight). The lock belongs to the
 * leader's database session, which is also the session that marks rows published: if that session dies the lock is
 * released and marking fails, so a leader that lost its lock cannot mark anything, and a standby takes over from
 * the oldest unpublished row. The two-key form keeps the relay's lock out of the one-key space the order service
 * uses for per-order locks.
 *
 * <p>Not thread-safe: used by the relay thread that owns the connection.
 */
public final class RelayLeadership {

    /** The first key of the relay's advisory lock: "ordf" in ASCII. */
    public static final int LOCK_NAMESPACE = 0x6f726466;

    private final int lockId;

    /** {@code lockId} names one relay group; instances with the same id take turns. */
    public RelayLeadership(int lockId) {
        this.lockId = lockId;
    }

    /** Takes the lock if no other session holds it; true if this session holds it now. */
    public boolean tryAcquire(Connection connection) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement("SELECT pg_try_advisory_lock(?, ?)")) {
            statement.setInt(1, LOCK_NAMESPACE);
            statement.setInt(2, lockId);
            try (ResultSet row = statement.executeQuery()) {
                row.next();
                return row.getBoolean(1);
            }
        }
    }

    /**
     * Gives the lock back before the session ends. Closing a connection releases it too, but only once the server's
     * backend has exited, after {@code close()} returned; unlocking first lets a standby take over at once.
     */
    public void release(Connection connection) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement("SELECT pg_advisory_unlock(?, ?)")) {
            statement.setInt(1, LOCK_NAMESPACE);
            statement.setInt(2, lockId);
            statement.execute();
        }
    }

    public int lockId() {
        return lockId;
    }
}
