package io.orderflow.ops.bench.platform;

import io.orderflow.ops.bench.BenchCommandLine;
import io.orderflow.ops.bench.BrokerSettings;
import io.orderflow.ops.bench.OpenLoopWindow;
import io.orderflow.ops.load.WholeNumber;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * The command line of {@code ops/bin/bench/platform}, declared once for picocli ({@link BenchCommandLine}). The first
 * group of options shapes the workload; the second says where the script put the private copies of what is measured
 * ({@code ops/bin/bench/platform} passes them, people need not). Filled by picocli, then only read.
 */
@Command(
        name = "ops/bin/bench/platform",
        sortOptions = false,
        sortSynopsis = false,
        description = {
            "The whole platform on this machine under POST /orders at fixed rates (open loop), round the saga's"
                    + " loop (inventory's answers back to order-service, which confirms each order) and with every mail"
                    + " sent to a real SMTP server (GreenMail), once on our broker and once on Apache Kafka (the anchor"
                    + " release), alternating, with the same packaged services. Prints per measurement the accepted"
                    + " rate, each consumer group's lag and the pending mails, whether each part kept up (the three"
                    + " consumer groups, inventory's relay, the saga consumer, the mails), accepted -> processed,"
                    + " -> confirmed and -> mailed latencies and their stages, CPU per order per process and the"
                    + " broker's RSS, then per rate a table of medians with ratios and the highest rate each broker"
                    + " sustained; see docs/benchmarks.md. A settling measurement on the first broker, not reported,"
                    + " comes first.",
            ""
        },
        footer = {
            "%nCounts may group thousands: 1,024 or 1_024 (not in --rates, whose commas separate the rates).",
            "The script also takes --skip-build: measure what is already built."
        })
final class PlatformBenchOptions {

    @Spec
    private CommandSpec spec;

    @Option(
            names = "--rates",
            paramLabel = "N",
            split = ",",
            defaultValue = "600,1200,2000",
            converter = WholeNumber.Positive.class,
            description = "the offered loads to measure, POST /orders per second on a fixed schedule (open loop), each"
                    + " measured, lowest first: the ladder on which the highest rate everything keeps up with is found"
                    + " (default: ${DEFAULT-VALUE})")
    private List<Integer> rates;

    @Mixin
    private OpenLoopWindow window = new OpenLoopWindow();

    @Option(
            names = "--drain-seconds",
            paramLabel = "N",
            defaultValue = "120",
            converter = WholeNumber.Positive.class,
            description = "after the window, how long to wait until every service has processed every order, each"
                    + " order is confirmed and its mail accepted (default: ${DEFAULT-VALUE})")
    private int drainSeconds;

    @Option(
            names = "--runs",
            paramLabel = "N",
            defaultValue = "1",
            converter = WholeNumber.Positive.class,
            description = "measurements of each rate on each broker, each on a platform started afresh, the brokers"
                    + " alternating which goes first (default: ${DEFAULT-VALUE})")
    private int runs;

    @Mixin
    private BrokerSettings settings = new BrokerSettings();

    @Option(
            names = {"-h", "--help"},
            usageHelp = true,
            description = "print this text")
    private boolean help;

    @ArgGroup(
            validate = false,
            heading = "%nWhere the script put what is measured (ops/bin/bench/platform passes these itself):%n")
    private Plumbing plumbing = new Plumbing();

    /** Options the script passes: where it put the private copies of what is measured. */
    static final class Plumbing {
        @Option(
                names = "--work-dir",
                paramLabel = "DIR",
                defaultValue = "ops/bench/target/platform-bench",
                description = "logs, the embedded PostgreSQL's files and the brokers' data (default: ${DEFAULT-VALUE})")
        private Path workDir;

        @Option(
                names = "--services",
                paramLabel = "DIR",
                defaultValue = "ops/bench/target/platform-bench/services",
                description =
                        "log-broker/ (our broker's jar and lib/) and each service's packaged quarkus-app/ under its"
                                + " name (default: ${DEFAULT-VALUE})")
        private Path services;

        @Option(
                names = "--kafka-lib",
                paramLabel = "DIR",
                defaultValue = "log-broker/kafka-anchor/target/kafka-broker",
                description = "Apache Kafka's broker jars (default: ${DEFAULT-VALUE})")
        private Path kafkaLib;
    }

    /** The window, its warm-up, the brokers, the partitions and the bound on outstanding requests. */
    OpenLoopWindow window() {
        return window;
    }

    /**
     * {@code args} read into a new instance.
     *
     * @throws picocli.CommandLine.ParameterException naming the option for an unknown one, a missing or bad value
     */
    static PlatformBenchOptions parse(String... args) {
        PlatformBenchOptions options = new PlatformBenchOptions();
        BenchCommandLine.of(options).parseArgs(args);
        return options;
    }

    /** The offered loads to measure, lowest first, each once. */
    List<Integer> rates() {
        return rates.stream().distinct().sorted().toList();
    }

    /** After the window, how long to wait until every order is processed, confirmed and mailed. */
    Duration drain() {
        return Duration.ofSeconds(drainSeconds);
    }

    /** How many times each rate is measured on each broker. */
    int runs() {
        return runs;
    }

    /** Extra {@code KEY=VALUE} settings for our broker. */
    List<String> ourSettings() {
        return settings.ours();
    }

    /** Extra {@code KEY=VALUE} lines for Apache Kafka's {@code server.properties}. */
    List<String> kafkaSettings() {
        return settings.kafka();
    }

    /** Logs, the embedded PostgreSQL's files and the brokers' data. */
    Path workDir() {
        return plumbing.workDir;
    }

    /** A directory holding {@code log-broker/} and each service's packaged {@code quarkus-app/} under its name. */
    Path services() {
        return plumbing.services;
    }

    /** Apache Kafka's broker jars (kafka-anchor's {@code target/kafka-broker}). */
    Path kafkaLib() {
        return plumbing.kafkaLib;
    }

    /** {@code ops/bin/bench/platform} and the options as given, minus the script's plumbing. */
    String command() {
        return BenchCommandLine.command(spec);
    }
}
