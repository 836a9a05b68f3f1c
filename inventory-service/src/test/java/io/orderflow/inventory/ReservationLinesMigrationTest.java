package io.orderflow.inventory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.orderflow.postgres.PostgresDatabase;
import io.orderflow.testing.CleanSchema;
import io.orderflow.testing.PostgresTest;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.configuration.FluentConfiguration;
import org.junit.jupiter.api.Test;

/**
 * The V2 migration on a database that V1 filled: every order's held lines move from {@code reservation_lines} into its
 * reservation row, in SKU order, and the old table is gone; the new columns refuse unpaired or non-positive lines.
 */
@PostgresTest(service = "inventory-migration")
class ReservationLinesMigrationTest {

    private static final String[] LOCATIONS = {"classpath:db/migration", "classpath:db/outbox", "classpath:db/consumer"
    };

    @Test
    void upgradingMovesEveryOrdersLinesIntoItsReservationRow(PostgresDatabase database) throws SQLException {
        CleanSchema.empty(database);
        flyway(database).target("1.2").load().migrate();
        try (Connection connection = database.connect();
                Statement statement = connection.createStatement()) {
            statement.execute("""
                    INSERT INTO reservations (order_id, status) VALUES
                        ('order-held', 'RESERVED'), ('order-released', 'RELEASED'), ('order-rejected', 'REJECTED');
                    INSERT INTO reservation_lines (order_id, sku, quantity) VALUES
                        ('order-held', 'sku-20', 2), ('order-held', 'sku-3', 5), ('order-held', 'sku-100', 1),
                        ('order-released', 'sku-7', 4);
                    """);
        }

        flyway(database).load().migrate();

        try (Connection connection = database.connect();
                Statement statement = connection.createStatement()) {
            assertThat(rows(
                            statement,
                            "SELECT order_id, status, line_skus::text, line_quantities::text FROM reservations"
                                    + " ORDER BY order_id"))
                    .containsExactly(
                            "order-held RESERVED {sku-100,sku-20,sku-3} {1,2,5}",
                            "order-rejected REJECTED {} {}",
                            "order-released RELEASED {sku-7} {4}");
            assertThat(rows(statement, "SELECT count(*) FROM pg_tables WHERE tablename = 'reservation_lines'"))
                    .containsExactly("0");
            assertThatThrownBy(() -> statement.execute("INSERT INTO reservations (order_id, status, line_skus,"
                            + " line_quantities) VALUES ('unpaired', 'RESERVED', '{sku-1,sku-2}', '{1}')"))
                    .isInstanceOf(SQLException.class)
                    .hasMessageContaining("reservations_lines_paired");
            assertThatThrownBy(() -> statement.execute("INSERT INTO reservations (order_id, status, line_skus,"
                            + " line_quantities) VALUES ('zero', 'RESERVED', '{sku-1}', '{0}')"))
                    .isInstanceOf(SQLException.class)
                    .hasMessageContaining("reservations_lines_positive");
        }
    }

    private static FluentConfiguration flyway(PostgresDatabase database) {
        return Flyway.configure()
                .dataSource(database.jdbcUrl(), database.user(), database.password())
                .locations(LOCATIONS);
    }

    private static List<String> rows(Statement statement, String query) throws SQLException {
        List<String> rows = new ArrayList<>();
        try (ResultSet result = statement.executeQuery(query)) {
            int columns = result.getMetaData().getColumnCount();
            while (result.next()) {
                StringBuilder row = new StringBuilder();
                for (int c = 1; c <= columns; c++) {
                    row.append(c > 1 ? " " : "").append(result.getString(c));
                }
                rows.add(row.toString());
            }
        }
        return rows;
    }
}
