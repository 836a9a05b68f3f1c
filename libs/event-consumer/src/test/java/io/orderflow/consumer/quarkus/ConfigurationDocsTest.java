package io.orderflow.consumer.quarkus;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.testing.ConfigurationDocs;
import org.junit.jupiter.api.Test;

/** docs/configuration.md lists exactly the consumers' shared keys, with their environment variables and defaults. */
class ConfigurationDocsTest {
    @Test
    void everyKeyIsDocumentedWithItsEnvironmentVariableAndDefaultAndNoOtherIs() throws Exception {
        assertThat(ConfigurationDocs.documented(ConfigurationDocs.document(), "orderflow.consumer"))
                .isEqualTo(ConfigurationDocs.declared(ConsumerConfig.class));
    }
}
