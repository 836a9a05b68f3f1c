package io.orderflow.platform;

import io.orderflow.postgres.LocalPostgres;
import io.orderflow.postgres.PostgresConfiguration;
import io.orderflow.postgres.PostgresDatabase;
import java.util.List;

/**
 * Everything the launcher starts, as one object that stops it all again.
 *
 * <p>Today: a {@link LocalPostgres} (the configured server, or an embedded one under the launch options'
 * directory) and one database per service. The log broker and the services join here as later issues build them;
 * {@link #close()} stops in reverse order of start. Not thread-safe except {@link #close()}, which is idempotent
 * and may race with the shutdown hook.
 */
public final class LocalPlatform implements AutoCloseable {

    /** The services that get a database, in the order the launcher reports them. */
    public static final List<String> SERVICES =
            List.of("order-service", "inventory-service", "notification-service", "analytics-service");

    private final LocalPostgres postgres;
    private final List<PostgresDatabase> databases;

    private LocalPlatform(LocalPostgres postgres, List<PostgresDatabase> databases) {
        this.postgres = postgres;
        this.databases = databases;
    }

    public static LocalPlatform start(PostgresConfiguration configuration, LaunchOptions options) {
        LocalPostgres postgres =
                LocalPostgres.start(configuration, options.postgresDirectory(), options.postgresPort());
        try {
            List<PostgresDatabase> databases =
                    SERVICES.stream().map(postgres::database).toList();
            return new LocalPlatform(postgres, databases);
        } catch (RuntimeException e) {
            postgres.close();
            throw e;
        }
    }

    public LocalPostgres postgres() {
        return postgres;
    }

    public List<PostgresDatabase> databases() {
        return databases;
    }

    @Override
    public void close() {
        postgres.close();
    }
}
