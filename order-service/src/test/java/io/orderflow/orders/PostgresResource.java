package io.orderflow.orders;

import io.orderflow.postgres.EmbeddedMode;
import io.orderflow.postgres.LocalPostgres;
import io.orderflow.postgres.PostgresDatabase;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import java.nio.file.Path;
import java.util.Map;

/**
 * A real PostgreSQL for the {@code @QuarkusTest}s: the server configured by {@code ORDERFLOW_POSTGRES_URL} if set,
 * else an embedded PostgreSQL 17 under {@code target/embedded-postgres} (local-postgres), with the
 * {@code order_service} database on it. Quarkus starts it before the application, which then migrates it with Flyway.
 * Without fsync, as every test's embedded server ({@link EmbeddedMode#FRESH_UNSYNCED}): the database dies with the run.
 *
 * <p>On a configured server the database outlives the run, so tests never assume empty tables: they look only at the
 * rows of the orders they create.
 */
public class PostgresResource implements QuarkusTestResourceLifecycleManager {

    private LocalPostgres postgres;

    @Override
    public Map<String, String> start() {
        postgres = LocalPostgres.start(
                Path.of("target", "embedded-postgres").toAbsolutePath(), EmbeddedMode.FRESH_UNSYNCED);
        PostgresDatabase database = postgres.database("order-service");
        return Map.of(
                "quarkus.datasource.jdbc.url", database.jdbcUrl(),
                "quarkus.datasource.username", database.user(),
                "quarkus.datasource.password", database.password());
    }

    @Override
    public void stop() {
        if (postgres != null) {
            postgres.close();
        }
    }
}
