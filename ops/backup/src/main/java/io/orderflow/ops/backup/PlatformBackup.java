package io.orderflow.ops.backup;

import io.orderflow.postgres.PostgresUrl;
import io.orderflow.process.DurableFiles;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Properties;
import java.util.stream.Stream;

/**
 * A backup of the running laptop platform ({@code ./run-platform}), taken without stopping it or its producers, and
 * the restore of one onto fresh directories.
 *
 * <p><b>What a backup holds</b>, under its directory: {@code secrets/} (the platform's certificates and passwords; the
 * broker's SCRAM credentials are derived from them), {@code broker/} ({@link BrokerLogCopy}: every partition a prefix
 * of its log), {@code postgres/cluster/} ({@link PostgresBaseBackup}: the whole cluster, every service's database at
 * one moment), and {@code backup.properties}: when the broker's copy began, the cluster backup's WAL positions, what
 * was copied.
 *
 * <p><b>The order, and the recovery rules it leads to.</b> The broker is copied first, then the cluster. So the
 * databases are newer than the broker's copy, never older:
 *
 * <ul>
 *   <li>an outbox row marked published after the broker's copy began may be missing from the copied log (the relay
 *       marks a row after the broker acknowledged it, and a record acknowledged before the copy began is in it). The
 *       restore therefore marks every outbox row published since the copy began (less a minute, for clocks) as not
 *       published, and each relay publishes those again: some events twice on a topic, with the same event id;
 *   <li>the groups' committed offsets (in the copied {@code __consumer_offsets}) are older than the consumers'
 *       databases, so every consumer sees again some events whose effects its database already holds, and skips them
 *       by event id ({@code processed_events}, kept for ever), as it skips any redelivery: nothing is applied twice;
 *   <li>mails: notification-service's database says which were sent; an event seen again is skipped, so no mail is
 *       sent twice; a mail claimed but not marked sent at the backup is sent again after its lease, with the same
 *       Message-ID (the resend a crash allows);
 *   <li>what happened after the cluster's backup is not in the restored platform: acknowledged orders from then on are
 *       gone with it, as with any backup. Orders acknowledged before the backup began are all there.
 * </ul>
 *
 * Not thread-safe; a backup is one call.
 */
public final class PlatformBackup {
    static final String MANIFEST = "backup.properties";
    static final String BROKER_COPY_STARTED = "broker.copy.started";

    private PlatformBackup() {}

    /** What a backup holds, as its manifest says. */
    public record Manifest(
            Instant brokerCopyStarted, String postgresStartLsn, String postgresStopLsn, String summary) {}

    /**
     * Backs up the platform whose PostgreSQL directory (the cluster under {@code cluster/}, running) and broker
     * directory are given, into {@code target}, which must not exist or be empty.
     */
    public static Manifest take(Path postgresDirectory, Path brokerDirectory, Path target, Clock clock)
            throws IOException, SQLException {
        requireEmpty(target);
        Path cluster = postgresDirectory.resolve("cluster");
        int port = postmasterPort(cluster);
        DurableFiles.createDirectories(target);
        TreeCopy.copy(secretsOf(postgresDirectory), target.resolve("secrets"));

        Instant brokerCopyStarted = clock.instant();
        BrokerLogCopy.Copied broker = BrokerLogCopy.copy(brokerDirectory, target.resolve("broker"));
        PostgresBaseBackup.Taken postgres = PostgresBaseBackup.take(
                cluster,
                PostgresUrl.local(port, "postgres").toString(),
                "postgres",
                "",
                target.resolve("postgres").resolve("cluster"));

        String summary = String.format(
                "broker: %d partitions, %d segments, %d bytes; PostgreSQL: %d bytes, WAL %s to %s",
                broker.partitions(),
                broker.segments(),
                broker.bytes(),
                postgres.bytes(),
                postgres.startLsn(),
                postgres.stopLsn());
        Properties manifest = new Properties();
        manifest.setProperty(BROKER_COPY_STARTED, brokerCopyStarted.toString());
        manifest.setProperty("postgres.start.lsn", postgres.startLsn());
        manifest.setProperty("postgres.stop.lsn", postgres.stopLsn());
        manifest.setProperty("summary", summary);
        try (OutputStream out = Files.newOutputStream(target.resolve(MANIFEST))) {
            manifest.store(out, "orderflow platform backup");
        }
        DurableFiles.fsyncTree(target);
        return new Manifest(brokerCopyStarted, postgres.startLsn(), postgres.stopLsn(), summary);
    }

    /** Reads a backup's manifest. */
    public static Manifest manifest(Path backup) throws IOException {
        Properties manifest = new Properties();
        try (InputStream in = Files.newInputStream(backup.resolve(MANIFEST))) {
            manifest.load(in);
        }
        return new Manifest(
                Instant.parse(manifest.getProperty(BROKER_COPY_STARTED)),
                manifest.getProperty("postgres.start.lsn"),
                manifest.getProperty("postgres.stop.lsn"),
                manifest.getProperty("summary"));
    }

    /** The platform's secrets: beside its PostgreSQL directory, as the launcher keeps them. */
    static Path secretsOf(Path postgresDirectory) {
        return postgresDirectory.toAbsolutePath().normalize().resolveSibling("secrets");
    }

    /** The running postmaster's port, from the fourth line of its {@code postmaster.pid}. */
    static int postmasterPort(Path cluster) throws IOException {
        Path pidFile = cluster.resolve("postmaster.pid");
        if (!Files.isRegularFile(pidFile)) {
            throw new IllegalStateException("no PostgreSQL runs on " + cluster + " (no postmaster.pid): start the"
                    + " platform first (./run-platform), the backup is taken while it runs");
        }
        List<String> lines = Files.readAllLines(pidFile);
        return Integer.parseInt(lines.get(3).trim());
    }

    static void requireEmpty(Path directory) throws IOException {
        if (Files.exists(directory)) {
            try (Stream<Path> entries = Files.list(directory)) {
                if (entries.findAny().isPresent()) {
                    throw new IllegalStateException(directory + " is not empty: give a new directory");
                }
            }
        }
    }
}
