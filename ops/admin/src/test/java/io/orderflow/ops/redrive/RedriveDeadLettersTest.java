package io.orderflow.ops.redrive;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.consumer.DeadLetter;
import io.orderflow.consumer.DeadLetteredOrigin;
import io.orderflow.consumer.FailureHeaders;
import io.orderflow.consumer.RecordOrigin;
import io.orderflow.consumer.RedriveReport;
import io.orderflow.consumer.RetryTopics;
import io.orderflow.ops.admin.DurationText;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.clients.consumer.ConsumerRecord;
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
                // An option without a default value (--command-config) says what it falls back to instead.
                assertThat(flat)
                        .as(option.longestName())
                        .contains("(default:" + (option.defaultValue() == null ? "" : option.defaultValue()));
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

    @Test
    void listAndAgainTogetherAreRefused() {
        assertThat(commandLine().execute("--group", "inventory-service", "--list", "--again"))
                .isEqualTo(2);
        assertThat(err.toString()).contains("--list copies nothing; --again is for a re-drive");
    }

    @Test
    void theReportListsEachOriginOnceWithItsCopiesReDrivesStateAndLatestReason() {
        RetryTopics topics = RetryTopics.of("inventory-service", List.of(Duration.ofSeconds(1)));
        ConsumerRecord<String, byte[]> latest =
                new ConsumerRecord<>(topics.deadLetterTopic(), 0, 5, "order-7", new byte[0]);
        latest.headers()
                .add(FailureHeaders.DEAD_LETTER_TOPIC, bytes("orders"))
                .add(FailureHeaders.DEAD_LETTER_PARTITION, bytes("2"))
                .add(FailureHeaders.DEAD_LETTER_OFFSET, bytes("41"))
                .add(FailureHeaders.DEAD_LETTER_REASON, bytes("customerId holds U+0000"))
                .add(FailureHeaders.REDRIVE_COUNT, bytes("1"));
        DeadLetter letter = DeadLetter.of(latest);
        RedriveReport report = new RedriveReport(
                List.of(new DeadLetteredOrigin(
                        letter.origin(), 2, letter, Optional.of(new RecordOrigin(topics.deadLetterTopic(), 0, 3)))),
                2,
                0);
        StringWriter printed = new StringWriter();

        RedriveDeadLetters.print(report, topics, new PrintWriter(printed, true));

        assertThat(printed.toString().lines())
                .first()
                .isEqualTo("dead-letter-topic-inventory-service: 2 records, 1 original records");
        assertThat(printed.toString().lines().skip(2).findFirst().orElseThrow().split(" {2,}"))
                .containsExactly("orders-2@41", "order-7", "2", "1", "failed after redrive", "customerId holds U+0000");
    }

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private CommandLine commandLine() {
        CommandLine commandLine = RedriveDeadLetters.commandLine();
        commandLine.setOut(new PrintWriter(out, true));
        commandLine.setErr(new PrintWriter(err, true));
        return commandLine;
    }
}
