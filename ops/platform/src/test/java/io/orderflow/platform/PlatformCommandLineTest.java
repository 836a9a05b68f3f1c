package io.orderflow.platform;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/**
 * {@code ./run-platform}'s command line as a user meets it, through picocli and without starting anything: {@code
 * --help} of the launcher and of each subcommand names every option with its default, and a command line the launcher
 * cannot run ends with exit code 2 and a message naming the option, before anything is started.
 */
class PlatformCommandLineTest {

    @TempDir
    Path workDir;

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    @Test
    void helpNamesEveryOptionWithItsDefaultAndTheCommandsFromAnotherTerminal() {
        CommandLine commandLine = commandLine();

        assertThat(commandLine.execute("--help")).isZero();

        assertEveryOptionShownWithItsDefault(commandLine, out.toString());
        assertThat(out.toString())
                .contains("--broker-port=PORT", "(default: 9092)", "(default: 9404)", "(default: 8080)")
                .contains("(default: .orderflow/postgres under the working directory)")
                .containsPattern("(?m)^  status +each service's process")
                .contains("  stop ", "  logs ", "  kill ", "  start ")
                .contains("ORDERFLOW_POSTGRES_URL", "LOG_FORMAT=json");
        assertThat(err.toString()).isEmpty();
    }

    @Test
    void eachCommandFromAnotherTerminalHasItsHelpWithThePostgresDirectory() {
        for (String command : new String[] {"status", "stop", "logs", "kill", "start"}) {
            CommandLine commandLine = commandLine();
            assertThat(commandLine.execute(command, "--help")).as(command).isZero();

            assertEveryOptionShownWithItsDefault(commandLine.getSubcommands().get(command), out.toString());
            assertThat(out.toString()).contains("--postgres-dir=DIR");
            out.getBuffer().setLength(0);
        }
        commandLine().execute("logs", "-h");
        assertThat(out.toString()).contains("SERVICE", "inventory-outbox-relay", "lag-monitor");
    }

    @Test
    void anUnknownOptionIsRefusedNamingIt() {
        assertThat(commandLine().execute("--broker-dir", "b", "--broker", "9092"))
                .isEqualTo(2);
        assertThat(err.toString())
                .contains("Unknown options: '--broker', '9092'")
                .contains("Possible solutions: --broker-dir, --broker-port");

        err.getBuffer().setLength(0);
        assertThat(commandLine().execute("status", "--broker-port", "9092")).isEqualTo(2);
        assertThat(err.toString()).contains("Unknown options: '--broker-port', '9092'");
    }

    @Test
    void aBadValueOrTwoPartsOnOnePortAreRefusedBeforeAnythingStarts() {
        assertThat(commandLine().execute("--relay-port", "http")).isEqualTo(2);
        assertThat(err.toString()).contains("Invalid value for option '--relay-port': 'http' is not a port");

        err.getBuffer().setLength(0);
        assertThat(commandLine().execute("--metrics-port", "9092")).isEqualTo(2);
        assertThat(err.toString()).contains("'--broker-port' and '--metrics-port' are both 9092");
    }

    @Test
    void aCommandWithoutItsServiceIsRefused() {
        assertThat(commandLine().execute("kill")).isEqualTo(2);

        assertThat(err.toString()).contains("Missing required parameter: 'SERVICE'");
    }

    @Test
    void stopTakesOneServiceAtMostAndWithoutAPlatformHereAnswersSo() {
        String postgres = workDir.resolve("postgres").toString();
        assertThat(commandLine().execute("stop", "analytics-service", "--postgres-dir", postgres))
                .as("a service's stop goes to the control port: none here")
                .isEqualTo(3);
        assertThat(commandLine().execute("stop", "--postgres-dir", postgres))
                .as("the whole platform's stop: nothing to stop")
                .isZero();

        assertThat(commandLine().execute("stop", "analytics-service", "inventory-service"))
                .isEqualTo(2);
        assertThat(err.toString()).contains("Unmatched argument", "'inventory-service'");

        out.getBuffer().setLength(0);
        commandLine().execute("stop", "--help");
        assertThat(out.toString()).contains("[SERVICE]", "with SIGTERM", "analytics-service");
    }

    @Test
    void thePostgresDirectoryFindsThePlatformBeforeOrAfterTheCommand() {
        Path postgres = workDir.resolve("postgres");
        for (String[] args : new String[][] {
            {"logs", "no-such-service", "--postgres-dir", postgres.toString()},
            {"--postgres-dir=" + postgres, "logs", "no-such-service"}
        }) {
            ByteArrayOutputStream captured = new ByteArrayOutputStream();
            PrintStream original = System.err;
            System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
            try {
                assertThat(commandLine().execute(args)).isEqualTo(2);
            } finally {
                System.setErr(original);
            }
            assertThat(captured.toString(StandardCharsets.UTF_8))
                    .contains("No log for 'no-such-service' in " + PlatformState.logs(postgres));
        }
    }

    private CommandLine commandLine() {
        CommandLine commandLine = PlatformCommandLine.commandLine();
        commandLine.setOut(new PrintWriter(out, true));
        commandLine.setErr(new PrintWriter(err, true));
        return commandLine;
    }

    /**
     * Each option's name, and its default: the declared one, or the description's words for it (compared without
     * whitespace, which the help's line wrapping moves).
     */
    private static void assertEveryOptionShownWithItsDefault(CommandLine commandLine, String help) {
        String flat = help.replaceAll("\\s", "");
        for (OptionSpec option : commandLine.getCommandSpec().options()) {
            if (option.usageHelp()) {
                continue;
            }
            assertThat(flat).contains(option.longestName());
            if (option.defaultValue() != null) {
                assertThat(flat)
                        .as(option.longestName())
                        .contains(("(default:" + option.defaultValue()).replaceAll("\\s", ""));
            } else {
                assertThat(String.join(" ", option.description()))
                        .as(option.longestName())
                        .contains("(default: ");
            }
        }
    }
}
