package io.orderflow.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The embedded server is durable unless a test asks otherwise, and in {@link EmbeddedMode#KEPT} (the platform's)
 * its committed data survives the postmaster being killed with SIGKILL and the server starting again.
 */
class EmbeddedDurabilityTest {
    @TempDir
    Path directory;

    private static String show(LocalPostgres postgres) {
        return postgres.durabilitySettings();
    }

    @Test
    void durableModesFsyncAndCommitSynchronouslyDespiteTheLibrarysDefaults() {
        try (LocalPostgres fresh =
                LocalPostgres.start(PostgresConfiguration.embedded(), directory, 0, EmbeddedMode.FRESH)) {
            assertThat(show(fresh)).isEqualTo("fsync=on, synchronous_commit=on, full_page_writes=on");
        }
        try (LocalPostgres unsynced =
                LocalPostgres.start(PostgresConfiguration.embedded(), directory, 0, EmbeddedMode.FRESH_UNSYNCED)) {
            assertThat(show(unsynced)).startsWith("fsync=off, synchronous_commit=off");
        }
    }

    @Test
    void committedOrdersOfAKeptClusterSurviveAKilledPostmasterAndARestart() throws Exception {
        LocalPostgres first = LocalPostgres.start(PostgresConfiguration.embedded(), directory, 0, EmbeddedMode.KEPT);
        assertThat(show(first)).isEqualTo("fsync=on, synchronous_commit=on, full_page_writes=on");
        PostgresDatabase orders = first.database("order-service");
        try (Connection connection = orders.connect();
                Statement statement = connection.createStatement()) {
            statement.execute("create table orders (id int primary key, customer text not null)");
            for (int i = 0; i < 100; i++) {
                statement.execute("insert into orders values (" + i + ", 'c-" + i + "')");
            }
        }
        Path cluster = first.embeddedDataDirectory().orElseThrow();

        ProcessHandle postmaster =
                AbandonedDataDirectories.runningPostmaster(cluster).orElseThrow();
        postmaster.destroyForcibly();
        postmaster.onExit().get(30, TimeUnit.SECONDS);
        first.close(); // its pg_ctl stop finds nothing to stop

        try (LocalPostgres second =
                LocalPostgres.start(PostgresConfiguration.embedded(), directory, 0, EmbeddedMode.KEPT)) {
            assertThat(second.embeddedDataDirectory()).contains(cluster);
            try (Connection connection = second.database("order-service").connect();
                    Statement statement = connection.createStatement();
                    ResultSet rows = statement.executeQuery("select count(*), max(customer) from orders")) {
                rows.next();
                assertThat(rows.getInt(1)).isEqualTo(100);
                assertThat(rows.getString(2)).isEqualTo("c-99");
            }
        }
        assertThat(cluster.resolve("PG_VERSION")).exists(); // a clean stop keeps the cluster too
    }

    @Test
    void aKilledServerDropsItsConnectionsAndStartsAgainOnItsPortWithEveryCommit() throws Exception {
        try (LocalPostgres postgres =
                LocalPostgres.start(PostgresConfiguration.embedded(), directory, 0, EmbeddedMode.KEPT)) {
            PostgresDatabase orders = postgres.database("order-service");
            Connection open = orders.connect();
            try (Statement statement = open.createStatement()) {
                statement.execute("create table orders (id int primary key)");
                statement.execute("insert into orders select generate_series(1, 50)");
            }
            Path cluster = postgres.embeddedDataDirectory().orElseThrow();
            long postmaster = AbandonedDataDirectories.runningPostmaster(cluster)
                    .orElseThrow()
                    .pid();

            assertThat(postgres.kill()).isEqualTo(postmaster);
            assertThat(postgres.isKilled()).isTrue();
            assertThat(ProcessHandle.of(postmaster)).isEmpty();
            assertThatThrownBy(() -> open.createStatement().execute("select 1"))
                    .isInstanceOf(java.sql.SQLException.class);
            assertThatThrownBy(orders::connect).isInstanceOf(java.sql.SQLException.class);
            assertThatThrownBy(postgres::kill).hasMessageContaining("already down");

            postgres.startAgain();
            assertThat(postgres.isKilled()).isFalse();
            assertThat(AbandonedDataDirectories.runningPostmaster(cluster)
                            .orElseThrow()
                            .pid())
                    .isNotEqualTo(postmaster);
            try (Connection connection = orders.connect();
                    Statement statement = connection.createStatement();
                    ResultSet rows = statement.executeQuery("select count(*) from orders")) {
                rows.next();
                assertThat(rows.getInt(1)).isEqualTo(50);
            }
            assertThatThrownBy(postgres::startAgain).hasMessageContaining("running");
        }
        assertThat(directory.resolve("cluster.owner")).doesNotExist();
    }

    @Test
    void aFreshServerIsNotKilledOnRequest() {
        try (LocalPostgres fresh =
                LocalPostgres.start(PostgresConfiguration.embedded(), directory, 0, EmbeddedMode.FRESH_UNSYNCED)) {
            assertThatThrownBy(fresh::kill).hasMessageContaining("only a kept cluster");
        }
    }

    @Test
    void aKeptClusterStoppedCleanlyIsGivenUpForAnotherProcessWhileThisOneLives() throws Exception {
        try (LocalPostgres first =
                LocalPostgres.start(PostgresConfiguration.embedded(), directory, 0, EmbeddedMode.KEPT)) {
            assertThat(Files.readString(directory.resolve("cluster.owner")))
                    .isEqualTo(Long.toString(ProcessHandle.current().pid()));
        }
        assertThat(directory.resolve("cluster.owner")).doesNotExist();
    }

    @Test
    void aKeptClusterInUseByAnotherLiveProcessIsRefused() throws Exception {
        Files.createDirectories(directory);
        Process other = new ProcessBuilder("sleep", "60").start();
        try {
            Files.writeString(directory.resolve("cluster.owner"), Long.toString(other.pid()));
            assertThatThrownBy(() ->
                            LocalPostgres.start(PostgresConfiguration.embedded(), directory, 0, EmbeddedMode.KEPT))
                    .hasStackTraceContaining("in use by process " + other.pid());
        } finally {
            other.destroyForcibly();
        }
    }
}
