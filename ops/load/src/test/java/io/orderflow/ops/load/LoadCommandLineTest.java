package io.orderflow.ops.load;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/**
 * {@code ops/bin/load}'s command line as a user meets it, through picocli and without sending anything: {@code --help}
 * names every option with its default, and a command line the generator cannot run ends with exit code 2 and a message
 * naming the option and the value.
 */
class LoadCommandLineTest {

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    @Test
    void helpNamesEveryOptionWithItsDefault() {
        CommandLine commandLine = commandLine();

        assertThat(commandLine.execute("--help")).isZero();

        String flat = out.toString().replaceAll("\\s", "");
        for (OptionSpec option : commandLine.getCommandSpec().options()) {
            if (!option.usageHelp()) {
                assertThat(flat)
                        .as(option.longestName())
                        .contains(option.longestName())
                        // An option without a default value (--command-config) says what it falls back to instead.
                        .contains(
                                option.defaultValue() == null
                                        ? "(default:"
                                        : "(default:" + option.defaultValue() + ")");
            }
        }
        assertThat(out.toString())
                .contains("--rate=N", "(default: 100)", "(default: http://localhost:8080)", "(default: 1.1:1)");
        assertThat(err.toString()).isEmpty();
    }

    @Test
    void theLifecycleMixDefaultsToTheOneTheWholePlatformDrillsFollow() {
        CommandLine commandLine = commandLine();

        assertThat(commandLine.execute("--help")).isZero();

        String flat = out.toString().replaceAll("\\s", "");
        assertThat(flat)
                .contains("--pay=P")
                .contains("paid(default:" + LifecycleMix.DEFAULT.pay() + ")")
                .contains("shipped(default:" + LifecycleMix.DEFAULT.ship() + ")")
                .contains("cancelled(default:" + LifecycleMix.DEFAULT.cancel() + ")");
    }

    @Test
    void anUnknownOptionIsRefusedNamingIt() {
        assertThat(commandLine().execute("--rate", "5", "--rat", "10")).isEqualTo(2);

        assertThat(err.toString()).contains("Unknown options: '--rat', '10'", "Possible solutions: --rate");
    }

    @Test
    void badValuesAreRefusedNamingTheOptionBeforeAnythingIsSent() {
        assertThat(commandLine().execute("--url", "localhost:8080")).isEqualTo(2);
        assertThat(err.toString())
                .contains("Invalid value for option '--url': 'localhost:8080' is not an http or https URL");

        err.getBuffer().setLength(0);
        assertThat(commandLine().execute("--customers", "hot:2")).isEqualTo(2);
        assertThat(err.toString()).contains("Invalid value for option '--customers'", "was 'hot:2'");

        err.getBuffer().setLength(0);
        assertThat(commandLine().execute("--event-versions", "1.0:1")).isEqualTo(2);
        assertThat(err.toString()).contains("sends no order through order-service");
    }

    private CommandLine commandLine() {
        CommandLine commandLine = LoadCommandLine.commandLine();
        commandLine.setOut(new PrintWriter(out, true));
        commandLine.setErr(new PrintWriter(err, true));
        return commandLine;
    }
}
