package io.orderflow.ops.drill;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * {@code ops/drill NAME [options]}: runs one failure drill against a running platform and prints its report
 * ({@link DrillReport}). Exit code 0 when the drill passed, 1 when it failed, 2 for a bad command line.
 */
public final class DrillMain {

    static final String USAGE = """
            Usage: ops/drill NAME [--orders N] [options]

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

    public static void main(String[] args) throws Exception {
        if (args.length == 0 || args[0].equals("--help") || args[0].equals("-h")) {
            System.out.print(USAGE);
            System.exit(args.length == 0 ? 2 : 0);
            return;
        }
        Map<String, String> options = new HashMap<>();
        for (int i = 1; i < args.length; i += 2) {
            if (i + 1 >= args.length || !args[i].startsWith("--")) {
                System.err.println("'" + args[i] + "' needs a value\n\n" + USAGE);
                System.exit(2);
                return;
            }
            options.put(args[i], args[i + 1]);
        }
        DrillTarget target = DrillTarget.parse(options);
        DrillReport report;
        switch (args[0]) {
            case DuplicateEventDrill.NAME ->
                report =
                        new DuplicateEventDrill(target, Integer.parseInt(options.getOrDefault("--orders", "20"))).run();
            case BrokerFailureDrill.NAME -> {
                Optional<ServiceControl> control = control(options);
                if (control.isEmpty()) {
                    return;
                }
                report = new BrokerFailureDrill(
                                target,
                                control.get(),
                                options.getOrDefault("--victim", "log-broker"),
                                Integer.parseInt(options.getOrDefault("--rate", "20")),
                                Duration.ofSeconds(Long.parseLong(options.getOrDefault("--duration", "60"))),
                                Duration.ofSeconds(Long.parseLong(options.getOrDefault("--down", "10"))))
                        .run();
            }
            case CrashConsumerDrill.NAME -> {
                Optional<ServiceControl> control = control(options);
                if (control.isEmpty()) {
                    return;
                }
                report = new CrashConsumerDrill(
                                target,
                                control.get(),
                                options.getOrDefault("--victim", "inventory-service"),
                                Integer.parseInt(options.getOrDefault("--rate", "20")),
                                Duration.ofSeconds(Long.parseLong(options.getOrDefault("--duration", "60"))))
                        .run();
            }
            case HotPartitionDrill.NAME ->
                report = new HotPartitionDrill(
                                target,
                                Integer.parseInt(options.getOrDefault("--rate", "20")),
                                Duration.ofSeconds(Long.parseLong(options.getOrDefault("--phase", "60"))),
                                Double.parseDouble(options.getOrDefault("--hot-share", "0.8")))
                        .run();
            case SchemaChangeDrill.NAME ->
                report = new SchemaChangeDrill(
                                target,
                                Integer.parseInt(options.getOrDefault("--per-version", "10")),
                                Integer.parseInt(options.getOrDefault("--rate", "10")),
                                Duration.ofSeconds(Long.parseLong(options.getOrDefault("--duration", "30"))))
                        .run();
            case SlowConsumerDrill.NAME -> {
                int rate = Integer.parseInt(options.getOrDefault("--rate", "20"));
                report = new SlowConsumerDrill(
                                target,
                                options.getOrDefault("--victim", "notification-service"),
                                rate,
                                Long.parseLong(options.getOrDefault(
                                        "--per-record", Long.toString(SlowConsumerDrill.halfSpeed(rate)))),
                                Duration.ofSeconds(Long.parseLong(options.getOrDefault("--calm", "20"))),
                                Duration.ofSeconds(Long.parseLong(options.getOrDefault("--slow", "90"))))
                        .run();
            }
            case TrafficSpikeDrill.NAME ->
                report = new TrafficSpikeDrill(
                                target,
                                Integer.parseInt(options.getOrDefault("--rate", "20")),
                                Integer.parseInt(options.getOrDefault("--factor", "10")),
                                Duration.ofSeconds(Long.parseLong(options.getOrDefault("--calm", "20"))),
                                Duration.ofSeconds(Long.parseLong(options.getOrDefault("--spike", "20"))))
                        .run();
            default -> {
                System.err.println("No drill named '" + args[0] + "'.\n\n" + USAGE);
                System.exit(2);
                return;
            }
        }
        System.out.print(report.render());
        System.exit(report.passed() ? 0 : 1);
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
