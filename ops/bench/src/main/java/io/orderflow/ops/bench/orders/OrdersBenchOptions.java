package io.orderflow.ops.bench.orders;

import io.orderflow.ops.bench.BenchCommandLine;
import io.orderflow.ops.bench.OpenLoopWindow;
import io.orderflow.ops.load.WholeNumber;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.TypeConversionException;

/**
 * The command line of {@code ops/bin/bench/orders}, declared once for picocli ({@link BenchCommandLine}). The first
 * group of options shapes the workload; the second says where the script put the private copies of what is measured
 * ({@code ops/bin/bench/orders} passes them, people need not). Filled by picocli, then only read.
 */
@Command(
        name = "ops/bin/bench/orders",
        sortOptions = false,
        sortSynopsis = false,
        description = {
            "The order path end to end on this machine, with everything on it: POST /orders at a fixed rate (open loop)"
                    + " against the packaged order-service, its outbox in PostgreSQL, the packaged outbox-relay"
                    + " publishing to our broker, and the same with the relay pointed at Apache Kafka (the anchor release), in the"
                    + " same run. Prints every run's figures, then a table of medians with ratios ours / Kafka; see"
                    + " docs/benchmarks.md.",
            ""
        },
        footer = {
            "%nCounts may group thousands: 2,000 or 2_000.",
            "The script also takes --skip-build: measure what is already built (the services' and broker's target/"
                    + " directories)."
        })
final class OrdersBenchOptions {

    @Spec
    private CommandSpec spec;

    @Option(
            names = "--rate",
            paramLabel = "N",
            defaultValue = "2000",
            converter = WholeNumber.Positive.class,
            description = "offered load: POST /orders per second, on a fixed schedule (open loop)"
                    + " (default: ${DEFAULT-VALUE})")
    private int rate;

    @Mixin
    private OpenLoopWindow window = new OpenLoopWindow();

    @Option(
            names = "--drain-seconds",
            paramLabel = "N",
            defaultValue = "60",
            converter = WholeNumber.Positive.class,
            description = "after the last request, how long to wait for the relay to publish every accepted order"
                    + " (default: ${DEFAULT-VALUE})")
    private int drainSeconds;

    @Option(
            names = "--runs",
            paramLabel = "N",
            defaultValue = "3",
            converter = WholeNumber.Positive.class,
            description =
                    "starts of each broker's stack; brokers alternate which goes first (default: ${DEFAULT-VALUE})")
    private int runs;

    @Option(
            names = "--idempotency-keys",
            paramLabel = "true|false",
            arity = "1",
            defaultValue = "false",
            description = "send an Idempotency-Key header with each order (one more row and lookup per order)"
                    + " (default: ${DEFAULT-VALUE})")
    private boolean idempotencyKeys;

    @Option(
            names = "--synchronous-commit",
            paramLabel = "S",
            defaultValue = "on",
            converter = SynchronousCommit.class,
            completionCandidates = SynchronousCommit.class,
            description = "PostgreSQL's synchronous_commit for the run: ${COMPLETION-CANDIDATES}; on is PostgreSQL's"
                    + " default (a commit waits for its WAL fsync), the embedded server's library default is off"
                    + " (default: ${DEFAULT-VALUE})")
    private String synchronousCommit;

    @Option(
            names = "--order-service-jvm-options",
            paramLabel = "OPTS",
            description = "extra JVM options for order-service, to investigate (a profiler, a heap size); the header"
                    + " says the service then does not run with JVM defaults (default: none)")
    private String orderServiceJvmOptions = "";

    @Option(
            names = {"-h", "--help"},
            usageHelp = true,
            description = "print this text")
    private boolean help;

    @ArgGroup(
            validate = false,
            heading = "%nWhere the script put what is measured (ops/bin/bench/orders passes these itself):%n")
    private Plumbing plumbing = new Plumbing();

