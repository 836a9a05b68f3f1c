package io.orderflow.relay;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * Opens the relay's own session on the order service's database: a plain, unpooled connection, because the session
 * carries the leader's advisory lock and the {@code LISTEN}, which must not outlive the relay's use of it inside a
 * pool.
 */
@FunctionalInterface
public interface OutboxDatabase {

    Connection open() throws SQLException;
}
