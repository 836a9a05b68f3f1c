package io.orderflow.ops.bench.orders;

import io.orderflow.ops.bench.CommandLineOptions;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Set;

/**
 * The command line of {@code ops/bin/bench/orders}. The first group of options shapes the workload; the second says where
 * the script put the private copies of what is measured ({@code ops/bin/bench/orders} passes them, people need not).
 *
 * @param rate offered load: {@code POST /orders} requests per second, on a fixed schedule (open loop)
 * @param duration the measured window, after the warm-up
 * @param warmup load at the same rate before the window, not measured (JIT, connection pools, caches). The default
 *     is long because the JIT is: measured at 2,000 orders/s, the JVMs' compiler threads still took 0.57 of the 2
 *     cores 50-60 s after start (order-service alone 0.40) and none 110-120 s after
 * @param drain after the last request, how long to wait for the relay to publish every accepted order
 * @param runs how many times each broker's stack is started and measured; brokers alternate which goes first
 * @param brokers which brokers, in the order of run 1: {@code ours}, {@code kafka}, or both
 * @param partitions partitions of the {@code orders} topic
 * @param maxInFlight requests the load generator keeps outstanding at most; a request due while this many are
 *     outstanding is not sent and counted as "not sent" (the service is not keeping up), so that an overloaded
 *     service cannot make the generator open sockets without bound
 * @param idempotencyKeys whether each request carries its own {@code Idempotency-Key} header (one more row and
 *     lookup per order)
 * @param orderServiceJvmOptions extra JVM options for order-service, to investigate (a profiler, a heap size); the
 *     header says the service then does not run with JVM defaults
 * @param synchronousCommit PostgreSQL's {@code synchronous_commit} for the run: {@code on} (PostgreSQL's default:
 *     a commit waits for its WAL fsync) unless set otherwise; the embedded server's library default is {@code off}
 * @param workDir logs and the embedded PostgreSQL's files
 * @param kafkaLib Apache Kafka's broker jars (kafka-anchor's {@code target/kafka-broker})
 * @param ourBroker a directory holding our {@code log-broker.jar} and its {@code lib/}
 * @param orderService the packaged order-service ({@code quarkus-app/})
 * @param relay the packaged outbox-relay ({@code quarkus-app/})
 * @param commandLine the options as given, for the header
 */
record OrdersBenchOptions(
        int rate,
        Duration duration,
        Duration warmup,
        Duration drain,
        int runs,
        List<String> brokers,
        int partitions,
        int maxInFlight,
        boolean idempotencyKeys,
        List<String> orderServiceJvmOptions,
        String synchronousCommit,
        Path workDir,
        Path kafkaLib,
        Path ourBroker,
        Path orderService,
        Path relay,
        List<String> commandLine) {

    static final String USAGE = """
            Usage: ops/bin/bench/orders [--rate N] [--duration-seconds N] [--warmup-seconds N] [--drain-seconds N]
                                    [--runs N] [--brokers ours,kafka] [--partitions N] [--max-in-flight N]
                                    [--idempotency-keys true|false] [--synchronous-commit on|off]
                                    [--order-service-jvm-options "OPTS"] [--skip-build]

              --rate N                 POST /orders per second, open loop (default 2000)
              --duration-seconds N     measured window (default 60)
              --warmup-seconds N       load before the window, not measured (default 120)
              --drain-seconds N        wait after the load for every accepted order's event (default 60)
              --runs N                 starts of each stack, alternating brokers (default 3)
              --brokers LIST           ours, kafka or both (default ours,kafka)
              --partitions N           partitions of the orders topic (default 6)
              --max-in-flight N        outstanding requests at most; beyond, requests are not sent (default 512)
              --idempotency-keys B     send an Idempotency-Key with each order (default false)
              --synchronous-commit S   PostgreSQL synchronous_commit (default on, PostgreSQL's own default)
              --order-service-jvm-options OPTS  extra JVM options for order-service, to investigate (default none)
              --skip-build             (script only) measure what is already built
            """;

    /** Options the script passes (where the artifacts are); not part of the command a person types. */
    private static final Set<String> PLUMBING = Set.of("work-dir", "kafka-lib", "our-broker", "order-service", "relay");

    static OrdersBenchOptions parse(String... args) {
        CommandLineOptions values = CommandLineOptions.parse(args, PLUMBING, USAGE);
        OrdersBenchOptions options = new OrdersBenchOptions(
                values.positive("rate", "2000"),
                Duration.ofSeconds(values.positive("duration-seconds", "60")),
                Duration.ofSeconds(values.nonNegative("warmup-seconds", "120")),
                Duration.ofSeconds(values.positive("drain-seconds", "60")),
                values.positive("runs", "3"),
                values.brokers("ours,kafka"),
                values.positive("partitions", "6"),
                values.positive("max-in-flight", "512"),
                values.bool("idempotency-keys", "false"),
                Arrays.stream(values.text("order-service-jvm-options", "").split(" "))
                        .filter(o -> !o.isBlank())
                        .toList(),
                values.text("synchronous-commit", "on"),
                Path.of(values.text("work-dir", "ops/bench/target/orders-bench")),
                Path.of(values.text("kafka-lib", "log-broker/kafka-anchor/target/kafka-broker")),
                Path.of(values.text("our-broker", "log-broker/target")),
                Path.of(values.text("order-service", "order-service/target/quarkus-app")),
                Path.of(values.text("relay", "outbox-relay/target/quarkus-app")),
                values.commandLine());
        values.requireAllTaken();
        if (!Set.of("on", "off", "local", "remote_write", "remote_apply").contains(options.synchronousCommit)) {
            throw new IllegalArgumentException("--synchronous-commit takes a PostgreSQL value (on, off, local), got '"
                    + options.synchronousCommit + "'");
        }
        return options;
    }

    /** {@code ops/bin/bench/orders} and the options as given, minus the script's plumbing. */
    String command() {
        return CommandLineOptions.command("ops/bin/bench/orders", commandLine);
    }
}
