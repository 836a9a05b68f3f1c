package io.orderflow.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class PostgresConfigurationTest {

    @Test
    void withNothingConfiguredAnEmbeddedServerIsUsed() {
        PostgresConfiguration configuration = PostgresConfiguration.from(name -> null, name -> null);

        assertThat(configuration.serverUrl()).isEmpty();
        assertThat(configuration.user()).isEqualTo("postgres");
        assertThat(configuration.password()).isEmpty();
    }

    @Test
    void readsTheServerFromEnvironmentVariables() {
        Map<String, String> environment = Map.of(
                "ORDERFLOW_POSTGRES_URL", "jdbc:postgresql://ci-db:5432/postgres",
                "ORDERFLOW_POSTGRES_USER", "ci",
                "ORDERFLOW_POSTGRES_PASSWORD", "secret");

        PostgresConfiguration configuration = PostgresConfiguration.from(name -> null, environment::get);

        assertThat(configuration.serverUrl())
                .hasValueSatisfying(
                        url -> assertThat(url.toString()).isEqualTo("jdbc:postgresql://ci-db:5432/postgres"));
        assertThat(configuration.user()).isEqualTo("ci");
        assertThat(configuration.password()).isEqualTo("secret");
        assertThat(configuration.toString()).doesNotContain("secret");
    }

    @Test
    void systemPropertiesWinOverEnvironmentVariables() {
        Map<String, String> properties = Map.of(
                "orderflow.postgres.url", "jdbc:postgresql://localhost:5432/postgres", "orderflow.postgres.user", "me");
        Map<String, String> environment = Map.of(
                "ORDERFLOW_POSTGRES_URL", "jdbc:postgresql://ci-db:5432/postgres", "ORDERFLOW_POSTGRES_USER", "ci");

        PostgresConfiguration configuration = PostgresConfiguration.from(properties::get, environment::get);

        assertThat(configuration.serverUrl().orElseThrow().hosts()).isEqualTo("localhost:5432");
        assertThat(configuration.user()).isEqualTo("me");
    }

    @Test
    void blankValuesCountAsUnset() {
        Map<String, String> properties = Map.of("orderflow.postgres.url", "  ", "orderflow.postgres.user", "");

        PostgresConfiguration configuration = PostgresConfiguration.from(properties::get, name -> null);

        assertThat(configuration.serverUrl()).isEmpty();
        assertThat(configuration.user()).isEqualTo("postgres");
    }
}
