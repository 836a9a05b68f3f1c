package io.orderflow.platform;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.orderflow.postgres.PostgresConfiguration;
import io.orderflow.postgres.PostgresDatabase;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class LocalPlatformTest {

    private static final LaunchOptions OPTIONS =
            new LaunchOptions(false, Path.of("target", "embedded-postgres").toAbsolutePath(), 0);

    private static LocalPlatform platform;

    @BeforeAll
    static void startPlatform() {
        platform = LocalPlatform.start(PostgresConfiguration.embedded(), OPTIONS);
    }

    @AfterAll
    static void stopPlatform() {
        platform.close();
    }

    @Test
    void startsPostgresWithOneDatabasePerService() throws SQLException {
        assertThat(platform.databases())
                .extracting(PostgresDatabase::serviceName)
                .containsExactly("order-service", "inventory-service", "notification-service", "analytics-service");
        for (PostgresDatabase database : platform.databases()) {
            try (Connection connection = database.connect();
                    Statement statement = connection.createStatement();
                    ResultSet rows = statement.executeQuery("select current_database()")) {
                assertThat(rows.next()).isTrue();
                assertThat(rows.getString(1)).isEqualTo(database.databaseName());
            }
        }
    }

    @Test
    void reportsEveryJdbcUrlAndWhatIsNotBuiltYet() {
        String report = StartupReport.render(platform);

        assertThat(report).contains("embedded", platform.postgres().adminJdbcUrl(), StartupReport.NOT_BUILT_YET);
        for (PostgresDatabase database : platform.databases()) {
            assertThat(report)
                    .containsPattern(
                            database.serviceName() + " +" + database.databaseName() + " +" + database.jdbcUrl());
        }
    }

    @Test
    void closeStopsPostgresAndDeletesItsData() {
        LocalPlatform own = LocalPlatform.start(PostgresConfiguration.embedded(), OPTIONS);
        PostgresDatabase orders = own.databases().getFirst();
        Path data = own.postgres().embeddedDataDirectory().orElseThrow();

        own.close();

        assertThatThrownBy(orders::connect).isInstanceOf(SQLException.class);
        assertThat(data).doesNotExist();
    }
}
