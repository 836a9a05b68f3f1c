package io.orderflow.analytics;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.testing.ConfigurationDocs;
import org.junit.jupiter.api.Test;

/** docs/configuration.md lists exactly analytics-service's keys, with their environment variables and defaults. */
class ConfigurationDocsTest {
    @Test
    void everyKeyIsDocumentedWithItsEnvironmentVariableAndDefaultAndNoOtherIs() throws Exception {
        assertThat(ConfigurationDocs.documented(ConfigurationDocs.document(), "orderflow.analytics-service"))
                .isEqualTo(ConfigurationDocs.declared(AnalyticsConfig.class));
    }
}
