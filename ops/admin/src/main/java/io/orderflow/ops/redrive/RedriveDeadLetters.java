package io.orderflow.ops.redrive;

import io.orderflow.consumer.DeadLetterRedrive;
import io.orderflow.consumer.DeadLetteredOrigin;
import io.orderflow.consumer.RedriveReport;
import io.orderflow.consumer.RetryTopics;
import io.orderflow.ops.admin.DurationText;
import io.orderflow.ops.load.ClusterOptions;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code ops/bin/redrive-dead-letters}: re-drives a consumer group's dead letters after a fix
 * ({@link DeadLetterRedrive}): copies each original record of {@code dead-letter-topic-<group>} not re-driven before
 * (once, however many copies the topic holds) to {@code <group>_retry_<first delay ms>}, where the running service
 * takes it as a first retry; {@code --again} also copies those that failed again after a re-drive, {@code --list}
 * copies nothing. It prints the dead letters by origin, then what it copied.
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
            "Re-drives a consumer group's dead letters after a fix: copies each original record of"
                    + " dead-letter-topic-GROUP that was not re-driven before, once however many copies the topic"
                    + " holds, to the group's first retry topic, where the running service takes it as a first"
                    + " retry. Prints the dead letters by origin (the original record in orders), then what it"
                    + " copied.",
            ""
        })
public final class RedriveDeadLetters implements Callable<Integer> {

    @Option(
            names = "--group",
            paramLabel = "GROUP",
            required = true,
            description = "the consumer group: inventory-service, notification-service or analytics-service (required)")
    private String group;

    /** The cluster, as the operator commands' principal {@value #PRINCIPAL}. */
    @Mixin
    private ClusterOptions cluster;

    /** The operator commands' user on a secured cluster: it may read and rewind the groups and re-drive. */
    static final String PRINCIPAL = "ops-admin";

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
            names = "--again",
            defaultValue = "false",
            description = "also re-drive the dead letters that failed again after an earlier re-drive (default:"
                    + " ${DEFAULT-VALUE}: only those never re-driven)")
    private boolean again;

    @Option(
            names = "--list",
            defaultValue = "false",
            description = "list the dead letters by origin and copy nothing (default: ${DEFAULT-VALUE})")
    private boolean listOnly;

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

    @Spec
    private CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        if (listOnly && again) {
            throw new ParameterException(spec.commandLine(), "--list copies nothing; --again is for a re-drive");
        }
        RetryTopics topics = RetryTopics.of(group, List.of(firstDelay));
        Duration timeout = Duration.ofMinutes(2);
        RedriveReport report = listOnly
                ? DeadLetterRedrive.list(cluster.cluster(PRINCIPAL), topics, timeout)
                : DeadLetterRedrive.redrive(cluster.cluster(PRINCIPAL), topics, again, timeout);
        PrintWriter out = spec.commandLine().getOut();
        print(report, topics, out);
        if (!listOnly) {
            out.printf("re-drove %d to %s", report.copied(), topics.retryTopic(0));
            long failedAgain = report.count(DeadLetteredOrigin.State.FAILED_AFTER_REDRIVE);
            if (!again && failedAgain > 0) {
                out.printf("; kept %d that failed again after a re-drive (--again re-drives them)", failedAgain);
            }
            out.println();
        }
        out.flush();
        return 0;
    }

    /** The dead letters by origin, one line each, states as found before this run copied anything. */
    static void print(RedriveReport report, RetryTopics topics, PrintWriter out) {
        out.printf(
                "%s: %d records, %d original records%n",
                topics.deadLetterTopic(), report.records(), report.origins().size());
        if (report.origins().isEmpty()) {
            return;
        }
        out.printf("%-28s %-24s %6s %9s  %-22s %s%n", "ORIGIN", "KEY", "COPIES", "RE-DRIVES", "STATE", "LATEST REASON");
        for (DeadLetteredOrigin origin : report.origins()) {
            out.printf(
                    "%-28s %-24s %6d %9d  %-22s %s%n",
                    origin.origin(),
                    origin.latest().record().key(),
                    origin.copies(),
                    origin.latest().redrives(),
                    origin.state().name().toLowerCase(Locale.ROOT).replace('_', ' '),
                    origin.latest().reason());
        }
    }
}
