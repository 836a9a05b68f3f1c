package io.orderflow.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class PostgresUrlTest {

    @Test
    void derivesAServiceDatabaseUrlOnTheSameServer() {
        PostgresUrl admin = PostgresUrl.parse("jdbc:postgresql://db.internal:5433/postgres");

        assertThat(admin.withDatabase("order_service").toString())
                .isEqualTo("jdbc:postgresql://db.internal:5433/order_service");
    }

    @Test
    void keepsHostsAndParameters() {
        PostgresUrl admin =
                PostgresUrl.parse("jdbc:postgresql://a:5432,b:5432/admin?sslmode=require&targetServerType=primary");

        assertThat(admin.database()).isEqualTo("admin");
        assertThat(admin.withDatabase("inventory_service").toString())
                .isEqualTo(
                        "jdbc:postgresql://a:5432,b:5432/inventory_service?sslmode=require&targetServerType=primary");
    }

    @Test
    void rejectsUrlsOfOtherDatabasesNamingTheUrl() {
        assertThatThrownBy(() -> PostgresUrl.parse("jdbc:mysql://localhost:3306/db"))
                .isInstanceOf(InvalidPostgresUrlException.class)
                .hasMessageContaining("'jdbc:mysql://localhost:3306/db'");
        assertThatThrownBy(() -> PostgresUrl.parse("jdbc:postgresql:postgres"))
                .isInstanceOf(InvalidPostgresUrlException.class);
    }

    @Test
    void rejectsUrlsWithoutADatabase() {
        assertThatThrownBy(() -> PostgresUrl.parse("jdbc:postgresql://localhost:5432/"))
                .isInstanceOf(InvalidPostgresUrlException.class)
                .hasMessageContaining("names no database");
        assertThatThrownBy(() -> PostgresUrl.parse("jdbc:postgresql://localhost:5432"))
                .isInstanceOf(InvalidPostgresUrlException.class);
    }
}
