package io.orderflow.ops.bench.kafkaperf;

import io.orderflow.ops.bench.CommandLineOptions;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;

/**
 * The command line of {@code ops/bin/bench/kafka-perf}. The workload itself is fixed by the issue and not an option:
 * acks=all, linger.ms=5, batch.size=65536, 6 partitions; only its size and repetitions are, to shorten a run.
 *
 * @param records records per ProducerPerformance and ConsumerPerformance run
 * @param latencyRecords messages per EndToEndLatency run; it sends one message at a time and waits for it to come
 *     back, so a million would take the better part of an hour per run
 * @param runs how many times each broker is started and measured; brokers alternate, starting with the other one
 *     each run
 * @param recordSizes record sizes in bytes, each measured by all three tools
 * @param idleSettle how long a freshly started broker is left alone before its idle memory is read
 * @param workDir logs (kept) and data directories (deleted after each broker stops)
 * @param kafkaLib the jars of Apache Kafka's broker (kafka-anchor's {@code target/kafka-broker})
 * @param toolsLib the jars of kafka-tools (kafka-anchor's {@code target/kafka-tools})
 * @param ourBroker a directory holding our {@code log-broker.jar} and its {@code lib/}
 * @param brokers which brokers to measure: both, or one of them alone (for investigating)
 * @param ourSettings extra {@code KEY=VALUE} settings for our broker (see {@code ops/bin/run-broker --help}), to
 *     investigate a gap, e.g. {@code log.flush.interval.messages=9223372036854775807} for no fsync; the figures
 *     are then not the default broker's, and the header says so
 * @param kafkaSettings extra {@code KEY=VALUE} lines for Apache Kafka's {@code server.properties}, e.g.
 *     {@code log.flush.interval.messages=1} for Kafka with our durability (fsync before acknowledging)
 * @param commandLine the options as a person would type them: as given, minus what the script passes itself
 */
record KafkaPerfOptions(
        long records,
        int latencyRecords,
        int runs,
        List<Integer> recordSizes,
        Duration idleSettle,
        Path workDir,
        Path kafkaLib,
        Path toolsLib,
        Path ourBroker,
        List<String> brokers,
        List<String> ourSettings,
        List<String> kafkaSettings,
        List<String> commandLine) {

    static final String USAGE = """
            Usage: ops/bin/bench/kafka-perf [--records N] [--latency-records N] [--runs N] [--sizes 1024,100]
                                        [--idle-seconds N] [--brokers kafka,ours] [--our-settings K=V,...]
                                        [--kafka-settings K=V,...]

              --records N          records per ProducerPerformance / ConsumerPerformance run (default 1000000)
              --latency-records N  messages per EndToEndLatency run, one at a time (default 10000)
              --runs N             starts of each broker, alternating (default 3)
              --sizes LIST         record sizes in bytes (default 1024,100)
              --idle-seconds N     wait after start-up before reading idle RSS (default 5)
              --brokers LIST       kafka, ours or both (default kafka,ours)
              --our-settings LIST  extra KEY=VALUE settings for our broker, to investigate (default none)
              --kafka-settings LIST  extra KEY=VALUE lines for Apache Kafka's server.properties, e.g.
                                   log.flush.interval.messages=1 for Kafka with our durability (default none)
              Counts may group thousands: 1,000,000 or 1_000_000.
            """;

    /** Options {@code ops/bin/bench/kafka-perf} itself passes: where it put what is measured. */
    private static final Set<String> PLUMBING = Set.of("work-dir", "kafka-lib", "tools-lib", "our-broker");

    static KafkaPerfOptions parse(String... args) {
        CommandLineOptions values = CommandLineOptions.parse(args, PLUMBING, USAGE);
        KafkaPerfOptions options = new KafkaPerfOptions(
                values.positiveLong("records", "1000000"),
                values.positive("latency-records", "10000"),
                values.positive("runs", "3"),
                values.positives("sizes", "1024,100"),
                Duration.ofSeconds(values.nonNegative("idle-seconds", "5")),
                Path.of(values.text("work-dir", "ops/bench/target/kafka-perf")),
                Path.of(values.text("kafka-lib", "log-broker/kafka-anchor/target/kafka-broker")),
                Path.of(values.text("tools-lib", "log-broker/kafka-anchor/target/kafka-tools")),
                Path.of(values.text("our-broker", "log-broker/target")),
                values.brokers("kafka,ours"),
                values.settings("our-settings"),
                values.settings("kafka-settings"),
                values.commandLine());
        values.requireAllTaken();
        return options;
    }

    /** The command that measured these figures, as printed beside them. */
    String command() {
        return CommandLineOptions.command("ops/bin/bench/kafka-perf", commandLine);
    }
}
