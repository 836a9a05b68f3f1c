package io.orderflow.postgres;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongPredicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Crash recovery for embedded servers: data directories whose owning JVM is gone, and the postmasters still
 * running in them.
 *
 * <p>Each embedded server's data directory is named {@code <owner pid>-<n>}. {@code pg_ctl} daemonises the
 * postmaster, so a JVM killed with SIGKILL (a crashed surefire fork, a {@code kill -9}ed launcher) leaves both the
 * directory and a running postmaster behind. {@link #reclaim()} runs before every embedded start: for each
 * directory whose owner process no longer exists, it stops the postmaster named in {@code postmaster.pid} if that
 * process still runs a {@code postgres} binary (SIGTERM, i.e. smart shutdown, which is prompt because the clients
 * died with the JVM; SIGKILL if it is still there after {@link #STOP_TIMEOUT}), then deletes the directory.
 *
 * <p>Directories of live owners and names this class did not make are left alone. If the dead owner's pid has
 * been reused, the directory is merely kept until a later run. Reclaiming is best effort: a directory that cannot
 * be reclaimed is logged and skipped, never a reason to fail a start. Concurrent reclaimers (two JVMs starting at
 * once) are harmless: deleting what the other already deleted is not an error.
 */
final class AbandonedDataDirectories {

    static final Duration STOP_TIMEOUT = Duration.ofSeconds(10);
    private static final Logger log = LoggerFactory.getLogger(AbandonedDataDirectories.class);
    private static final Pattern DIRECTORY_NAME = Pattern.compile("(?<owner>\\d+)-\\d+");

    private final Path dataRoot;
    private final LongPredicate ownerAlive;

    AbandonedDataDirectories(Path dataRoot) {
        this(dataRoot, pid -> ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false));
    }

    AbandonedDataDirectories(Path dataRoot, LongPredicate ownerAlive) {
        this.dataRoot = dataRoot;
        this.ownerAlive = ownerAlive;
    }

    static String directoryName(long ownerPid, int sequence) {
        return ownerPid + "-" + sequence;
    }

    /** Reclaims every abandoned directory under the data root; returns those it deleted. */
    List<Path> reclaim() {
        List<Path> reclaimed = new ArrayList<>();
        if (!Files.isDirectory(dataRoot)) {
            return reclaimed;
        }
        try (Stream<Path> children = Files.list(dataRoot)) {
            for (Path directory : children.filter(Files::isDirectory).toList()) {
                Matcher name = DIRECTORY_NAME.matcher(directory.getFileName().toString());
                if (name.matches() && !ownerAlive.test(Long.parseLong(name.group("owner")))) {
                    if (discard(directory)) {
                        reclaimed.add(directory);
                    }
                }
            }
        } catch (IOException | UncheckedIOException e) {
            log.warn("Could not look for abandoned PostgreSQL data directories in {}: {}", dataRoot, e.toString());
        }
        return reclaimed;
    }

    /** Stops a postmaster still running in the directory, then deletes it; false if that did not work out. */
    static boolean discard(Path dataDirectory) {
        Optional<ProcessHandle> postmaster = runningPostmaster(dataDirectory);
        if (postmaster.isPresent() && !stop(postmaster.get())) {
            log.warn(
                    "Left {} in place: its postmaster (pid {}) did not stop within {}",
                    dataDirectory,
                    postmaster.get().pid(),
                    STOP_TIMEOUT);
            return false;
        }
        try {
            deleteRecursively(dataDirectory);
        } catch (IOException | UncheckedIOException e) {
            log.warn("Could not delete abandoned PostgreSQL data directory {}: {}", dataDirectory, e.toString());
            return false;
        }
        log.info(
                "Reclaimed abandoned PostgreSQL data directory {}{}",
                dataDirectory,
                postmaster
                        .map(p -> " and stopped its orphaned postmaster (pid " + p.pid() + ")")
                        .orElse(""));
        return true;
    }

    /**
     * Stops the postmaster still running in a kept cluster whose owner died without stopping it (SIGTERM, then
     * SIGKILL after {@link #STOP_TIMEOUT}; committed data is in its WAL either way); fails if it will not stop.
     */
    static void stopOrphanedPostmaster(Path dataDirectory) {
        Optional<ProcessHandle> postmaster = runningPostmaster(dataDirectory);
        if (postmaster.isEmpty()) {
            return;
        }
        if (!stop(postmaster.get())) {
            throw new IllegalStateException(
                    "A PostgreSQL (pid " + postmaster.get().pid() + ") still runs in " + dataDirectory
                            + " and did not stop within " + STOP_TIMEOUT);
        }
        log.info(
                "Stopped the PostgreSQL (pid {}) an earlier run left running in {}",
                postmaster.get().pid(),
                dataDirectory);
    }

    /** The postmaster named in the directory's {@code postmaster.pid}, if it is alive and runs postgres. */
    static Optional<ProcessHandle> runningPostmaster(Path dataDirectory) {
        OptionalLong pid = postmasterPid(dataDirectory);
        if (pid.isEmpty()) {
            return Optional.empty();
        }
        return ProcessHandle.of(pid.getAsLong())
                .filter(ProcessHandle::isAlive)
                .filter(p ->
                        p.info().command().map(c -> c.endsWith("/postgres")).orElse(false));
    }

    private static OptionalLong postmasterPid(Path dataDirectory) {
        Path pidFile = dataDirectory.resolve("postmaster.pid");
        try {
            List<String> lines = Files.readAllLines(pidFile);
            if (lines.isEmpty() || !lines.get(0).strip().matches("\\d+")) {
                return OptionalLong.empty();
            }
            return OptionalLong.of(Long.parseLong(lines.get(0).strip()));
        } catch (NoSuchFileException e) {
            return OptionalLong.empty();
        } catch (IOException e) {
            log.warn("Could not read {}: {}", pidFile, e.toString());
            return OptionalLong.empty();
        }
    }

    private static boolean stop(ProcessHandle postmaster) {
        postmaster.destroy();
        if (awaitExit(postmaster)) {
            return true;
        }
        postmaster.destroyForcibly();
        return awaitExit(postmaster);
    }

    private static boolean awaitExit(ProcessHandle process) {
        try {
            process.onExit().get(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            return true;
        } catch (TimeoutException e) {
            return false;
        } catch (ExecutionException e) {
            return !process.isAlive();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return !process.isAlive();
        }
    }

    private static void deleteRecursively(Path directory) throws IOException {
        try (Stream<Path> paths = Files.walk(directory)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        } catch (NoSuchFileException e) {
            // Another JVM reclaimed it first.
        }
    }
}
