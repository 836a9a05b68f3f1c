package io.orderflow.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.postgres.PostgresDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

@PostgresTest(service = "order-service")
class PostgresExtensionTest {

    private PostgresDatabase databaseBeforeEach;

    @BeforeEach
    void rememberDatabase(PostgresDatabase database) {
        databaseBeforeEach = database;
    }

    @Test
    void runsQueriesOnARealPostgresql(PostgresDatabase database) throws SQLException {
        try (Connection connection = database.connect()) {
            assertThat(queryString(connection, "select version()")).contains("PostgreSQL");
            assertThat(queryString(connection, "select current_database()")).isEqualTo("order_service");
        }
        assertThat(database.serviceName()).isEqualTo("order-service");
    }

    @Test
    void storesAndReadsRows(PostgresDatabase database) throws SQLException {
        try (Connection connection = database.dataSource().getConnection();
                Statement statement = connection.createStatement()) {
            // The database outlives the test (and, on a configured server, the run): start from a known state.
            statement.execute("drop table if exists fixture_orders");
            statement.execute("create table fixture_orders (id bigint primary key, customer text not null)");
            statement.execute("insert into fixture_orders values (1, 'ada'), (2, 'grace')");

            assertThat(queryString(connection, "select string_agg(customer, ',' order by id) from fixture_orders"))
                    .isEqualTo("ada,grace");
        }
    }

    @Test
    void givesEachServiceItsOwnDatabaseOnTheSameServer(
            PostgresDatabase orders, @ServiceDatabase("inventory-service") PostgresDatabase inventory)
            throws SQLException {
        try (Connection ordersConnection = orders.connect();
                Connection inventoryConnection = inventory.connect();
                Statement statement = ordersConnection.createStatement()) {
            statement.execute("drop table if exists only_in_orders");
            statement.execute("create table only_in_orders (id int)");

            assertThat(queryString(ordersConnection, "select to_regclass('only_in_orders')::text"))
                    .isEqualTo("only_in_orders");
            assertThat(queryString(
                            inventoryConnection, "select coalesce(to_regclass('only_in_orders')::text, 'absent')"))
                    .isEqualTo("absent");
            assertThat(queryString(inventoryConnection, "select current_database()"))
                    .isEqualTo("inventory_service");
            assertThat(queryString(inventoryConnection, "select inet_server_port()::text"))
                    .isEqualTo(queryString(ordersConnection, "select inet_server_port()::text"));
        }
    }

    @Test
    void resolvesLifecycleMethodParametersToTheSameDatabase(PostgresDatabase database) {
        assertThat(databaseBeforeEach).isEqualTo(database);
    }

    @Test
    @PostgresTest(service = "notification-service")
    void aMethodAnnotationWinsOverTheClassAnnotation(PostgresDatabase database) {
        assertThat(database.databaseName()).isEqualTo("notification_service");
    }

    static String queryString(Connection connection, String sql) throws SQLException {
        try (Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery(sql)) {
            assertThat(rows.next()).as("a row from %s", sql).isTrue();
            return rows.getString(1);
        }
    }
}
