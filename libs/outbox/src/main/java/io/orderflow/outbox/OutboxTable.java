package io.orderflow.outbox;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;

/**
 * The relay's side of the outbox table ({@code db/outbox} migrations of this library), on one connection: what may
 * be published now, marking rows published or quarantined, deleting rows past their retention, and the backlog. The
 * writers' side is {@link OutboxInsert}. Each service's database has its own outbox table and its own relay.
 *
 * <p><b>Publishing order and the horizon.</b> Rows are returned in {@code (tx_id, id)} order, and only those whose
 * writing transaction is older than every transaction still running: {@code tx_id < pg_snapshot_xmin(snapshot)}.
 * Every transaction below that horizon has ended, so the set of rows below it is final: no transaction that commits
 * later can add a row that sorts before a row already returned. That is what makes it safe to publish in this
 * order without ever skipping a gap that may still fill (ids are drawn at insert, not at commit, so id order alone
 * is not commit order). The horizon comes from the same statement's snapshot as the rows it filters
 * ({@code pg_current_snapshot()} is the active snapshot), so "below the horizon" and "visible" agree. Writers take the
 * aggregate's advisory lock before their first write ({@link AggregateLocks}), so transactions that change the same
 * aggregate get increasing
 * {@code tx_id}s in the order they changed it; see libs/outbox/README.md for the whole argument.
 *
 * <p>Every method runs in the connection's auto-commit mode: each statement is its own transaction, and a crash
 * between them leaves rows unpublished (published again later), never marked without having been acknowledged.
 * Not thread-safe: one relay thread owns the connection.
 */
public final class OutboxTable {

    static final String PENDING = """
            SELECT o.id, o.tx_id::text::bigint AS tx_id, o.event_id, o.aggregate_id, o.aggregate_version,
                   o.event_type, o.event_version, o.payload, o.traceparent, o.occurred_at, o.created_at,
                   o.tx_id < h.horizon AS ready
              FROM outbox o, (SELECT pg_snapshot_xmin(pg_current_snapshot()) AS horizon) h
             WHERE o.published_at IS NULL AND o.quarantined_at IS NULL
             ORDER BY o.tx_id, o.id
             LIMIT ?
            """;

    static final String ROWS_OF = """
            SELECT id, tx_id::text::bigint AS tx_id, event_id, aggregate_id, aggregate_version, event_type,
                   event_version, payload, traceparent, occurred_at, created_at
              FROM outbox WHERE aggregate_id = ? ORDER BY aggregate_version
            """;

    /**
     * Published rows past the retention, a bounded number at a time. The cutoff is {@code statement_timestamp()}, not
     * {@code clock_timestamp()}: a volatile expression cannot bound an index scan, so PostgreSQL walked every entry of
     * {@code outbox_published} (the whole retention) to find none, measured at 400 ms at 2,000 orders/s, a stall of
     * the relay every purge interval.
     */
    static final String PURGE = """
            DELETE FROM outbox WHERE id IN (
                SELECT id FROM outbox
                 WHERE published_at IS NOT NULL AND published_at < statement_timestamp() - ?::interval
                 LIMIT ?)
            """;

    static final String PUBLICATIONS = """
            SELECT aggregate_id, event_id, created_at, published_at FROM outbox WHERE event_type = ?
            """;

    static final String COUNT_OF_TYPE = "SELECT count(*) FROM outbox WHERE event_type = ?";

    static final String BACKLOG = """
            SELECT (SELECT count(*) FROM outbox WHERE published_at IS NULL AND quarantined_at IS NULL),
                   (SELECT min(created_at) FROM outbox WHERE published_at IS NULL AND quarantined_at IS NULL),
                   (SELECT count(*) FROM outbox WHERE quarantined_at IS NOT NULL),
                   clock_timestamp()
            """;

    /**
     * The relay's session settings: no sequential scans and no bitmap scans, so every read walks its partial index in
     * index order. Every query of the relay has a partial index made for it (pending rows in publishing order,
     * quarantined rows, published rows by age), and each reads a handful of rows of a table that holds the whole
     * retention (an hour at 2,000 orders/s is 7 million rows). Without statistics (a new table, or one that grew faster
     * than autovacuum's analyze) PostgreSQL guesses wrong both ways: it scanned the whole table, in parallel, for the
     * backlog metric every second (measured at 100 ms and three processes per scan after a minute at 2,000 orders/s),
     * and it read the pending rows with a bitmap scan, which visits every entry of {@code outbox_pending}, including
     * those of rows published since the last vacuum (marking a row published leaves its old version in the index), on
     * every cycle. An index scan in {@code (tx_id, id)} order stops after the batch, and marks the dead entries it
     * passes so that later scans skip them. Scoped to the relay's own session.
     */
    static final String SESSION_SETTINGS = "SET enable_seqscan = off; SET enable_bitmapscan = off";

    private final Connection connection;

    public OutboxTable(Connection connection) {
        this.connection = connection;
    }

    /** Applies {@link #SESSION_SETTINGS} to {@code connection}, the session every later query of the relay runs in. */
    public static void configureSession(Connection connection) throws SQLException {
        try (Statement statement = connection.createStatement()) {
            statement.execute(SESSION_SETTINGS);
        }
    }

    /** Up to {@code limit} rows that may be published now, in publishing order. */
    public PendingBatch pending(int limit) throws SQLException {
        List<OutboxRow> ready = new ArrayList<>();
        boolean held = false;
        try (PreparedStatement statement = connection.prepareStatement(PENDING)) {
            statement.setInt(1, limit);
            try (ResultSet rows = statement.executeQuery()) {
                while (rows.next()) {
                    if (!rows.getBoolean("ready")) {
                        // (tx_id, id) order puts every ready row before the first one behind the horizon.
                        held = true;
                        break;
                    }
                    ready.add(row(rows));
                }
            }
        }
        return new PendingBatch(ready, held);
    }