    /** Options the script passes: where it put the private copies of what is measured. */
    static final class Plumbing {
        @Option(
                names = "--work-dir",
                paramLabel = "DIR",
                defaultValue = "ops/bench/target/orders-bench",
                description = "logs and the embedded PostgreSQL's files (default: ${DEFAULT-VALUE})")
        private Path workDir;

        @Option(
                names = "--kafka-lib",
                paramLabel = "DIR",
                defaultValue = "log-broker/kafka-anchor/target/kafka-broker",
                description = "Apache Kafka's broker jars (default: ${DEFAULT-VALUE})")
        private Path kafkaLib;

        @Option(
                names = "--our-broker",
                paramLabel = "DIR",
                defaultValue = "log-broker/target",
                description = "our log-broker.jar and its lib/ (default: ${DEFAULT-VALUE})")
        private Path ourBroker;

        @Option(
                names = "--order-service",
                paramLabel = "DIR",
                defaultValue = "order-service/target/quarkus-app",
                description = "the packaged order-service (default: ${DEFAULT-VALUE})")
        private Path orderService;

        @Option(
                names = "--relay",
                paramLabel = "DIR",
                defaultValue = "outbox-relay/target/quarkus-app",
                description = "the packaged outbox-relay (default: ${DEFAULT-VALUE})")
        private Path relay;
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
    static OrdersBenchOptions parse(String... args) {
        OrdersBenchOptions options = new OrdersBenchOptions();
        BenchCommandLine.of(options).parseArgs(args);
        return options;
    }

    /** Offered load: {@code POST /orders} requests per second, on a fixed schedule (open loop). */
    int rate() {
        return rate;
    }

    /** After the last request, how long to wait for the relay to publish every accepted order. */
    Duration drain() {
        return Duration.ofSeconds(drainSeconds);
    }

    /** How many times each broker's stack is started and measured; brokers alternate which goes first. */
    int runs() {
        return runs;
    }

    /** Whether each request carries its own {@code Idempotency-Key} header. */
    boolean idempotencyKeys() {
        return idempotencyKeys;
    }

    /** Extra JVM options for order-service, to investigate. */
    List<String> orderServiceJvmOptions() {
        return Arrays.stream(orderServiceJvmOptions.split(" "))
                .filter(option -> !option.isBlank())
                .toList();
    }

    /** PostgreSQL's {@code synchronous_commit} for the run. */
    String synchronousCommit() {
        return synchronousCommit;
    }

    /** Logs and the embedded PostgreSQL's files. */
    Path workDir() {
        return plumbing.workDir;
    }

    /** Apache Kafka's broker jars (kafka-anchor's {@code target/kafka-broker}). */
    Path kafkaLib() {
        return plumbing.kafkaLib;
    }

    /** A directory holding our {@code log-broker.jar} and its {@code lib/}. */
    Path ourBroker() {
        return plumbing.ourBroker;
    }

    /** The packaged order-service ({@code quarkus-app/}). */
    Path orderService() {
        return plumbing.orderService;
    }

    /** The packaged outbox-relay ({@code quarkus-app/}). */
    Path relay() {
        return plumbing.relay;
    }

    /** {@code ops/bin/bench/orders} and the options as given, minus the script's plumbing. */
    String command() {
        return BenchCommandLine.command(spec);
    }

    /** PostgreSQL's values of {@code synchronous_commit}: the converter, and the candidates the help lists. */
    static final class SynchronousCommit implements ITypeConverter<String>, Iterable<String> {
        private static final List<String> VALUES = List.of("on", "off", "local", "remote_write", "remote_apply");

        @Override
        public String convert(String value) {
            if (!VALUES.contains(value)) {
                throw new TypeConversionException(
                        "takes a PostgreSQL value (" + String.join(", ", VALUES) + "), got '" + value + "'");
            }
            return value;
        }

        @Override
        public Iterator<String> iterator() {
            return VALUES.iterator();
        }
    }
}
