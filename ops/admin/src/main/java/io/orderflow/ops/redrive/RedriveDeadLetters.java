package io.orderflow.ops.redrive;

import io.orderflow.consumer.DeadLetterRedrive;
import io.orderflow.consumer.RetryTopics;
import io.orderflow.ops.admin.DurationText;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code ops/bin/redrive-dead-letters}: re-drives a consumer group's dead letters after a fix
 * ({@link DeadLetterRedrive}): copies the records of {@code dead-letter-topic-<group>} not re-driven before to
 * {@code <group>_retry_<first delay ms>}, where the running service takes them as first retries.
 *
 * <p>Its command line is picocli's, declared below with each default; exit code 0 after the re-drive or {@code --help},
 * 2 for a bad command line (no {@code --group}, an unknown option, a delay that is not a duration), 1 if the re-drive
 * failed.
 */
@Command(
        name = "ops/bin/redrive-dead-letters",
        sortOptions = false,
        sortSynopsis = false,
        usageHelpWidth = 120,
        description = {
            "Re-drives a consumer group's dead letters after a fix: copies the records of dead-letter-topic-GROUP that"
                    + " were not re-driven before to the group's first retry topic, where the running service takes"
                    + " them as first retries.",
            ""
        })
public final class RedriveDeadLetters implements Callable<Integer> {

    @Option(
            names = "--group",
            paramLabel = "GROUP",
            required = true,
            description = "the consumer group: inventory-service, notification-service or analytics-service (required)")
    private String group;

    @Option(
            names = "--bootstrap-servers",
            paramLabel = "HOST:PORT",
            defaultValue = "localhost:9092",
            description = "the broker (default: ${DEFAULT-VALUE})")
    private String bootstrapServers;

    @Option(
            names = "--first-retry-delay",
            paramLabel = "DURATION",
            defaultValue = "1s",
            converter = DurationText.Positive.class,
            description = "the group's first retry delay, which names its first retry topic: "
                    + DurationText.FORMS
                    + " (default: ${DEFAULT-VALUE}, the services' default)")
    private Duration firstDelay;

    @Option(
            names = {"-h", "--help"},
            usageHelp = true,
            description = "print this text")
    private boolean help;

    private RedriveDeadLetters() {}

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    static CommandLine commandLine() {
        return new CommandLine(new RedriveDeadLetters()).setOverwrittenOptionsAllowed(true);
    }

    @Override
    public Integer call() throws Exception {
        RetryTopics topics = RetryTopics.of(group, List.of(firstDelay));
        int copied = DeadLetterRedrive.redrive(bootstrapServers, topics, Duration.ofMinutes(2));
        System.out.printf("re-drove %d dead letters of %s to %s%n", copied, group, topics.retryTopic(0));
        return 0;
    }
}
