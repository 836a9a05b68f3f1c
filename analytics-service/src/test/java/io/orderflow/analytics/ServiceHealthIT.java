package io.orderflow.analytics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.orderflow.postgres.PostgresDatabase;
import io.orderflow.process.ServiceProcess;
import io.orderflow.testing.CleanSchema;
import io.orderflow.testing.InProcessBroker;
import io.orderflow.testing.PackagedService;
import io.orderflow.testing.PostgresTest;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A consuming service's health as an orchestrator sees it, on the packaged analytics-service (the three consumers share
 * the same checks: Quarkus's datasource check and SmallRye's Kafka channel checks): ready while its database and
 * broker are reachable, not ready while either is away, ready again when it is back; alive throughout.
 */
@PostgresTest(service = "analytics-health")
class ServiceHealthIT {

    private static final Duration WITHIN = Duration.ofMinutes(1);
    private static final String READY = "/q/health/ready";
    private static final String LIVE = "/q/health/live";

    private static void allowConnections(PostgresDatabase database, boolean allowed) throws SQLException {
        String maintenance = database.jdbcUrl().replace("/" + database.databaseName(), "/postgres");
        try (Connection admin = DriverManager.getConnection(maintenance, database.user(), database.password());
                Statement statement = admin.createStatement()) {
            statement.execute("ALTER DATABASE " + database.databaseName() + " WITH ALLOW_CONNECTIONS " + allowed);
            if (!allowed) {
                statement.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '"
                        + database.databaseName() + "'");
            }
        }
    }

    @Test
    void notReadyWhileTheDatabaseOrTheBrokerIsAwayAndAliveThroughout(PostgresDatabase database, @TempDir Path dir)
            throws Exception {
        CleanSchema.empty(database);
        try (InProcessBroker broker = InProcessBroker.start(dir)) {
            broker.createTopic("orders", 3);
            try (ServiceProcess service = PackagedService.builder(
                            "analytics-service", database, broker.bootstrapServers(), "analytics-health")
                    .start()) {
                assertThat(service.status(READY)).isEqualTo(200);

                allowConnections(database, false);
                try {
                    await().atMost(WITHIN).until(() -> service.status(READY) == 503);
                    assertThat(service.get(READY)).contains("Database connections health check");
                    assertThat(service.status(LIVE)).isEqualTo(200);
                } finally {
                    allowConnections(database, true);
                }
                await().atMost(WITHIN).until(() -> service.status(READY) == 200);

                broker.stop();
                await().atMost(WITHIN).until(() -> service.status(READY) == 503);
                assertThat(service.get(READY))
                        .contains("SmallRye Reactive Messaging - readiness check")
                        .contains("\"orders\": \"[KO]\"");
                assertThat(service.status(LIVE)).isEqualTo(200);

                broker.start();
                await().atMost(WITHIN).until(() -> service.status(READY) == 200);
            }
        }
    }
}
