package io.orderflow.ops.replay;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/**
 * {@code ops/bin/replay}'s command line through picocli, without a broker: every option in {@code --help} with its
 * default, exit code 2 for a missing group, two starts, an unknown option or a value that does not parse, and exit
 * code 1 with the reason when there is no platform to stop the service through.
 */
class ReplayCommandLineTest {

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    @Test
    void helpNamesEveryOptionWithItsDefaultOrAsRequired() {
        CommandLine commandLine = commandLine();

        assertThat(commandLine.execute("--help")).isZero();

        String flat = out.toString().replaceAll("\\s", "");
        for (OptionSpec option : commandLine.getCommandSpec().options()) {
            if (option.usageHelp()) {
                continue;
            }
            assertThat(flat).contains(option.longestName());
            assertThat(String.join(" ", option.description()))
                    .as(option.longestName())
                    .containsAnyOf("(required)", "(default: ");
        }
        assertThat(out.toString())
                .contains("--group=GROUP", "[--to-earliest | --to-datetime=TIME | --by-duration=DURATION]")
                .contains("(default: orders;", "(default: launcher)", "(default: 30s)", "(default: localhost:9092)");
    }

    @Test
    void aMissingGroupTwoStartsAnUnknownOptionAndBadValuesAreRefusedWithExitCode2() {
        assertRefused("Missing required option: '--group=GROUP'");
        assertRefused(
                "--to-earliest, --by-duration=DURATION are mutually exclusive",
                "--group",
                "analytics-service",
                "--to-earliest",
                "--by-duration",
                "1h");
        assertRefused(
                "mutually exclusive",
                "--group",
                "analytics-service",
                "--to-datetime",
                "2026-12-01T10:00:00Z",
                "--by-duration",
                "1h");
        assertRefused("Unknown option: '--to-latest'", "--group", "analytics-service", "--to-latest");
        assertRefused(
                "'2026-12-01T10:00' is not a time with a zone",
                "--group",
                "analytics-service",
                "--to-datetime",
                "2026-12-01T10:00");
        assertRefused(
                "'yesterday' is not a positive duration", "--group", "analytics-service", "--by-duration", "yesterday");
        assertRefused(
                "'kubernetes' is not launcher, compose or none",
                "--group",
                "analytics-service",
                "--service-control",
                "kubernetes");
        assertRefused("'0s' is not a positive duration", "--group", "analytics-service", "--empty-timeout", "0s");
    }

    @Test
    void withoutARunningPlatformTheLauncherControlFailsWithExitCode1NamingTheStateFile(@TempDir Path directory) {
        Path state = directory.resolve("platform.state");

        int exitCode = commandLine().execute("--group", "analytics-service", "--platform-state", state.toString());

        assertThat(exitCode).isEqualTo(1);
        assertThat(err.toString())
                .startsWith("replay failed: no platform runs here: no " + state)
                .contains("--service-control compose", "--service-control none");
        assertThat(out.toString()).doesNotContain("replay done");
    }

    private void assertRefused(String message, String... args) {
        err.getBuffer().setLength(0);
        assertThat(commandLine().execute(args)).as(String.join(" ", args)).isEqualTo(2);
        assertThat(err.toString()).as(String.join(" ", args)).contains(message);
    }

    private CommandLine commandLine() {
        CommandLine commandLine = ReplayCommandLine.commandLine();
        commandLine.setOut(new PrintWriter(out, true));
        commandLine.setErr(new PrintWriter(err, true));
        return commandLine;
    }
}
