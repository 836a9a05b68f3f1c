package io.orderflow.ops.bench.platform;

import io.orderflow.ops.bench.CommandLineOptions;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;

/**
 * The command line of {@code ops/bin/bench/platform}. The first group of options shapes the workload; the second says where
 * the script put the private copies of what is measured ({@code ops/bin/bench/platform} passes them, people need not).
 *
 * @param rates the offered loads to measure, {@code POST /orders} per second on a fixed schedule (open loop), lowest
 *     first: the ladder on which the highest rate every consumer group keeps up with is found
 * @param duration the measured window, after the warm-up
 * @param warmup load at the same rate before the window, not measured: the JIT compilers of seven JVMs, pools, the
 *     groups' first fetches. On two cores the compilers are busy for most of the first two minutes; a 30 s warm-up
 *     capped the platform near 1,400 orders/s where a 120 s one sustains 2,000 (docs/benchmarks.md)
 * @param drain after the window, how long to wait until every service has processed every order
 * @param runs how many times each rate is measured on each broker; every measurement starts the whole platform afresh,
 *     and the brokers alternate which goes first
 * @param brokers which brokers, in the order of run 1: {@code ours}, {@code kafka}, or both
 * @param partitions partitions of the {@code orders} topic
 * @param maxInFlight requests the load generator keeps outstanding at most; a request due while this many are
 *     outstanding is not sent and counted as "not sent"
 * @param ourSettings extra {@code KEY=VALUE} settings for our broker, to investigate a gap, e.g. {@code
 *     log.flush.interval.messages=9223372036854775807} to acknowledge and expose records before they are fsynced, as
 *     Kafka does by default; figures taken so are not our broker's defaults, and the header says so
 * @param kafkaSettings extra {@code KEY=VALUE} lines for Apache Kafka's {@code server.properties}, e.g. {@code
 *     log.flush.interval.messages=1} to make it fsync before acknowledging as ours does
 * @param workDir logs, the embedded PostgreSQL's files and the brokers' data
 * @param services a directory holding {@code log-broker/} (our broker's jar and {@code lib/}) and each service's
 *     packaged {@code quarkus-app/} under its name
 * @param kafkaLib Apache Kafka's broker jars (kafka-anchor's {@code target/kafka-broker})
 * @param commandLine the options as given, for the header
 */
record PlatformBenchOptions(
        List<Integer> rates,
        Duration duration,
        Duration warmup,
        Duration drain,
        int runs,
        List<String> brokers,
        int partitions,
        int maxInFlight,
        List<String> ourSettings,
        List<String> kafkaSettings,
        Path workDir,
        Path services,
        Path kafkaLib,
        List<String> commandLine) {

    static final String USAGE = """
            Usage: ops/bin/bench/platform [--rates LIST] [--duration-seconds N] [--warmup-seconds N] [--drain-seconds N]
                                      [--runs N] [--brokers ours,kafka] [--partitions N] [--max-in-flight N]
                                      [--our-settings K=V,...] [--kafka-settings K=V,...] [--skip-build]

              --rates LIST            offered POST /orders per second, open loop, each measured (default 600,1200,2000)
              --duration-seconds N    measured window (default 60)
              --warmup-seconds N      load before the window, not measured (default 120)
              --drain-seconds N       wait after the window until every service processed every order (default 120)
              --runs N                measurements of each rate on each broker, alternating brokers (default 1)
              --brokers LIST          ours, kafka or both (default ours,kafka)
              --partitions N          partitions of the orders topic (default 6, as the platform creates it)
              --max-in-flight N       outstanding requests at most; beyond, requests are not sent (default 512)
              --our-settings LIST     extra KEY=VALUE settings for our broker, to investigate (default none)
              --kafka-settings LIST   extra KEY=VALUE lines for Apache Kafka's server.properties (default none)
              --skip-build            (script only) measure what is already built
            """;

    private static final Set<String> PLUMBING = Set.of("work-dir", "services", "kafka-lib");

    static PlatformBenchOptions parse(String... args) {
        CommandLineOptions values = CommandLineOptions.parse(args, PLUMBING, USAGE);
        PlatformBenchOptions options = new PlatformBenchOptions(
                values.positives("rates", "600,1200,2000").stream()
                        .distinct()
                        .sorted()
                        .toList(),
                Duration.ofSeconds(values.positive("duration-seconds", "60")),
                Duration.ofSeconds(values.nonNegative("warmup-seconds", "120")),
                Duration.ofSeconds(values.positive("drain-seconds", "120")),
                values.positive("runs", "1"),
                values.brokers("ours,kafka"),
                values.positive("partitions", "6"),
                values.positive("max-in-flight", "512"),
                values.settings("our-settings"),
                values.settings("kafka-settings"),
                Path.of(values.text("work-dir", "ops/bench/target/platform-bench")),
                Path.of(values.text("services", "ops/bench/target/platform-bench/services")),
                Path.of(values.text("kafka-lib", "log-broker/kafka-anchor/target/kafka-broker")),
                values.commandLine());
        values.requireAllTaken();
        return options;
    }

    /** {@code ops/bin/bench/platform} and the options as given, minus the script's plumbing. */
    String command() {
        return CommandLineOptions.command("ops/bin/bench/platform", commandLine);
    }
}
