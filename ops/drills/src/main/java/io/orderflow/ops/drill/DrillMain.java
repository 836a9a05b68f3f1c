package io.orderflow.ops.drill;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code ops/bin/drill NAME [options]}: runs one failure drill against a running platform and prints its report
 * ({@link DrillReport}). Exit code 0 when the drill passed, 1 when it failed, 2 for a bad command line.
 */
public final class DrillMain {

    static final String USAGE = """
            Usage: ops/bin/drill NAME [--orders N] [options]

            Runs a failure drill against a running platform (./run-platform, or docker compose) and prints what
            was done, each consumer group's lag over the drill, what was verified, and PASS or FAIL.

            Drills:
              duplicate-event   the same event published twice, and a relay re-sending a batch: one effect
                                everywhere (--orders N: orders of the drill, default 20)
              broker-failure    kill -9 the broker while orders stream in, start it again on its log: order-service
                                goes on taking orders, the relays and consumers recover by themselves, no
                                acknowledged order lost, none doubled (--rate N orders/s, default 20; --duration
                                SECONDS, default 60; --down SECONDS the broker stays down, default 10; --victim
                                NAME, default log-broker: kafka-1 on compose's Kafka profile; --control)
              crash-consumer    kill -9 a consumer service while orders stream in, start it again: the others
                                keep up, it resumes from its committed offsets, no order lost, no double effect
                                (--victim inventory-service|notification-service|analytics-service, default
                                inventory-service; --rate N orders/s, default 20; --duration SECONDS, default 60;
                                --control URL: the launcher's control port, default from .orderflow/platform.state;
                                --control compose: docker compose kill and up --wait, run where docker-compose.yml is)
              hot-partition     order events keyed by customer, one customer placing most orders, then the same
                                load keyed by order id: each partition's records, produce rate and lag side by
                                side; the hot partition stands out, order ids spread evenly, nothing is lost
                                (--rate N records/s, default 20; --phase SECONDS each, default 60: at least the lag
                                monitor's window; --hot-share S, default 0.8)
              schema-change     OrderCreated 1.0, then 1.1, then a 2.0 published among the orders: every 1.x
                                processed, every 2.0 dead-lettered by each group with its reason, nothing else
                                stops (--per-version N records, default 10; --rate N orders/s over HTTP meanwhile,
                                default 10; --duration SECONDS, default 30)
              slow-consumer     one consumer slower than the traffic for a while: only its lag grows, the lag
                                monitor calls it WARN, it drains once it has its speed back, nothing is lost
                                (--victim, default notification-service; --rate N orders/s, default 20;
                                --per-record MILLIS, default 2000/rate: half the rate; --calm SECONDS before and
                                after, default 20; --slow SECONDS, default 90: longer than the lag monitor's window)
              traffic-spike     ten times the order rate for a while, then back: each group's lag peak and drain
                                time; every order answered and processed, every group drained (--rate N orders/s
                                before and after, default 20; --factor N, default 10; --calm SECONDS before and after,
                                default 20; --spike SECONDS, default 20)

            Where the platform is (defaults: the ports ./run-platform uses):
            """ + DrillTarget.OPTIONS;

    private DrillMain() {}

    /** Each drill's own options; every drill also takes {@link #TARGET_OPTIONS}. */
    static final Map<String, List<String>> DRILL_OPTIONS = Map.of(
            DuplicateEventDrill.NAME, List.of("--orders"),
            CrashConsumerDrill.NAME, List.of("--victim", "--rate", "--duration", "--control"),
            BrokerFailureDrill.NAME, List.of("--victim", "--rate", "--duration", "--down", "--control"),
            SlowConsumerDrill.NAME, List.of("--victim", "--rate", "--per-record", "--calm", "--slow"),
            TrafficSpikeDrill.NAME, List.of("--rate", "--factor", "--calm", "--spike"),
            SchemaChangeDrill.NAME, List.of("--per-version", "--rate", "--duration"),
            HotPartitionDrill.NAME, List.of("--rate", "--phase", "--hot-share"));

    /** Where the platform is ({@link DrillTarget#parse}). */
    static final List<String> TARGET_OPTIONS = List.of(
            "--order-service",
            "--inventory-service",
            "--notification-service",
            "--analytics-service",
            "--lag-monitor",
            "--bootstrap-servers");

