package io.orderflow.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.postgres.PostgresDatabase;
import io.orderflow.testing.CleanSchema;
import io.orderflow.testing.PostgresTest;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The relay's reads stay on their partial indexes on a large outbox that PostgreSQL has no statistics for yet, as
 * after a minute of heavy load on a new table: a sequential scan there costs the whole retention on every read.
 */
@PostgresTest(service = "outbox")
class OutboxTableTest {

    private static final Instant NOW = Instant.parse("2026-12-02T00:00:00Z");

    private static final int AGGREGATES = 300;
    private static final int VERSIONS = 100;
    private static final int PUBLISHED_ROWS = AGGREGATES * VERSIONS;
    private static final int AGGREGATES_PER_TRANSACTION = 100;

    private PostgresDatabase database;

    /**
     * A clean outbox holding {@link #PUBLISHED_ROWS} published rows and one pending row, written the way every writer
     * writes (aggregate locks, then {@link OutboxInsert}) and published the way the relay marks them.
     */
    @BeforeEach
    void setUp(PostgresDatabase database) throws SQLException {
        this.database = database;
        CleanSchema.migrate(database, "classpath:db/outbox");
        try (Connection connection = database.connect()) {
            for (int first = 0; first < AGGREGATES; first += AGGREGATES_PER_TRANSACTION) {
                List<String> aggregates = new ArrayList<>();
                for (int n = first; n < first + AGGREGATES_PER_TRANSACTION; n++) {
                    aggregates.add("order-" + n);
                }
                write(connection, aggregates, VERSIONS);
            }
            OutboxTable table = new OutboxTable(connection);
            List<Long> ids = table.pending(PUBLISHED_ROWS).ready().stream()
                    .map(OutboxRow::id)
                    .toList();
            assertThat(table.markPublished(ids)).isEqualTo(PUBLISHED_ROWS);
            write(connection, List.of("pending-order"), 1);
        }
    }

    /** Versions 1 to {@code versions} of each aggregate, in one transaction. */
    private static void write(Connection connection, List<String> aggregates, int versions) throws SQLException {
        connection.setAutoCommit(false);
        HeldAggregateLocks locks = AggregateLocks.acquire(connection, aggregates, connection);
        try (PreparedStatement insert = connection.prepareStatement(OutboxInsert.SQL)) {
            for (String aggregate : aggregates) {
                for (int version = 1; version <= versions; version++) {
                    OutboxEntry entry = new OutboxEntry(
                            UUID.randomUUID(), aggregate, version, "OrderCreated", "1.1", "x".repeat(500), null, NOW);
                    OutboxInsert.bind(insert, locks, connection, entry);
                    insert.addBatch();
                }
            }
            insert.executeBatch();
        }
        connection.commit();
        connection.setAutoCommit(true);
    }

    @Test
    void publicationsNameEveryRowOfATypeAndWhenItWasPublished() throws SQLException {
        try (Connection connection = database.connect()) {
            OutboxTable table = new OutboxTable(connection);

            List<OutboxPublication> created = table.publications("OrderCreated");

            assertThat(created).hasSize(PUBLISHED_ROWS + 1);
            assertThat(table.count("OrderCreated")).isEqualTo(PUBLISHED_ROWS + 1);
            assertThat(table.publications("OrderPaid")).isEmpty();
            assertThat(table.count("OrderPaid")).isZero();
            OutboxPublication pending = created.stream()
                    .filter(p -> p.aggregateId().equals("pending-order"))
                    .findFirst()
                    .orElseThrow();
            assertThat(pending.publishedAt()).isNull();
            assertThat(created.stream().filter(p -> p.publishedAt() != null))
                    .hasSize(PUBLISHED_ROWS)
                    .allSatisfy(p -> assertThat(p.publishedAt()).isAfterOrEqualTo(p.createdAt()));
            assertThat(created.stream().map(OutboxPublication::eventId).distinct())
                    .hasSize(PUBLISHED_ROWS + 1);
        }
    }

    @Test
    void theBacklogIsCountedFromThePartialIndexesWithoutStatistics() throws SQLException {
        try (Connection connection = database.connect()) {
            OutboxTable.configureSession(connection);

            assertThat(plan(connection, OutboxTable.BACKLOG)).doesNotContain("Seq Scan");
            OutboxBacklog backlog = new OutboxTable(connection).backlog();
            assertThat(backlog.pendingRows()).isEqualTo(1);
            assertThat(backlog.quarantinedRows()).isZero();
        }
    }

    @Test
    void pendingRowsAreReadInIndexOrderWithoutVisitingEveryIndexEntry() throws SQLException {
        try (Connection connection = database.connect()) {
            OutboxTable.configureSession(connection);

            assertThat(plan(connection, OutboxTable.PENDING.replace("?", "500")))
                    .contains("Index Scan using outbox_pending")
                    .doesNotContain("Bitmap")
                    .doesNotContain("Seq Scan");
            assertThat(new OutboxTable(connection).pending(500).ready()).hasSize(1);
        }
    }

    @Test
    void thePurgeFindsRowsPastTheRetentionThroughTheIndexBound() throws SQLException {
        try (Connection connection = database.connect()) {
            OutboxTable.configureSession(connection);

            String plan = plan(
                    connection,
                    OutboxTable.PURGE.replaceFirst("\\?", "'1 hour'").replace("?", "1000"));
            assertThat(plan).containsPattern("Index Cond: \\(.*published_at < ");
            assertThat(new OutboxTable(connection).deletePublishedBefore(Duration.ofHours(1), 1000))
                    .isZero();
            assertThat(new OutboxTable(connection).deletePublishedBefore(Duration.ZERO, PUBLISHED_ROWS + 1))
                    .isEqualTo(PUBLISHED_ROWS);
        }
    }

    private static String plan(Connection connection, String query) throws SQLException {
        List<String> lines = new ArrayList<>();
        try (Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("EXPLAIN " + query)) {
            while (rows.next()) {
                lines.add(rows.getString(1));
            }
        }
        return String.join("\n", lines);
    }
}
