package io.orderflow.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import io.smallrye.config.WithName;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The two sides the services' documentation tests compare, and a mismatch of each kind they must catch. */
class ConfigurationDocsTest {
    @ConfigMapping(prefix = "orderflow.sample-service")
    interface SampleConfig {
        @WithDefault("5s")
        Duration pollInterval();

        Optional<String> label();

        Limits limits();

        default String derived() {
            return "not a key";
        }

        interface Limits {
            @WithName("max")
            @WithDefault("10")
            int maximum();
        }
    }

    @TempDir
    Path dir;

    private Path doc(String... rows) throws Exception {
        Path file = dir.resolve("configuration.md");
        Files.writeString(
                file,
                "| key | environment variable | default | what |\n|---|---|---|---|\n" + String.join("\n", rows)
                        + "\n");
        return file;
    }

    private static final String POLL =
            "| `orderflow.sample-service.poll-interval` | `ORDERFLOW_SAMPLE_SERVICE_POLL_INTERVAL` | `5s` | x |";
    private static final String LABEL =
            "| `orderflow.sample-service.label` | `ORDERFLOW_SAMPLE_SERVICE_LABEL` | none | x |";
    private static final String MAX =
            "| `orderflow.sample-service.limits.max` | `ORDERFLOW_SAMPLE_SERVICE_LIMITS_MAX` | `10` | x |";

    @Test
    void declaredKeysFollowTheMappingsNamesGroupsAndDefaults() {
        assertThat(ConfigurationDocs.declared(SampleConfig.class))
                .containsOnlyKeys(
                        "orderflow.sample-service.poll-interval",
                        "orderflow.sample-service.label",
                        "orderflow.sample-service.limits.max")
                .containsEntry(
                        "orderflow.sample-service.limits.max",
                        new ConfigurationDocs.Key(
                                "orderflow.sample-service.limits.max", "ORDERFLOW_SAMPLE_SERVICE_LIMITS_MAX", "10"));
    }

    @Test
    void aCompleteDocumentMatchesAndEachKindOfDriftDoesNot() throws Exception {
        var declared = ConfigurationDocs.declared(SampleConfig.class);
        String prefix = "orderflow.sample-service";

        assertThat(ConfigurationDocs.documented(doc(POLL, LABEL, MAX), prefix)).isEqualTo(declared);
        assertThat(ConfigurationDocs.documented(doc(POLL, LABEL), prefix)).isNotEqualTo(declared);
        assertThat(ConfigurationDocs.documented(
                        doc(POLL, LABEL, MAX, "| `orderflow.sample-service.gone` | `X` | `1` | x |"), prefix))
                .isNotEqualTo(declared);
        assertThat(ConfigurationDocs.documented(doc(POLL.replace("`5s`", "`6s`"), LABEL, MAX), prefix))
                .isNotEqualTo(declared);
        assertThat(ConfigurationDocs.documented(doc(POLL.replace("POLL_INTERVAL", "POLL"), LABEL, MAX), prefix))
                .isNotEqualTo(declared);
    }
}
