package io.orderflow.ops.backup;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;
import java.util.Set;

/**
 * A base backup of a running PostgreSQL cluster through the server's own low-level backup API, as PostgreSQL's manual
 * describes it ("Making a Base Backup Using the Low Level API"): the embedded server's binaries have no {@code
 * pg_basebackup}, and the machine's may be older than the server.
 *
 * <ol>
 *   <li>In one session: a temporary physical replication slot that reserves the WAL from now on (so no checkpoint
 *       recycles a segment the backup needs), then {@code pg_backup_start(label, fast => true)}, which checkpoints.
 *   <li>The data directory copied file by file while the server runs and writes; pages torn by the copy are repaired
 *       from the WAL's full-page images on recovery ({@code full_page_writes=on}). Left out, as the manual says:
 *       {@code postmaster.pid}, {@code postmaster.opts}, the WAL (copied last), and the directories whose contents the
 *       server rebuilds ({@code pg_replslot}, {@code pg_stat_tmp}, {@code pg_dynshmem}, {@code pg_notify}, {@code
 *       pg_serial}, {@code pg_snapshots}, {@code pg_subtrans}), kept empty.
 *   <li>{@code pg_backup_stop(wait_for_archive => false)}: its label file is written into the copy as {@code
 *       backup_label}, which makes the server, started on the copy, replay the WAL from the backup's checkpoint and
 *       refuse to open before the backup's end.
 *   <li>The WAL copied after the stop (the server switched to a new segment at the stop, so the segment holding the
 *       backup's end is complete), and the copy fsynced.
 * </ol>
 *
 * Started on the copy, the server holds every transaction committed before {@code pg_backup_start} and possibly some
 * committed during the copy: a consistent state at a moment between the start and the end of the backup.
 */
final class PostgresBaseBackup {
    private static final Set<String> REBUILT = Set.of(
            "pg_wal",
            "pg_replslot",
            "pg_stat_tmp",
            "pg_dynshmem",
            "pg_notify",
            "pg_serial",
            "pg_snapshots",
            "pg_subtrans");
    /** The server's own run files, and the embedded library's lock ({@code epg-lock}). */
    private static final Set<String> LEFT_OUT =
            Set.of("postmaster.pid", "postmaster.opts", "backup_label.old", "epg-lock");

    /** The backup's WAL positions. */
    record Taken(String startLsn, String stopLsn, long bytes) {}

    private PostgresBaseBackup() {}

    /** {@code cluster}: the server's data directory; {@code jdbcUrl}: a superuser's connection to it. */
    static Taken take(Path cluster, String jdbcUrl, String user, String password, Path target)
            throws IOException, SQLException {
        Properties credentials = new Properties();
        credentials.setProperty("user", user);
        if (password != null && !password.isEmpty()) {
            credentials.setProperty("password", password);
        }
        try (Connection session = DriverManager.getConnection(jdbcUrl, credentials);
                Statement statement = session.createStatement()) {
            String slot = "orderflow_backup_" + ProcessHandle.current().pid();
            statement.execute("SELECT pg_create_physical_replication_slot('" + slot + "', true, true)");
            String startLsn = single(statement, "SELECT pg_backup_start('orderflow backup', true)::text");
            Files.createDirectories(target);
            ownerOnly(target);
            long bytes = copyDataDirectory(cluster, target);
            String stopLsn;
            try (ResultSet stop =
                    statement.executeQuery("SELECT lsn::text, labelfile, spcmapfile FROM pg_backup_stop(false)")) {
                stop.next();
                stopLsn = stop.getString(1);
                Files.writeString(target.resolve("backup_label"), stop.getString(2), StandardCharsets.UTF_8);
                String tablespaces = stop.getString(3);
                if (tablespaces != null && !tablespaces.isEmpty()) {
                    Files.writeString(target.resolve("tablespace_map"), tablespaces, StandardCharsets.UTF_8);
                }
            }
            bytes += copyWal(cluster, target);
            return new Taken(startLsn, stopLsn, bytes);
        }
    }

    /** PostgreSQL starts only on a data directory its owner alone may enter (0700). */
    static void ownerOnly(Path cluster) throws IOException {
        Files.setPosixFilePermissions(cluster, PosixFilePermissions.fromString("rwx------"));
    }

    private static String single(Statement statement, String sql) throws SQLException {
        try (ResultSet row = statement.executeQuery(sql)) {
            row.next();
            return row.getString(1);
        }
    }

    /** The data directory but the WAL and what the server rebuilds (kept as empty directories), and its run files. */
    private static long copyDataDirectory(Path cluster, Path target) throws IOException {
        long bytes = TreeCopy.copy(
                cluster,
                target,
                dir -> !(dir.getParent().equals(cluster)
                        && REBUILT.contains(dir.getFileName().toString())),
                file -> !(file.getParent().equals(cluster)
                        && LEFT_OUT.contains(file.getFileName().toString())));
        Files.createDirectories(target.resolve("pg_wal").resolve("archive_status"));
        return bytes;
    }

    /** The WAL, but a segment being made ({@code xlogtemp.*}), which is not WAL yet. */
    private static long copyWal(Path cluster, Path target) throws IOException {
        return TreeCopy.copy(
                cluster.resolve("pg_wal"),
                target.resolve("pg_wal"),
                dir -> true,
                file -> !file.getFileName().toString().startsWith("xlogtemp."));
    }
}
