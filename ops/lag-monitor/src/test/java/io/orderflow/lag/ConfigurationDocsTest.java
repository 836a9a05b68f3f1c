package io.orderflow.lag;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.testing.ConfigurationDocs;
import org.junit.jupiter.api.Test;

/** docs/configuration.md lists exactly lag-monitor's keys, with their environment variables and defaults. */
class ConfigurationDocsTest {
    @Test
    void everyKeyIsDocumentedWithItsEnvironmentVariableAndDefaultAndNoOtherIs() throws Exception {
        assertThat(ConfigurationDocs.documented(ConfigurationDocs.document(), "orderflow.lag-monitor"))
                .isEqualTo(ConfigurationDocs.declared(LagMonitorConfig.class));
    }
}
