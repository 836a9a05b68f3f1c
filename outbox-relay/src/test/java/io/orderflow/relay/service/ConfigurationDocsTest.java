package io.orderflow.relay.service;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.relay.RelayConfig;
import io.orderflow.testing.ConfigurationDocs;
import org.junit.jupiter.api.Test;

/** docs/configuration.md lists exactly outbox-relay's keys, with their environment variables and defaults. */
class ConfigurationDocsTest {
    @Test
    void everyKeyIsDocumentedWithItsEnvironmentVariableAndDefaultAndNoOtherIs() throws Exception {
        assertThat(ConfigurationDocs.documented(ConfigurationDocs.document(), "orderflow.outbox-relay"))
                .isEqualTo(ConfigurationDocs.declared(RelayConfig.class));
    }
}
