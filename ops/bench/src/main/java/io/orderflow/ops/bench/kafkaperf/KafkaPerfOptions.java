package io.orderflow.ops.bench.kafkaperf;

import io.orderflow.ops.bench.BenchCommandLine;
import io.orderflow.ops.bench.BrokerName;
import io.orderflow.ops.bench.BrokerSettings;
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
 * The command line of {@code ops/bin/bench/kafka-perf}, declared once for picocli ({@link BenchCommandLine}). The
 * workload itself is fixed by the issue and not an option: acks=all, linger.ms=5, batch.size=65536, 6 partitions; only
 * its size and repetitions are, to shorten a run. Filled by picocli, then only read.
 */
@Command(
        name = "ops/bin/bench/kafka-perf",
        sortOptions = false,
        sortSynopsis = false,
        description = {
            "Our broker against Apache Kafka (the release the build anchors on, named in the output), both measured in the same run with Kafka's own perf tools"
                    + " (ProducerPerformance, ConsumerPerformance, EndToEndLatency from its kafka-tools). Prints its"
                    + " figures and a table of medians with ratios; see docs/benchmarks.md.",
            ""
        },
        footer = "%nCounts may group thousands: 1,000,000 or 1_000_000.")
final class KafkaPerfOptions {

    @Spec
    private CommandSpec spec;

    @Option(
            names = "--records",
            paramLabel = "N",
            defaultValue = "1000000",
            converter = WholeNumber.PositiveLong.class,
            description = "records per ProducerPerformance / ConsumerPerformance run (default: ${DEFAULT-VALUE})")
    private long records;

    @Option(
            names = "--latency-records",
            paramLabel = "N",
            defaultValue = "10000",
            converter = WholeNumber.Positive.class,
            description = "messages per EndToEndLatency run; it sends one at a time and waits for it to come back, so a"
                    + " million would take the better part of an hour per run (default: ${DEFAULT-VALUE})")
    private int latencyRecords;

    @Option(
            names = "--runs",
            paramLabel = "N",
            defaultValue = "3",
            converter = WholeNumber.Positive.class,
            description = "starts of each broker, alternating which goes first (default: ${DEFAULT-VALUE})")
    private int runs;

    @Option(
            names = "--sizes",
            paramLabel = "BYTES",
            split = ",",
            defaultValue = "1024,100",
            converter = WholeNumber.Positive.class,
            description = "record sizes, each measured by all three tools (default: ${DEFAULT-VALUE})")
    private List<Integer> recordSizes;

    @Option(
            names = "--idle-seconds",
            paramLabel = "N",
            defaultValue = "5",
            converter = WholeNumber.NotNegative.class,
            description = "wait after start-up before reading idle RSS (default: ${DEFAULT-VALUE})")
    private int idleSeconds;

    @Option(
            names = "--brokers",
            paramLabel = "BROKER",
            split = ",",
            defaultValue = "kafka,ours",
            converter = BrokerName.class,
            completionCandidates = BrokerName.class,
            description = "${COMPLETION-CANDIDATES} or both, to investigate one alone (default: ${DEFAULT-VALUE})")
    private List<String> brokers;

    @Option(
            names = "--security",
            paramLabel = "MODE",
            defaultValue = "plaintext",
            converter = Security.Names.class,
            completionCandidates = Security.Names.class,
            description = "how both brokers listen and every tool connects: plaintext, or sasl_ssl (TLS with a local"
                    + " CA's certificate and a SCRAM-SHA-512 login, the same for both) (default: ${DEFAULT-VALUE})")
    private Security security;

    @Mixin
    private BrokerSettings settings = new BrokerSettings();

    @Option(
            names = {"-h", "--help"},
            usageHelp = true,
            description = "print this text")
    private boolean help;

    @ArgGroup(
            validate = false,
            heading = "%nWhere the script put what is measured (ops/bin/bench/kafka-perf passes these itself):%n")
    private Plumbing plumbing = new Plumbing();

    /** Options the script passes: where it put what is measured. */
    static final class Plumbing {
        @Option(
                names = "--work-dir",
                paramLabel = "DIR",
                defaultValue = "ops/bench/target/kafka-perf",
                description = "logs (kept) and data directories (deleted after each broker stops)"
                        + " (default: ${DEFAULT-VALUE})")
        private Path workDir;

        @Option(
                names = "--kafka-lib",
                paramLabel = "DIR",
                defaultValue = "log-broker/kafka-anchor/target/kafka-broker",
                description = "the jars of Apache Kafka's broker (default: ${DEFAULT-VALUE})")
        private Path kafkaLib;

        @Option(
                names = "--tools-lib",
                paramLabel = "DIR",
                defaultValue = "log-broker/kafka-anchor/target/kafka-tools",
                description = "the jars of kafka-tools (default: ${DEFAULT-VALUE})")
        private Path toolsLib;

        @Option(
                names = "--our-broker",
                paramLabel = "DIR",
                defaultValue = "log-broker/target",
                description = "our log-broker.jar and its lib/ (default: ${DEFAULT-VALUE})")
        private Path ourBroker;
    }

    /**
     * {@code args} read into a new instance.
     *
     * @throws picocli.CommandLine.ParameterException naming the option for an unknown one, a missing or bad value
     */
    static KafkaPerfOptions parse(String... args) {
        KafkaPerfOptions options = new KafkaPerfOptions();
        BenchCommandLine.of(options).parseArgs(args);
        return options;
    }

    /** Records per ProducerPerformance and ConsumerPerformance run. */
    long records() {
        return records;
    }

    /** Messages per EndToEndLatency run. */
    int latencyRecords() {
        return latencyRecords;
    }

    /** How many times each broker is started and measured; brokers alternate, starting with the other one each run. */
    int runs() {
        return runs;
    }

    /** Record sizes in bytes, each measured by all three tools. */
    List<Integer> recordSizes() {
        return List.copyOf(recordSizes);
    }

    /** How long a freshly started broker is left alone before its idle memory is read. */
    Duration idleSettle() {
        return Duration.ofSeconds(idleSeconds);
    }

    /** Logs (kept) and data directories (deleted after each broker stops). */
    Path workDir() {
        return plumbing.workDir;
    }

    /** The jars of Apache Kafka's broker (kafka-anchor's {@code target/kafka-broker}). */
    Path kafkaLib() {
        return plumbing.kafkaLib;
    }

    /** The jars of kafka-tools (kafka-anchor's {@code target/kafka-tools}). */
    Path toolsLib() {
        return plumbing.toolsLib;
    }

    /** A directory holding our {@code log-broker.jar} and its {@code lib/}. */
    Path ourBroker() {
        return plumbing.ourBroker;
    }

    /** Which brokers to measure: both, or one of them alone (for investigating). */
    List<String> brokers() {
        return List.copyOf(brokers);
    }

    /** How both brokers listen and every tool connects. */
    Security security() {
        return security;
    }

    /** Extra {@code KEY=VALUE} settings for our broker. */
    List<String> ourSettings() {
        return settings.ours();
    }

    /** Extra {@code KEY=VALUE} lines for Apache Kafka's {@code server.properties}. */
    List<String> kafkaSettings() {
        return settings.kafka();
    }

    /** The command that measured these figures, as printed beside them: as given, minus what the script passes. */
    String command() {
        return BenchCommandLine.command(spec);
    }
}
