package io.orderflow.ops.backup;

import io.orderflow.postgres.EmbeddedMode;
import io.orderflow.postgres.LocalPostgres;
import io.orderflow.postgres.PostgresConfiguration;
import io.orderflow.postgres.PostgresUrl;
import io.orderflow.process.DurableFiles;
import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * Brings a {@link PlatformBackup} up on fresh directories, ready for {@code ./run-platform --postgres-dir P
 * --broker-dir B}: the cluster, the broker's log and the secrets copied in, then the cluster started once (PostgreSQL
 * replays the backup's WAL: its own recovery) and the recovery rule applied: in every database with an outbox, every
 * row published since the broker's copy began, less {@link #CLOCK_MARGIN}, is marked unpublished, so that its relay
 * publishes it again (the reasons: {@link PlatformBackup}).
 */
public final class PlatformRestore {
    /** Rows published this long before the broker's copy began are published again too: the two clocks may differ. */
    static final Duration CLOCK_MARGIN = Duration.ofMinutes(1);

    private PlatformRestore() {}

    /** What the restore did: per database with an outbox, the rows marked to be published again. */
    public record Restored(Map<String, Integer> republished) {}

    public static Restored restore(Path backup, Path postgresDirectory, Path brokerDirectory)
            throws IOException, SQLException {
        PlatformBackup.Manifest manifest = PlatformBackup.manifest(backup);
        Path secrets = PlatformBackup.secretsOf(postgresDirectory);
        for (Path target : List.of(postgresDirectory, brokerDirectory, secrets)) {
            PlatformBackup.requireEmpty(target);
        }
        TreeCopy.copy(backup.resolve("secrets"), secrets);
        TreeCopy.copy(backup.resolve("broker"), brokerDirectory);
        TreeCopy.copy(backup.resolve("postgres").resolve("cluster"), postgresDirectory.resolve("cluster"));
        PostgresBaseBackup.ownerOnly(postgresDirectory.resolve("cluster"));
        DurableFiles.fsyncTree(secrets);
        DurableFiles.fsyncTree(brokerDirectory);
        DurableFiles.fsyncTree(postgresDirectory);

        Instant since = manifest.brokerCopyStarted().minus(CLOCK_MARGIN);
        Map<String, Integer> republished = new LinkedHashMap<>();
        try (LocalPostgres postgres =
                LocalPostgres.start(PostgresConfiguration.embedded(), postgresDirectory, 0, EmbeddedMode.KEPT)) {
            for (String database : databases(postgres)) {
                String url = PostgresUrl.parse(postgres.adminJdbcUrl())
                        .withDatabase(database)
                        .toString();
                try (Connection connection = DriverManager.getConnection(url, credentials(postgres))) {
                    for (String schema : outboxSchemas(connection)) {
                        try (PreparedStatement unpublish = connection.prepareStatement("UPDATE \"" + schema
                                + "\".outbox SET published_at = NULL"
                                + " WHERE published_at >= ? AND quarantined_at IS NULL")) {
                            unpublish.setTimestamp(1, Timestamp.from(since));
                            republished.merge(database, unpublish.executeUpdate(), Integer::sum);
                        }
                    }
                }
            }
        }
        return new Restored(republished);
    }

    private static List<String> databases(LocalPostgres postgres) throws SQLException {
        List<String> names = new ArrayList<>();
        try (Connection connection = DriverManager.getConnection(postgres.adminJdbcUrl(), credentials(postgres));
                ResultSet rows = connection
                        .createStatement()
                        .executeQuery("SELECT datname FROM pg_database WHERE datallowconn AND NOT datistemplate"
                                + " ORDER BY datname")) {
            while (rows.next()) {
                names.add(rows.getString(1));
            }
        }
        return names;
    }

    private static List<String> outboxSchemas(Connection connection) throws SQLException {
        List<String> schemas = new ArrayList<>();
        try (ResultSet rows = connection
                .createStatement()
                .executeQuery("SELECT table_schema FROM information_schema.tables WHERE table_name = 'outbox'")) {
            while (rows.next()) {
                schemas.add(rows.getString(1));
            }
        }
        return schemas;
    }

    private static Properties credentials(LocalPostgres postgres) {
        Properties credentials = new Properties();
        credentials.setProperty("user", postgres.user());
        return credentials;
    }
}
