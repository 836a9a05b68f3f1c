package io.orderflow.consumer.quarkus;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.testing.ConfigurationDocs;
import org.junit.jupiter.api.Test;

/**
 * docs/configuration.md lists exactly the consumers' shared keys and the admin endpoints' key, with their environment
 * variables and defaults.
 */
class ConfigurationDocsTest {
    @Test
    void everyKeyIsDocumentedWithItsEnvironmentVariableAndDefaultAndNoOtherIs() throws Exception {
        assertThat(ConfigurationDocs.documented(ConfigurationDocs.document(), "orderflow.consumer"))
                .isEqualTo(ConfigurationDocs.declared(ConsumerConfig.class));
    }

    @Test
    void theAdminTokenIsDocumentedWithItsEnvironmentVariableAndNoDefault() throws Exception {
        assertThat(ConfigurationDocs.documented(ConfigurationDocs.document(), "orderflow.admin"))
                .isEqualTo(ConfigurationDocs.declared(AdminConfig.class))
                .containsOnlyKeys("orderflow.admin.token");
    }
}
