package io.orderflow.platform;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class LaunchOptionsTest {

    @Test
    void defaultsToAnEmbeddedServerUnderTheWorkingDirectoryOnAFreePort() {
        LaunchOptions options = LaunchOptions.parse();

        assertThat(options.help()).isFalse();
        assertThat(options.postgresDirectory()).isEqualTo(Path.of(".orderflow", "postgres"));
        assertThat(options.postgresPort()).isZero();
    }

    @Test
    void acceptsOptionsWithSeparateOrInlineValues() {
        assertThat(LaunchOptions.parse("--postgres-dir", "/var/tmp/pg", "--postgres-port", "15432"))
                .isEqualTo(new LaunchOptions(false, Path.of("/var/tmp/pg"), 15432));
        assertThat(LaunchOptions.parse("--postgres-dir=/var/tmp/pg", "--postgres-port=15432"))
                .isEqualTo(new LaunchOptions(false, Path.of("/var/tmp/pg"), 15432));
    }

    @Test
    void recognisesHelp() {
        assertThat(LaunchOptions.parse("--help").help()).isTrue();
        assertThat(LaunchOptions.parse("-h").help()).isTrue();
        assertThat(LaunchOptions.USAGE).contains("--postgres-dir", "--postgres-port", "ORDERFLOW_POSTGRES_URL");
    }

    @Test
    void rejectsUnknownArgumentsNamingThem() {
        assertThatThrownBy(() -> LaunchOptions.parse("--broker"))
                .isInstanceOf(InvalidArgumentsException.class)
                .hasMessageContaining("'--broker'");
    }

    @Test
    void rejectsMissingAndInvalidValues() {
        assertThatThrownBy(() -> LaunchOptions.parse("--postgres-dir"))
                .isInstanceOf(InvalidArgumentsException.class)
                .hasMessageContaining("'--postgres-dir' needs a value");
        assertThatThrownBy(() -> LaunchOptions.parse("--postgres-port", "70000"))
                .isInstanceOf(InvalidArgumentsException.class)
                .hasMessageContaining("70000");
        assertThatThrownBy(() -> LaunchOptions.parse("--postgres-port=five"))
                .isInstanceOf(InvalidArgumentsException.class)
                .hasMessageContaining("five");
    }
}
