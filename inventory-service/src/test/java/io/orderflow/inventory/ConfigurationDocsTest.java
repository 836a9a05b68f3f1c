package io.orderflow.inventory;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.testing.ConfigurationDocs;
import org.junit.jupiter.api.Test;

/** docs/configuration.md lists exactly inventory-service's own keys, with their environment variables and defaults. */
class ConfigurationDocsTest {
    @Test
    void everyKeyIsDocumentedWithItsEnvironmentVariableAndDefaultAndNoOtherIs() throws Exception {
        assertThat(ConfigurationDocs.documented(ConfigurationDocs.document(), "orderflow.inventory-service"))
                .isEqualTo(ConfigurationDocs.declared(InventoryConfig.class))
                .containsKey("orderflow.inventory-service.outcomes");
    }
}
