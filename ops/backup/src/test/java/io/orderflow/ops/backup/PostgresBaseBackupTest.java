package io.orderflow.ops.backup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.orderflow.postgres.EmbeddedMode;
import io.orderflow.postgres.LocalPostgres;
import io.orderflow.postgres.PostgresConfiguration;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

class PostgresBaseBackupTest {

    @TempDir(cleanup = CleanupMode.ON_SUCCESS) // the servers' logs stay when it fails
    Path directory;

    /**
     * Taken while transactions keep committing, each inserting a row and adding one to a counter: the server started on
     * the backup replays its WAL and holds every transaction committed before the backup began, only committed ones,
     * and each whole (the counter equals the rows).
     */
    @Test
    void aBackupTakenUnderCommitsStartsWithEverythingCommittedBeforeItAndEachTransactionWhole() throws Exception {
        ConcurrentLinkedQueue<Long> committed = new ConcurrentLinkedQueue<>();
        List<Long> committedBeforeBackup;
        PostgresBaseBackup.Taken taken;
        try (LocalPostgres original = LocalPostgres.start(
                PostgresConfiguration.embedded(), directory.resolve("original"), 0, EmbeddedMode.KEPT)) {
            try (Connection connection = connect(original.adminJdbcUrl(), original.user());
                    Statement statement = connection.createStatement()) {
                statement.execute("CREATE TABLE item (id bigint PRIMARY KEY, filler text)");
                statement.execute("CREATE TABLE counter (n bigint NOT NULL)");
                statement.execute("INSERT INTO counter VALUES (0)");
            }
            AtomicBoolean writing = new AtomicBoolean(true);
            Thread writer = Thread.ofPlatform().start(() -> write(original, writing, committed));
            try {
                await().atMost(Duration.ofSeconds(60)).until(() -> committed.size() >= 300);
                committedBeforeBackup = List.copyOf(committed);

                taken = PostgresBaseBackup.take(
                        directory.resolve("original").resolve("cluster"),
                        original.adminJdbcUrl(),
                        original.user(),
                        "",
                        directory.resolve("restored").resolve("cluster"));

                int after = committed.size();
                await().atMost(Duration.ofSeconds(60)).until(() -> committed.size() >= after + 300);
            } finally {
                writing.set(false);
                writer.join();
            }
        }
        assertThat(taken.startLsn()).isNotBlank();
        assertThat(directory.resolve("restored").resolve("cluster").resolve("backup_label"))
                .exists();
        assertThat(directory.resolve("restored").resolve("cluster").resolve("postmaster.pid"))
                .doesNotExist();

        try (LocalPostgres restored = LocalPostgres.start(
                        PostgresConfiguration.embedded(), directory.resolve("restored"), 0, EmbeddedMode.KEPT);
                Connection connection = connect(restored.adminJdbcUrl(), restored.user());
                Statement statement = connection.createStatement()) {
            List<Long> ids = new ArrayList<>();
            try (ResultSet rows = statement.executeQuery("SELECT id FROM item ORDER BY id")) {
                while (rows.next()) {
                    ids.add(rows.getLong(1));
                }
            }
            assertThat(ids).containsAll(committedBeforeBackup).isSubsetOf(committed);
            assertThat(ids.size())
                    .as("what was committed after the backup ended is not in it")
                    .isLessThan(committed.size());
            try (ResultSet counter = statement.executeQuery("SELECT n FROM counter")) {
                counter.next();
                assertThat(counter.getLong(1)).as("every transaction whole").isEqualTo(ids.size());
            }
        }
        assertThat(Files.exists(directory.resolve("restored").resolve("cluster").resolve("backup_label")))
                .as("recovery consumed the backup label")
                .isFalse();
    }

    private static void write(LocalPostgres postgres, AtomicBoolean writing, ConcurrentLinkedQueue<Long> committed) {
        try (Connection connection = connect(postgres.adminJdbcUrl(), postgres.user());
                PreparedStatement insert =
                        connection.prepareStatement("INSERT INTO item VALUES (?, repeat('x', 500))");
                PreparedStatement count = connection.prepareStatement("UPDATE counter SET n = n + 1")) {
            connection.setAutoCommit(false);
            for (long id = 1; writing.get(); id++) {
                insert.setLong(1, id);
                insert.executeUpdate();
                count.executeUpdate();
                connection.commit();
                committed.add(id);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Connection connect(String url, String user) throws SQLException {
        return DriverManager.getConnection(url, user, "");
    }
}
