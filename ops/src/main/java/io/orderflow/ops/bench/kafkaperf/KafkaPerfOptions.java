package io.orderflow.ops.bench.kafkaperf;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The command line of {@code ops/bench/kafka-perf}. The workload itself is fixed by the issue and not an option:
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
 * @param ourSettings extra {@code KEY=VALUE} settings for our broker (see {@code ./run-broker --help}), to
 *     investigate a gap, e.g. {@code log.flush.interval.messages=9223372036854775807} for no fsync; the figures
 *     are then not the default broker's, and the header says so
 * @param kafkaSettings extra {@code KEY=VALUE} lines for Apache Kafka's {@code server.properties}, e.g.
 *     {@code log.flush.interval.messages=1} for Kafka with our durability (fsync before acknowledging)
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
        List<String> kafkaSettings) {

    static final String USAGE = """
            Usage: ops/bench/kafka-perf [--records N] [--latency-records N] [--runs N] [--sizes 1024,100]
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
            """;

    private static List<String> settings(String list) {
        return Arrays.stream(list.split(","))
                .map(String::trim)
                .filter(s -> !s.isEmpty())
                .toList();
    }

    static KafkaPerfOptions parse(String... args) {
        Map<String, String> values = new HashMap<>();
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            if (!arg.startsWith("--")) {
                throw new IllegalArgumentException("Unexpected argument '" + arg + "'\n" + USAGE);
            }
            int eq = arg.indexOf('=');
            if (eq > 0) {
                values.put(arg.substring(2, eq), arg.substring(eq + 1));
            } else if (i + 1 < args.length) {
                values.put(arg.substring(2), args[++i]);
            } else {
                throw new IllegalArgumentException("Option " + arg + " needs a value\n" + USAGE);
            }
        }
        KafkaPerfOptions options = new KafkaPerfOptions(
                Long.parseLong(take(values, "records", "1000000")),
                Integer.parseInt(take(values, "latency-records", "10000")),
                Integer.parseInt(take(values, "runs", "3")),
                Arrays.stream(take(values, "sizes", "1024,100").split(","))
                        .map(String::trim)
                        .map(Integer::parseInt)
                        .toList(),
                Duration.ofSeconds(Long.parseLong(take(values, "idle-seconds", "5"))),
                Path.of(take(values, "work-dir", "ops/target/kafka-perf")),
                Path.of(take(values, "kafka-lib", "kafka-anchor/target/kafka-broker")),
                Path.of(take(values, "tools-lib", "kafka-anchor/target/kafka-tools")),
                Path.of(take(values, "our-broker", "log-broker/target")),
                Arrays.stream(take(values, "brokers", "kafka,ours").split(","))
                        .map(String::trim)
                        .toList(),
                settings(take(values, "our-settings", "")),
                settings(take(values, "kafka-settings", "")));
        if (!values.isEmpty()) {
            throw new IllegalArgumentException("Unknown option(s) " + values.keySet() + "\n" + USAGE);
        }
        if (options.records < 1 || options.latencyRecords < 1 || options.runs < 1) {
            throw new IllegalArgumentException("--records, --latency-records and --runs must be positive, got "
                    + options.records + ", " + options.latencyRecords + ", " + options.runs);
        }
        for (String setting : options.ourSettings) {
            if (!setting.contains("=")) {
                throw new IllegalArgumentException("--our-settings takes KEY=VALUE pairs, got '" + setting + "'");
            }
        }
        for (String setting : options.kafkaSettings) {
            if (!setting.contains("=")) {
                throw new IllegalArgumentException("--kafka-settings takes KEY=VALUE pairs, got '" + setting + "'");
            }
        }
        for (String broker : options.brokers) {
            if (!broker.equals("kafka") && !broker.equals("ours")) {
                throw new IllegalArgumentException("--brokers takes kafka and/or ours, got '" + broker + "'");
            }
        }
        return options;
    }

    private static String take(Map<String, String> values, String name, String fallback) {
        String value = values.remove(name);
        return value == null ? fallback : value;
    }
}
