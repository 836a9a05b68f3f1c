package io.orderflow.ops.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/** What every benchmark's command line must do, checked through picocli without running the benchmark. */
public final class CommandLineChecks {
    private CommandLineChecks() {}

    /**
     * Runs {@code --help}: exit code 0, and every option named with its default, the declared one (compared without
     * whitespace, which the help's line wrapping moves) or, for an option without one, the description's words for it.
     * Returns the help.
     */
    public static String helpNamesEveryOptionWithItsDefault(CommandLine commandLine) {
        StringWriter out = new StringWriter();
        commandLine.setOut(new PrintWriter(out, true));

        assertThat(commandLine.execute("--help")).isZero();

        String help = out.toString();
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
        return help;
    }

    /** Runs {@code args}: exit code 2 (a bad command line); returns what was printed on stderr. */
    public static String refused(CommandLine commandLine, String... args) {
        StringWriter err = new StringWriter();
        commandLine.setErr(new PrintWriter(err, true));

        assertThat(commandLine.execute(args)).as(String.join(" ", args)).isEqualTo(2);

        return err.toString();
    }
}
