package io.orderflow.relay;

import io.orderflow.contracts.EventCodec;
import io.orderflow.contracts.EventEnvelope;
import io.orderflow.contracts.order.OrderCreated;
import io.orderflow.contracts.order.OrderEvent;
import io.orderflow.contracts.order.OrderLine;
import io.orderflow.contracts.order.OrderPaid;
import io.orderflow.contracts.order.OrderShipped;
import io.orderflow.outbox.AggregateLocks;
import io.orderflow.outbox.HeldAggregateLocks;
import io.orderflow.outbox.OutboxEntry;
import io.orderflow.outbox.OutboxInsert;
import io.orderflow.postgres.PostgresDatabase;
import io.orderflow.testing.CleanSchema;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * A service's database for relay tests: a clean outbox from the outbox library's Flyway migration (on the classpath),
 * and writers that follow the outbox protocol (the order's advisory lock first, then one row per version).
 */
public final class OutboxFixture {

    public static final String MIGRATIONS = "classpath:db/outbox";

    private final PostgresDatabase database;
    private final EventCodec codec = new EventCodec();

    public OutboxFixture(PostgresDatabase database) {
        this.database = database;
    }

    /** Drops everything and migrates from scratch, so each test starts with an empty outbox. */
    public static OutboxFixture clean(PostgresDatabase database) throws SQLException {
        CleanSchema.migrate(database, MIGRATIONS);
        return new OutboxFixture(database);
    }

    public Connection connect() throws SQLException {
        return database.connect();
    }

    /** An event of {@code orderId} at {@code version}: created at 1, paid at 2, shipped from 3 on. */
    public static OrderEvent eventAt(String orderId, long version) {
        if (version == 1) {
            return new OrderCreated(
                    orderId,
                    "customer-1",
                    "EUR",
                    List.of(new OrderLine("sku-1", 1, new BigDecimal("9.99"))),
                    new BigDecimal("9.99"),
                    "web");
        }
        if (version == 2) {
            return new OrderPaid(orderId, new BigDecimal("9.99"), "EUR", "pay-" + version);
        }
        return new OrderShipped(orderId, "carrier", "track-" + version);
    }

    /** Writes {@code orderId}'s event at {@code version} in its own transaction; returns its event id. */
    public UUID write(String orderId, long version) throws SQLException {
        try (Connection connection = database.connect()) {
            connection.setAutoCommit(false);
            lockOrder(connection, orderId);
            UUID eventId = insert(connection, orderId, version, eventAt(orderId, version));
            connection.commit();
            return eventId;
        }
    }

    /** The writer's protocol: the order's lock before the transaction's first write. */
    public static HeldAggregateLocks lockOrder(Connection connection, String orderId) throws SQLException {
        return AggregateLocks.acquire(connection, List.of(orderId), connection);
    }

    /** Inserts one outbox row for {@code event} in the caller's transaction. */
    public UUID insert(Connection connection, String orderId, long version, OrderEvent event) throws SQLException {
        UUID eventId = UUID.randomUUID();
        EventEnvelope envelope = codec.wrap(event, eventId, Instant.now(), "relay-test", null);
        String payload = new String(codec.encode(envelope), StandardCharsets.UTF_8);
        insertRaw(
                connection,
                eventId,
                orderId,
                version,
                envelope.eventType(),
                envelope.eventVersion().toString(),
                payload);
        return eventId;
    }

    /**
     * Inserts a row with exactly these columns, valid or not, through the one outbox INSERT: in the caller's
     * transaction after taking the order's lock, or in one of its own when the connection is in auto-commit mode.
     */
    public static void insertRaw(
            Connection connection,
            UUID eventId,
            String orderId,
            long version,
            String eventType,
            String eventVersion,
            String payload)
            throws SQLException {
        boolean ownTransaction = connection.getAutoCommit();
        if (ownTransaction) {
            connection.setAutoCommit(false);
        }
        HeldAggregateLocks locks = lockOrder(connection, orderId);
        try (PreparedStatement statement = connection.prepareStatement(OutboxInsert.SQL)) {
            OutboxInsert.bind(
                    statement,
                    locks,
                    connection,
                    new OutboxEntry(eventId, orderId, version, eventType, eventVersion, payload, null, Instant.now()));
            statement.executeUpdate();
        }
        if (ownTransaction) {
            connection.commit();
            connection.setAutoCommit(true);
        }
    }

    public long count(String where) throws SQLException {
        try (Connection connection = database.connect();
                Statement statement = connection.createStatement();
                ResultSet row = statement.executeQuery("SELECT count(*) FROM outbox WHERE " + where)) {
            row.next();
            return row.getLong(1);
        }
    }

    public String quarantineReason(UUID eventId) throws SQLException {
        try (Connection connection = database.connect();
                PreparedStatement statement =
                        connection.prepareStatement("SELECT quarantine_reason FROM outbox WHERE event_id = ?")) {
            statement.setObject(1, eventId);
            try (ResultSet row = statement.executeQuery()) {
                row.next();
                return row.getString(1);
            }
        }
    }
}
