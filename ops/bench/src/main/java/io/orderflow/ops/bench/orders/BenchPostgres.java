package io.orderflow.ops.bench.orders;

import io.orderflow.postgres.EmbeddedMode;
import io.orderflow.postgres.LocalPostgres;
import io.orderflow.postgres.PostgresConfiguration;
import io.orderflow.postgres.PostgresDatabase;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.OptionalLong;

/**
 * The one PostgreSQL of a benchmark run ({@link LocalPostgres}: embedded PostgreSQL 17 under the work directory, or
 * the server {@code ORDERFLOW_POSTGRES_URL} names), with a fresh, empty order-service database for each start of the
 * stack: order-service's Flyway creates the schema in it, and it is dropped afterwards.
 *
 * <p><b>Durability.</b> The embedded server runs durable ({@link EmbeddedMode#FRESH}: fsync on,
 * {@code synchronous_commit=on}, a new cluster for the run), as the platform's does, so PostgreSQL's cost per order
 * is the real one. {@code synchronous_commit} is also set per run database ({@code on}, PostgreSQL's default, unless
 * asked otherwise). {@link #describe} prints what the run's database really has. A server given with
 * {@code ORDERFLOW_POSTGRES_URL} runs with its own settings.
 *
 * <p>Not thread-safe.
 */
public final class BenchPostgres implements AutoCloseable {
    private final LocalPostgres postgres;
    private final String synchronousCommit;

    private BenchPostgres(LocalPostgres postgres, String synchronousCommit) {
        this.postgres = postgres;
        this.synchronousCommit = synchronousCommit;
    }

    public static BenchPostgres start(Path directory, String synchronousCommit) {
        return new BenchPostgres(LocalPostgres.start(directory, EmbeddedMode.FRESH), synchronousCommit);
    }

    /** Version and the settings that matter for commit latency, as a session of {@code database} sees them. */
    public String describe(PostgresDatabase database) throws SQLException {
        StringBuilder text = new StringBuilder(postgres.isEmbedded() ? "embedded" : "configured")
                .append(" PostgreSQL ")
                .append(postgres.serverVersion());
        try (Connection connection = database.connect();
                Statement statement = connection.createStatement()) {
            for (String setting : new String[] {
                "fsync",
                "synchronous_commit",
                "full_page_writes",
                "wal_sync_method",
                "shared_buffers",
                "max_connections"
            }) {
                try (ResultSet row = statement.executeQuery("SHOW " + setting)) {
                    row.next();
                    text.append(", ").append(setting).append('=').append(row.getString(1));
                }
            }
        }
        return text.toString();
    }

    /** A new, empty database for one start of the stack; {@code label} is e.g. {@code run1-ours}. */
    public PostgresDatabase freshDatabase(String label) throws SQLException {
        String service = "orders-bench-" + label;
        dropIfExists(service.replace('-', '_'));
        PostgresDatabase database = postgres.database(service);
        try (Connection admin = admin();
                Statement statement = admin.createStatement()) {
            statement.execute("ALTER DATABASE \"" + database.databaseName() + "\" SET synchronous_commit = '"
                    + synchronousCommit + "'");
        }
        return database;
    }

    public void drop(PostgresDatabase database) throws SQLException {
        dropIfExists(database.databaseName());
    }

    private void dropIfExists(String databaseName) throws SQLException {
        try (Connection admin = admin();
                Statement statement = admin.createStatement()) {
            // The name comes from DatabaseName ([a-z][a-z0-9_]*): quoting is all the escaping it needs.
            statement.execute("DROP DATABASE IF EXISTS \"" + databaseName + "\" WITH (FORCE)");
        }
    }

    /**
     * The postmaster's pid: the parent of this session's backend, if that is a {@code postgres} process on this
     * machine (the embedded server, or a configured one running here); empty for a server elsewhere.
     */
    public OptionalLong postmasterPid() throws SQLException {
        // Looked up while the session is open: its backend exits when the connection closes.
        try (Connection admin = admin();
                Statement statement = admin.createStatement();
                ResultSet row = statement.executeQuery("SELECT pg_backend_pid()")) {
            row.next();
            return ProcessHandle.of(row.getLong(1))
                    .flatMap(ProcessHandle::parent)
                    .filter(p -> p.info().command().orElse("").endsWith("postgres"))
                    .map(p -> OptionalLong.of(p.pid()))
                    .orElse(OptionalLong.empty());
        }
    }

    private Connection admin() throws SQLException {
        return DriverManager.getConnection(
                postgres.adminJdbcUrl(),
                postgres.user(),
                PostgresConfiguration.fromEnvironment().password());
    }

    @Override
    public void close() {
        postgres.close();
    }
}
