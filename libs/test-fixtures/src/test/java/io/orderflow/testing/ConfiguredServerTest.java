package io.orderflow.testing;

import static io.orderflow.testing.PostgresExtensionTest.queryString;
import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.postgres.EmbeddedMode;
import io.orderflow.postgres.LocalPostgres;
import io.orderflow.postgres.PostgresConfiguration;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;

class ConfiguredServerTest {

    @Test
    void usesTheConfiguredServerInsteadOfStartingOne() throws SQLException {
        Path unusedDirectory =
                Path.of("target", "configured-postgres-must-stay-unused").toAbsolutePath();
        try (LocalPostgres existing = LocalPostgres.start(
                PostgresConfiguration.embedded(),
                PostgresExtension.EMBEDDED_DIRECTORY,
                0,
                EmbeddedMode.FRESH_UNSYNCED)) {
            String existingPort;
            try (Connection connection = existing.database("order-service").connect()) {
                existingPort = queryString(connection, "select inet_server_port()::text");
            }
            System.setProperty(PostgresConfiguration.URL_PROPERTY, existing.adminJdbcUrl());
            System.setProperty(PostgresConfiguration.USER_PROPERTY, existing.user());
            try (LocalPostgres configured = LocalPostgres.start(unusedDirectory, EmbeddedMode.FRESH_UNSYNCED)) {

                assertThat(configured.isEmbedded()).isFalse();
                assertThat(configured.adminJdbcUrl()).isEqualTo(existing.adminJdbcUrl());
                assertThat(configured.embeddedDataDirectory()).isEmpty();
                try (Connection connection =
                        configured.database("analytics-service").connect()) {
                    assertThat(queryString(connection, "select inet_server_port()::text"))
                            .isEqualTo(existingPort);
                    assertThat(queryString(connection, "select current_database()"))
                            .isEqualTo("analytics_service");
                }
            } finally {
                System.clearProperty(PostgresConfiguration.URL_PROPERTY);
                System.clearProperty(PostgresConfiguration.USER_PROPERTY);
            }
            assertThat(unusedDirectory).doesNotExist();
        }
    }
}
