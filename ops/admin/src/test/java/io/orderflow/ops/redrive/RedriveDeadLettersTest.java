package io.orderflow.ops.redrive;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.consumer.RetryTopics;
import io.orderflow.ops.admin.DurationText;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/**
 * The command's first retry delay names the same first retry topic as the services' configuration does; its command
 * line (through picocli, without a broker) names every option with its default in {@code --help}, and refuses with exit
 * code 2 a missing group, an unknown option or a delay that is not one.
 */
class RedriveDeadLettersTest {

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    @Test
    void readsTheDurationsTheServicesConfigurationUses() {
        assertThat(DurationText.parse("1s")).isEqualTo(Duration.ofSeconds(1));
        assertThat(DurationText.parse("500ms")).isEqualTo(Duration.ofMillis(500));
        assertThat(DurationText.parse("1m")).isEqualTo(Duration.ofMinutes(1));
        assertThat(DurationText.parse("PT10S")).isEqualTo(Duration.ofSeconds(10));
        assertThat(RetryTopics.of("inventory-service", List.of(DurationText.parse("1s")))
                        .retryTopic(0))
                .isEqualTo("inventory-service_retry_1000");
    }

    @Test
    void helpNamesEveryOptionWithItsDefault() {
        CommandLine commandLine = commandLine();

        assertThat(commandLine.execute("--help")).isZero();

        String flat = out.toString().replaceAll("\\s", "");
        for (OptionSpec option : commandLine.getCommandSpec().options()) {
            if (option.usageHelp()) {
                continue;
            }
            assertThat(flat).contains(option.longestName());
            if (option.required()) {
                assertThat(String.join(" ", option.description())).contains("(required)");
            } else {
                assertThat(flat).as(option.longestName()).contains("(default:" + option.defaultValue());
            }
        }
        assertThat(out.toString()).contains("--group=GROUP", "(default: localhost:9092)", "(default: 1s, ");
    }

    @Test
    void aMissingGroupAnUnknownOptionAndABadDelayAreRefusedNamingThem() {
        assertThat(commandLine().execute()).isEqualTo(2);
        assertThat(err.toString()).contains("Missing required option: '--group=GROUP'");

        err.getBuffer().setLength(0);
        assertThat(commandLine().execute("--group", "inventory-service", "--first-retry", "1s"))
                .isEqualTo(2);
        assertThat(err.toString()).contains("Unknown options: '--first-retry', '1s'");

        err.getBuffer().setLength(0);
        assertThat(commandLine().execute("--group", "inventory-service", "--first-retry-delay", "soon"))
                .isEqualTo(2);
        assertThat(err.toString())
                .contains("Invalid value for option '--first-retry-delay': 'soon' is not a positive duration");
    }

    private CommandLine commandLine() {
        CommandLine commandLine = RedriveDeadLetters.commandLine();
        commandLine.setOut(new PrintWriter(out, true));
        commandLine.setErr(new PrintWriter(err, true));
        return commandLine;
    }
}