    public static void main(String[] args) throws Exception {
        if (args.length == 0 || args[0].equals("--help") || args[0].equals("-h")) {
            System.out.print(USAGE);
            System.exit(args.length == 0 ? 2 : 0);
            return;
        }
        Map<String, String> options;
        try {
            options = options(args);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage() + "\n\n" + USAGE);
            System.exit(2);
            return;
        }
        DrillTarget target = DrillTarget.parse(options);
        DrillReport report;
        try {
            report = run(args[0], target, options);
        } catch (IllegalArgumentException e) { // a value that is not a number, or out of range
            System.err.println(e.getMessage() + "\n\n" + USAGE);
            System.exit(2);
            return;
        }
        if (report == null) {
            return; // no control port: already reported
        }
        System.out.print(report.render());
        System.exit(report.passed() ? 0 : 1);
    }

    /** Runs drill {@code name}; null when it needs a control port and none was found (reported, exit code set). */
    static DrillReport run(String name, DrillTarget target, Map<String, String> options) throws Exception {
        DrillReport report;
        switch (name) {
            case DuplicateEventDrill.NAME ->
                report = new DuplicateEventDrill(target, (int) whole(options, "--orders", 20)).run();
            case BrokerFailureDrill.NAME -> {
                Optional<ServiceControl> control = control(options);
                if (control.isEmpty()) {
                    return null;
                }
                report = new BrokerFailureDrill(
                                target,
                                control.get(),
                                options.getOrDefault("--victim", "log-broker"),
                                (int) whole(options, "--rate", 20),
                                Duration.ofSeconds(whole(options, "--duration", 60)),
                                Duration.ofSeconds(whole(options, "--down", 10)))
                        .run();
            }
            case CrashConsumerDrill.NAME -> {
                Optional<ServiceControl> control = control(options);
                if (control.isEmpty()) {
                    return null;
                }
                report = new CrashConsumerDrill(
                                target,
                                control.get(),
                                options.getOrDefault("--victim", "inventory-service"),
                                (int) whole(options, "--rate", 20),
                                Duration.ofSeconds(whole(options, "--duration", 60)))
                        .run();
            }
            case HotPartitionDrill.NAME ->
                report = new HotPartitionDrill(
                                target,
                                (int) whole(options, "--rate", 20),
                                Duration.ofSeconds(whole(options, "--phase", 60)),
                                number(options, "--hot-share", 0.8))
                        .run();
            case SchemaChangeDrill.NAME ->
                report = new SchemaChangeDrill(
                                target,
                                (int) whole(options, "--per-version", 10),
                                (int) whole(options, "--rate", 10),
                                Duration.ofSeconds(whole(options, "--duration", 30)))
                        .run();
            case SlowConsumerDrill.NAME -> {
                int rate = (int) whole(options, "--rate", 20);
                report = new SlowConsumerDrill(
                                target,
                                options.getOrDefault("--victim", "notification-service"),
                                rate,
                                whole(options, "--per-record", SlowConsumerDrill.halfSpeed(rate)),
                                Duration.ofSeconds(whole(options, "--calm", 20)),
                                Duration.ofSeconds(whole(options, "--slow", 90)))
                        .run();
            }
            case TrafficSpikeDrill.NAME ->
                report = new TrafficSpikeDrill(
                                target,
                                (int) whole(options, "--rate", 20),
                                (int) whole(options, "--factor", 10),
                                Duration.ofSeconds(whole(options, "--calm", 20)),
                                Duration.ofSeconds(whole(options, "--spike", 20)))
                        .run();
            default -> throw new IllegalArgumentException("No drill named '" + name + "'.");
        }
        return report;
    }

    /**
     * {@code NAME --option value ...} as a map of options, each one the drill named takes.
     *
     * @throws IllegalArgumentException naming an unknown drill, an option the drill does not take, or a missing value
     */
    static Map<String, String> options(String... args) {
        List<String> own = DRILL_OPTIONS.get(args[0]);
        if (own == null) {
            throw new IllegalArgumentException("No drill named '" + args[0] + "'; the drills are "
                    + DRILL_OPTIONS.keySet().stream().sorted().toList() + ".");
        }
        Map<String, String> options = new HashMap<>();
        for (int i = 1; i < args.length; i += 2) {
            if (!own.contains(args[i]) && !TARGET_OPTIONS.contains(args[i])) {
                throw new IllegalArgumentException(args[0] + " takes no option '" + args[i] + "'; its options are "
                        + own + " and " + TARGET_OPTIONS);
            }
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException("'" + args[i] + "' needs a value");
            }
            options.put(args[i], args[i + 1]);
        }
        return options;
    }

    /** The whole number {@code name} gives, or {@code fallback}; anything else is refused naming it. */
    private static long whole(Map<String, String> options, String name, long fallback) {
        String value = options.get(name);
        if (value == null) {
            return fallback;
        }
        try {
            return Long.parseLong(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + name + " " + value + "': a whole number is expected");
        }
    }

    /** The number {@code name} gives, or {@code fallback}; a value that is not a number is refused naming it. */
    private static double number(Map<String, String> options, String name, double fallback) {
        String value = options.get(name);
        if (value == null) {
            return fallback;
        }
        try {
            return Double.parseDouble(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + name + " " + value + "': a number is expected");
        }
    }

    /** The launcher's control port from {@code --control} or the state file; exits with 2 when there is none. */
    private static Optional<ServiceControl> control(Map<String, String> options) throws java.io.IOException {
        String given = options.get("--control");
        Optional<ServiceControl> control = given == null
                ? ServiceControl.fromStateFile(Path.of(".orderflow", "platform.state"))
                : given.equals("compose")
                        ? Optional.of(ServiceControl.compose("docker", Path.of(".")))
                        : Optional.of(ServiceControl.launcher(URI.create(given)));
        if (control.isEmpty()) {
            System.err.println("No running ./run-platform found (.orderflow/platform.state); give --control URL, or"
                    + " --control compose for docker compose.");
            System.exit(2);
        }
        return control;
    }
}
