package io.orderflow.relay;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.postgres.PostgresDatabase;
import io.orderflow.testing.PostgresTest;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The relay's reads stay on their partial indexes on a large outbox that PostgreSQL has no statistics for yet, as
 * after a minute of heavy load on a new table: a sequential scan there costs the whole retention on every read.
 */
@PostgresTest(service = "order-service")
class OutboxTableTest {

    private static final int PUBLISHED_ROWS = 100_000;

    private OutboxFixture outbox;

    @BeforeEach
    void setUp(PostgresDatabase database) throws SQLException {
        outbox = OutboxFixture.clean(database);
        try (Connection connection = outbox.connect();
                Statement statement = connection.createStatement()) {
            statement.execute("""
                    INSERT INTO outbox (event_id, aggregate_id, aggregate_version, event_type, event_version, payload,
                                        occurred_at, published_at)
                    SELECT gen_random_uuid(), 'order-' || n, 1, 'OrderCreated', '1.1', repeat('x', 500),
                           clock_timestamp(), clock_timestamp()
                      FROM generate_series(1, %d) AS n
                    """.formatted(PUBLISHED_ROWS));
        }
        outbox.write("pending-order", 1);
    }

    @Test
    void theBacklogIsCountedFromThePartialIndexesWithoutStatistics() throws SQLException {
        try (Connection connection = outbox.connect()) {
            OutboxTable.configureSession(connection);

            assertThat(plan(connection, OutboxTable.BACKLOG)).doesNotContain("Seq Scan");
            OutboxBacklog backlog = new OutboxTable(connection).backlog();
            assertThat(backlog.pendingRows()).isEqualTo(1);
            assertThat(backlog.quarantinedRows()).isZero();
        }
    }

    @Test
    void pendingRowsAreReadInIndexOrderWithoutVisitingEveryIndexEntry() throws SQLException {
        try (Connection connection = outbox.connect()) {
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
        try (Connection connection = outbox.connect()) {
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
