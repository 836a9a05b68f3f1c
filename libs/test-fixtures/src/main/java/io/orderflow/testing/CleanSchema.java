package io.orderflow.testing;

import io.orderflow.postgres.PostgresDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import org.flywaydb.core.Flyway;

/**
 * A test database emptied and migrated from scratch: its {@code public} schema dropped with everything in it, then
 * Flyway run from classpath locations (a service's {@code db/migration}, the outbox library's {@code db/outbox}).
 * For tests that own every table of their database for one test; Quarkus tests migrate through the service instead.
 */
public final class CleanSchema {

    private CleanSchema() {}

    /**
     * Drops and recreates {@code database}'s public schema: an empty database, for a service that migrates it itself
     * when it starts (the packaged services of the process tests).
     */
    public static void empty(PostgresDatabase database) throws SQLException {
        try (Connection connection = database.connect();
                Statement statement = connection.createStatement()) {
            statement.execute("DROP SCHEMA IF EXISTS public CASCADE");
            statement.execute("CREATE SCHEMA public");
        }
    }

    /** Drops and recreates {@code database}'s public schema, then applies the migrations at {@code locations}. */
    public static void migrate(PostgresDatabase database, String... locations) throws SQLException {
        empty(database);
        Flyway.configure()
                .dataSource(database.jdbcUrl(), database.user(), database.password())
                .locations(locations)
                .load()
                .migrate();
    }
}
