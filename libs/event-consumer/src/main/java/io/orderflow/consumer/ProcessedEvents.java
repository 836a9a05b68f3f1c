package io.orderflow.consumer;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;

/**
 * The processed-events table ({@code db/consumer} migration): which events this service has already applied. Claiming
 * an id inserts it in the caller's transaction, so it is recorded exactly when the effect is committed, and not at
 * all when the transaction rolls back. Thread-safe (stateless).
 */
public final class ProcessedEvents {

    static final String CLAIM = """
            INSERT INTO processed_events (event_id, event_type)
            SELECT * FROM unnest(?::uuid[], ?::text[])
            ON CONFLICT (event_id) DO NOTHING
            RETURNING event_id
            """;

    static final String APPLIED = "SELECT event_id, event_type, processed_at FROM processed_events";

    static final String COUNT_OF_TYPE = "SELECT count(*) FROM processed_events WHERE event_type = ?";

    static final String COUNT = "SELECT count(*) FROM processed_events";

    /** One applied event and when the transaction that applied it wrote its claim (the database's clock). */
    public record Applied(UUID eventId, String eventType, Instant processedAt) {}

    private ProcessedEvents() {}

    /**
     * Every event this service has applied: the library's own reader, for tools that measure a consumer (the
     * benchmarks) without knowing the table.
     */
    public static List<Applied> applied(Connection connection) throws SQLException {
        List<Applied> applied = new ArrayList<>();
        try (PreparedStatement statement = connection.prepareStatement(APPLIED);
                ResultSet rows = statement.executeQuery()) {
            while (rows.next()) {
                applied.add(new Applied(
                        rows.getObject(1, UUID.class),
                        rows.getString(2),
                        rows.getTimestamp(3).toInstant()));
            }
        }
        return applied;
    }

    /** How many events this service has applied. */
    public static long count(Connection connection) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(COUNT);
                ResultSet row = statement.executeQuery()) {
            row.next();
            return row.getLong(1);
        }
    }

    /** How many events of {@code eventType} this service has applied. */
    public static long count(Connection connection, String eventType) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(COUNT_OF_TYPE)) {
            statement.setString(1, eventType);
            try (ResultSet row = statement.executeQuery()) {
                row.next();
                return row.getLong(1);
            }
        }
    }

    /**
     * Records {@code events} as processed in {@code transaction}, in one statement, and returns the ids that were new:
     * the events to apply now. An id already recorded (a redelivery) or repeated within {@code events} is returned
     * once at most.
     */
    public static Set<UUID> claim(Connection transaction, List<ConsumedEvent> events) throws SQLException {
        Set<UUID> fresh = new HashSet<>();
        if (events.isEmpty()) {
            return fresh;
        }
        try (PreparedStatement statement = transaction.prepareStatement(CLAIM)) {
            Array ids = transaction.createArrayOf(
                    "uuid", events.stream().map(e -> e.envelope().eventId()).toArray());
            Array types = transaction.createArrayOf(
                    "text", events.stream().map(e -> e.envelope().eventType()).toArray());
            statement.setArray(1, ids);
            statement.setArray(2, types);
            try (ResultSet rows = statement.executeQuery()) {
                while (rows.next()) {
                    fresh.add(rows.getObject(1, UUID.class));
                }
            }
        }
        return fresh;
    }
}
