package io.orderflow.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class DatabaseNameTest {

    @Test
    void turnsHyphensIntoUnderscores() {
        assertThat(DatabaseName.forService("order-service").value()).isEqualTo("order_service");
        assertThat(DatabaseName.forService("analytics_service2").value()).isEqualTo("analytics_service2");
    }

    @ParameterizedTest
    @ValueSource(
            strings = {"Order-Service", "order service", "order;drop", "order\"service", "2fast", "-order", "ordér"})
    void rejectsNamesOutsideTheAllowedCharactersNamingTheValue(String serviceName) {
        assertThatThrownBy(() -> DatabaseName.forService(serviceName))
                .isInstanceOf(InvalidServiceNameException.class)
                .hasMessageContaining("'" + serviceName + "'")
                .hasMessageContaining("[a-z0-9_-]");
    }

    @Test
    void rejectsEmptyAndOverlongNames() {
        assertThatThrownBy(() -> DatabaseName.forService("")).hasMessageContaining("it is empty");
        assertThatThrownBy(() -> DatabaseName.forService(null)).isInstanceOf(InvalidServiceNameException.class);
        String overlong = "s".repeat(64);
        assertThatThrownBy(() -> DatabaseName.forService(overlong))
                .isInstanceOf(InvalidServiceNameException.class)
                .hasMessageContaining("64 characters");
        assertThat(DatabaseName.forService("s".repeat(63)).value()).hasSize(63);
    }

    @ParameterizedTest
    @ValueSource(strings = {"postgres", "template0", "template1"})
    void refusesTheServersOwnDatabases(String serviceName) {
        assertThatThrownBy(() -> DatabaseName.forService(serviceName))
                .isInstanceOf(InvalidServiceNameException.class)
                .hasMessageContaining("server's own databases");
    }
}
