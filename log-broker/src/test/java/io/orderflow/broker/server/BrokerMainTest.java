package io.orderflow.broker.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The broker's command line, in this JVM and without starting a broker: {@code --help} lists every setting of
 * {@link BrokerConfig#KEYS} with its default, and a command line the broker cannot run on (an unknown option or
 * setting, a bad value, an unreadable file) ends with exit code 2 and a message naming what was wrong, before anything
 * is started or logged.
 */
class BrokerMainTest {

    @TempDir
    Path workDir;

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private static String commasAndSpaces(String text) {
        return text.replaceAll("\\s+", " ").replaceAll(", ", ",");
    }

    @Test
    void helpListsEveryOptionAndEverySettingWithItsDefault() {
        assertThat(execute("--help")).isZero();

        // Whitespace as the terminal width leaves it: picocli may break a line after any comma.
        String help = commasAndSpaces(out.toString());
        assertThat(help).contains("--config=FILE", "--log-format=json|text", "LOG_FORMAT", "-h,--help");
        BrokerConfig.KEYS.forEach((key, doc) -> assertThat(help)
                .contains(commasAndSpaces("--" + key + "=VALUE " + doc[1] + " (default: " + doc[0] + ")")));
        assertThat(err.toString()).isEmpty();
    }

    @Test
    void theSettingsOptionsAreExactlyBrokerConfigsKeys() {
        assertThat(BrokerMain.commandLine().getCommandSpec().options().stream()
                        .map(option -> option.longestName().substring(2))
                        .filter(name -> !name.equals("config") && !name.equals("log-format") && !name.equals("help")))
                .containsExactlyElementsOf(BrokerConfig.KEYS.keySet());
    }

    @Test
    void anUnknownSettingIsRefusedNamingIt() {
        assertThat(execute("--port=0", "--log.retention.hours=1")).isEqualTo(2);

        assertThat(err.toString()).contains("Unknown option: '--log.retention.hours=1'");
        assertThat(out.toString()).isEmpty();
    }

    @Test
    void anArgumentThatIsNoOptionIsRefusedNamingIt() {
        assertThat(execute("9092")).isEqualTo(2);

        assertThat(err.toString()).contains("'9092'");
    }

    @Test
    void aSettingsValueTheBrokerCannotUseIsRefusedNamingTheSettingAndTheValue() {
        assertThat(execute("--port=ninety")).isEqualTo(2);

        assertThat(err.toString()).contains("Setting port=ninety is not a whole number");
    }

    @Test
    void anUnknownLogFormatIsRefusedNamingItAndWhereItCameFrom() {
        assertThat(execute("--log-format=xml")).isEqualTo(2);

        assertThat(err.toString()).contains("Unknown log format 'xml' (from --log-format); use json or text");
    }

    @Test
    void anUnreadableConfigFileIsRefusedNamingIt() {
        Path missing = workDir.resolve("missing.properties");

        assertThat(execute("--config", missing.toString())).isEqualTo(2);

        assertThat(err.toString()).contains("Cannot read config file " + missing);
    }

    @Test
    void anOptionWithoutItsValueIsRefusedNamingIt() {
        assertThat(execute("--config")).isEqualTo(2);

        assertThat(err.toString()).contains("Missing required parameter for option '--config'");
    }

    private int execute(String... args) {
        CommandLine commandLine = BrokerMain.commandLine();
        commandLine.setOut(new PrintWriter(out, true));
        commandLine.setErr(new PrintWriter(err, true));
        return commandLine.execute(args);
    }
}