    /**
     * Every row of {@code aggregateId} still in the table (published, pending or quarantined), by aggregate version:
     * for tests and tools that check what a service wrote.
     */
    public List<OutboxRow> rowsOf(String aggregateId) throws SQLException {
        List<OutboxRow> found = new ArrayList<>();
        try (PreparedStatement statement = connection.prepareStatement(ROWS_OF)) {
            statement.setString(1, aggregateId);
            try (ResultSet rows = statement.executeQuery()) {
                while (rows.next()) {
                    found.add(row(rows));
                }
            }
        }
        return found;
    }

    /**
     * Every row of {@code eventType} still in the table with when it was written and when it was published (null while
     * pending or quarantined): the library's own reader, for tools that measure the relay (the benchmarks) without
     * knowing the table.
     */
    public List<OutboxPublication> publications(String eventType) throws SQLException {
        List<OutboxPublication> found = new ArrayList<>();
        try (PreparedStatement statement = connection.prepareStatement(PUBLICATIONS)) {
            statement.setString(1, eventType);
            try (ResultSet rows = statement.executeQuery()) {
                while (rows.next()) {
                    Timestamp published = rows.getTimestamp(4);
                    found.add(new OutboxPublication(
                            rows.getString(1),
                            rows.getObject(2, UUID.class),
                            rows.getTimestamp(3).toInstant(),
                            published == null ? null : published.toInstant()));
                }
            }
        }
        return found;
    }

    /** How many rows of {@code eventType} the table holds (published, pending or quarantined). */
    public long count(String eventType) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(COUNT_OF_TYPE)) {
            statement.setString(1, eventType);
            try (ResultSet row = statement.executeQuery()) {
                row.next();
                return row.getLong(1);
            }
        }
    }

    /** The aggregates among {@code aggregateIds} that have a quarantined event: their later events must wait too. */
    public Set<String> aggregatesWithQuarantinedEvents(Collection<String> aggregateIds) throws SQLException {
        Set<String> blocked = new HashSet<>();
        if (aggregateIds.isEmpty()) {
            return blocked;
        }
        try (PreparedStatement statement = connection.prepareStatement(
                "SELECT DISTINCT aggregate_id FROM outbox WHERE quarantined_at IS NOT NULL AND aggregate_id = ANY (?)")) {
            Array ids = connection.createArrayOf("text", aggregateIds.toArray());
            statement.setArray(1, ids);
            try (ResultSet rows = statement.executeQuery()) {
                while (rows.next()) {
                    blocked.add(rows.getString(1));
                }
            }
        }
        return blocked;
    }

    /** Marks rows the broker acknowledged. Returns how many rows changed. */
    public int markPublished(List<Long> ids) throws SQLException {
        if (ids.isEmpty()) {
            return 0;
        }
        try (PreparedStatement statement =
                connection.prepareStatement("UPDATE outbox SET published_at = clock_timestamp()"
                        + " WHERE id = ANY (?) AND published_at IS NULL AND quarantined_at IS NULL")) {
            statement.setArray(1, connection.createArrayOf("bigint", ids.toArray()));
            return statement.executeUpdate();
        }
    }

    /** Sets a row aside with the reason it cannot be published; the relay never tries it again. */
    public void quarantine(long id, String reason) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(
                "UPDATE outbox SET quarantined_at = clock_timestamp(), quarantine_reason = ?"
                        + " WHERE id = ? AND published_at IS NULL")) {
            statement.setString(1, reason);
            statement.setLong(2, id);
            statement.executeUpdate();
        }
    }

    /**
     * Deletes up to {@code limit} rows published more than {@code retention} ago (the database's clock). Returns how
     * many it deleted; call again while it returns {@code limit}.
     */
    public int deletePublishedBefore(Duration retention, int limit) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(PURGE)) {
            statement.setString(1, retention.toMillis() + " milliseconds");
            statement.setInt(2, limit);
            return statement.executeUpdate();
        }
    }

    /** Rows waiting, the age of the oldest, and quarantined rows, as of now (both counts use partial indexes). */
    public OutboxBacklog backlog() throws SQLException {
        try (Statement statement = connection.createStatement();
                ResultSet row = statement.executeQuery(BACKLOG)) {
            row.next();
            long pending = row.getLong(1);
            Instant oldest =
                    row.getTimestamp(2) == null ? null : row.getTimestamp(2).toInstant();
            Instant now = row.getTimestamp(4).toInstant();
            Duration age = oldest == null || oldest.isAfter(now) ? Duration.ZERO : Duration.between(oldest, now);
            return new OutboxBacklog(pending, age, row.getLong(3));
        }
    }

    /** The row at {@code rows}' cursor, from the columns {@link #PENDING} and {@link #ROWS_OF} both select. */
    private static OutboxRow row(ResultSet rows) throws SQLException {
        OutboxEntry entry = new OutboxEntry(
                rows.getObject("event_id", UUID.class),
                rows.getString("aggregate_id"),
                rows.getLong("aggregate_version"),
                rows.getString("event_type"),
                rows.getString("event_version"),
                rows.getString("payload"),
                rows.getString("traceparent"),
                rows.getTimestamp("occurred_at").toInstant());
        return new OutboxRow(
                rows.getLong("id"),
                rows.getLong("tx_id"),
                entry,
                rows.getTimestamp("created_at").toInstant());
    }
}
