package io.orderflow.ops.drill;

import io.orderflow.ops.load.WholeNumber;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Spec;

/**
 * {@code ops/bin/drill NAME [options]}: runs one failure drill against a running platform and prints its report
 * ({@link DrillReport}). Exit code 0 when the drill passed, 1 when it failed, 2 for a bad command line.
 *
 * <p>Each drill is a picocli subcommand declaring its own options with their defaults, plus where the platform is
 * ({@link DrillTargetOptions}); picocli builds {@code ops/bin/drill --help} (the drills) and {@code ops/bin/drill NAME
 * --help} (a drill's options) from those declarations, and refuses, naming it, an unknown drill, an option the drill
 * does not take, a missing value or one that is not a whole number above 0. What the drill itself refuses (a factor
 * below 2, a hot share of half or less, ...) ends the same way, with exit code 2, before anything is done.
 */
@Command(
        name = "ops/bin/drill",
        synopsisSubcommandLabel = "NAME",
        description = {
            "Runs a failure drill against a running platform (./run-platform, or docker compose) and prints what was"
                    + " done, each consumer group's lag over the drill, what was verified, and PASS or FAIL. Exit code"
                    + " 0 when the drill passed, 1 when it failed, 2 for a bad command line.",
            ""
        },
        commandListHeading =
                "%nDrills (ops/bin/drill NAME --help: its options, their defaults and where the platform" + " is):%n")
public final class DrillMain implements Callable<Integer> {

    /** What {@code --control} means, for the drills that crash a service. */
    private static final String CONTROL = "the launcher's control port, or compose: docker compose kill and up --wait,"
            + " run where docker-compose.yml is (default: the control port in .orderflow/platform.state)";

    @Spec
    private CommandSpec spec;

    @Parameters(arity = "0..1", paramLabel = "NAME", hidden = true)
    private String unknownDrill;

    @Option(
            names = {"-h", "--help"},
            usageHelp = true,
            scope = ScopeType.INHERIT,
            description = "print this text")
    private boolean help;

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /** The command line of {@code ops/bin/drill}, each drill a subcommand. */
    static CommandLine commandLine() {
        CommandLine commandLine = new CommandLine(new DrillMain())
                .setOverwrittenOptionsAllowed(true)
                .setUsageHelpWidth(120);
        commandLine
                .getSubcommands()
                .values()
                .forEach(drill ->
                        drill.getCommandSpec().usageMessage().sortOptions(false).sortSynopsis(false));
        return commandLine;
    }

    /** No drill named, or a name that is none of the drills. */
    @Override
    public Integer call() {
        throw new ParameterException(
                spec.commandLine(),
                unknownDrill == null
                        ? "Name a drill; the drills are " + spec.subcommands().keySet() + "."
                        : "No drill named '" + unknownDrill + "'; the drills are "
                                + spec.subcommands().keySet() + ".");
    }

    @Command(
            name = DuplicateEventDrill.NAME,
            description = {"the same event published twice, and a relay re-sending a batch: one effect everywhere", ""})
    int duplicateEvent(
            @Option(
                            names = "--orders",
                            paramLabel = "N",
                            defaultValue = "20",
                            converter = WholeNumber.Positive.class,
                            description = "orders of the drill (default: ${DEFAULT-VALUE})")
                    int orders,
            @Mixin DrillTargetOptions platform)
            throws Exception {
        return report(drill(DuplicateEventDrill.NAME, () -> new DuplicateEventDrill(platform.target(), orders))
                .run());
    }

    @Command(
            name = BrokerFailureDrill.NAME,
            description = {
                "kill -9 the broker while orders stream in, start it again on its log: order-service goes on taking"
                        + " orders, the relays and consumers recover by themselves, no acknowledged order lost, none"
                        + " doubled",
                ""
            })
    int brokerFailure(
            @Option(
                            names = "--victim",
                            paramLabel = "NAME",
                            defaultValue = "log-broker",
                            description = "the broker to kill: kafka-1 on compose's Kafka profile"
                                    + " (default: ${DEFAULT-VALUE})")
                    String victim,
            @Option(
                            names = "--rate",
                            paramLabel = "N",
                            defaultValue = "20",
                            converter = WholeNumber.Positive.class,
                            description = "orders/s (default: ${DEFAULT-VALUE})")
                    int rate,
            @Option(
                            names = "--duration",
                            paramLabel = "SECONDS",
                            defaultValue = "60",
                            converter = WholeNumber.Positive.class,
                            description = "how long orders stream in, at least 3 (default: ${DEFAULT-VALUE})")
                    int duration,
            @Option(
                            names = "--down",
                            paramLabel = "SECONDS",
                            defaultValue = "10",
                            converter = WholeNumber.NotNegative.class,
                            description = "how long the broker stays down (default: ${DEFAULT-VALUE})")
                    int down,
            @Option(
                            names = "--dies-by-itself",
                            description =
                                    "crash the broker behind its supervisor's back (SIGKILL, as an"
                                            + " OutOfMemoryError or an Error's exit would end it) and start nothing: the"
                                            + " launcher must bring it back (./run-platform's control port only) (default: off)")
                    boolean diesByItself,
            @Option(names = "--control", paramLabel = "URL|compose", description = CONTROL) String control,
            @Mixin DrillTargetOptions platform)
            throws Exception {
        ServiceControl services = control(BrokerFailureDrill.NAME, control);
        return report(drill(
                        BrokerFailureDrill.NAME,
                        () -> new BrokerFailureDrill(
                                platform.target(),
                                services,
                                victim,
                                rate,
                                Duration.ofSeconds(duration),
                                Duration.ofSeconds(down),
                                diesByItself))
                .run());
    }

    @Command(
            name = CrashConsumerDrill.NAME,
            description = {
                "kill -9 a consumer service while orders stream in, start it again: the others keep up, it resumes"
                        + " from its committed offsets, no order lost, every order confirmed once, no double effect",
                ""
            })
    int crashConsumer(
            @Option(
                            names = "--victim",
                            paramLabel = "SERVICE",
                            defaultValue = "inventory-service",
                            description = "inventory-service, notification-service, analytics-service, or"
                                    + " order-service (the saga's consumer of inventory's answers; orders are refused"
                                    + " while it is down) (default: ${DEFAULT-VALUE})")
                    String victim,
            @Option(
                            names = "--rate",
                            paramLabel = "N",
                            defaultValue = "20",
                            converter = WholeNumber.Positive.class,
                            description = "orders/s (default: ${DEFAULT-VALUE})")
                    int rate,
            @Option(
                            names = "--duration",
                            paramLabel = "SECONDS",
                            defaultValue = "60",
                            converter = WholeNumber.Positive.class,
                            description = "how long orders stream in (default: ${DEFAULT-VALUE})")
                    int duration,
            @Option(names = "--control", paramLabel = "URL|compose", description = CONTROL) String control,
            @Mixin DrillTargetOptions platform)
            throws Exception {
        ServiceControl services = control(CrashConsumerDrill.NAME, control);
        return report(drill(
                        CrashConsumerDrill.NAME,
                        () -> new CrashConsumerDrill(
                                platform.target(), services, victim, rate, Duration.ofSeconds(duration)))
                .run());
    }

    @Command(
            name = HotPartitionDrill.NAME,
            description = {
                "order events keyed by customer, one customer placing most orders, then the same load keyed by order"
                        + " id: each partition's records, produce rate and lag side by side; the hot partition stands"
                        + " out, order ids spread evenly, nothing is lost",
                ""
            })
    int hotPartition(
            @Option(
                            names = "--rate",
                            paramLabel = "N",
                            defaultValue = "20",
                            converter = WholeNumber.Positive.class,
                            description = "records/s (default: ${DEFAULT-VALUE})")
                    int rate,
            @Option(
                            names = "--phase",
                            paramLabel = "SECONDS",
                            defaultValue = "60",
                            converter = WholeNumber.Positive.class,
                            description = "each phase, at least the lag monitor's window (default: ${DEFAULT-VALUE})")
                    int phase,
            @Option(
                            names = "--hot-share",
                            paramLabel = "S",
                            defaultValue = "0.8",
                            description = "the hot customer's share of the orders, above 0.5 and at most 1"
                                    + " (default: ${DEFAULT-VALUE})")
                    double hotShare,
            @Mixin DrillTargetOptions platform)
            throws Exception {
        return report(drill(
                        HotPartitionDrill.NAME,
                        () -> new HotPartitionDrill(platform.target(), rate, Duration.ofSeconds(phase), hotShare))
                .run());
    }

    @Command(
            name = SagaDrill.NAME,
            description = {
                "kill -9 inventory-service and its relay while orders stream in, some for the sold-out SKU, start them"
                        + " again: orders wait CREATED meanwhile, then each is confirmed or rejected exactly once,"
                        + " rejected exactly when sold out, stock never oversold, every rejection mailed",
                ""
            })
    int saga(
            @Option(
                            names = "--rate",
                            paramLabel = "N",
                            defaultValue = "20",
                            converter = WholeNumber.Positive.class,
                            description = "orders/s (default: ${DEFAULT-VALUE})")
                    int rate,
            @Option(
                            names = "--duration",
                            paramLabel = "SECONDS",
                            defaultValue = "60",
                            converter = WholeNumber.Positive.class,
                            description = "how long orders stream in, at least 3 (default: ${DEFAULT-VALUE})")
                    int duration,
            @Option(
                            names = "--down",
                            paramLabel = "SECONDS",
                            defaultValue = "20",
                            converter = WholeNumber.Positive.class,
                            description = "how long inventory-service and its relay stay down"
                                    + " (default: ${DEFAULT-VALUE})")
                    int down,
            @Option(
                            names = "--out-of-stock",
                            paramLabel = "SHARE",
                            defaultValue = "0.2",
                            description = "the share of the orders, 0 to 1, for the sold-out SKU, which inventory"
                                    + " rejects (default: ${DEFAULT-VALUE})")
                    double outOfStock,
            @Option(names = "--control", paramLabel = "URL|compose", description = CONTROL) String control,
            @Mixin DrillTargetOptions platform)
            throws Exception {
        ServiceControl services = control(SagaDrill.NAME, control);
        return report(drill(
                        SagaDrill.NAME,
                        () -> new SagaDrill(
                                platform.target(),
                                services,
                                rate,
                                Duration.ofSeconds(duration),
                                Duration.ofSeconds(down),
                                outOfStock))
                .run());
    }

    @Command(
            name = SchemaChangeDrill.NAME,
            description = {
                "OrderCreated 1.0, then 1.1, then a 2.0 published among the orders: every 1.x processed, every 2.0"
                        + " dead-lettered by each group with its reason, nothing else stops",
                ""
            })
    int schemaChange(
            @Option(
                            names = "--per-version",
                            paramLabel = "N",
                            defaultValue = "10",
                            converter = WholeNumber.Positive.class,
                            description = "records of each version (default: ${DEFAULT-VALUE})")
                    int perVersion,
            @Option(
                            names = "--rate",
                            paramLabel = "N",
                            defaultValue = "10",
                            converter = WholeNumber.Positive.class,
                            description = "orders/s over HTTP meanwhile (default: ${DEFAULT-VALUE})")
                    int rate,
            @Option(
                            names = "--duration",
                            paramLabel = "SECONDS",
                            defaultValue = "30",
                            converter = WholeNumber.Positive.class,
                            description = "how long orders go in over HTTP, at least 3 (default: ${DEFAULT-VALUE})")
                    int duration,
            @Mixin DrillTargetOptions platform)
            throws Exception {
        return report(drill(
                        SchemaChangeDrill.NAME,
                        () -> new SchemaChangeDrill(platform.target(), perVersion, rate, Duration.ofSeconds(duration)))
                .run());
    }

    @Command(
            name = SlowConsumerDrill.NAME,
            description = {
                "one consumer slower than the traffic for a while: only its lag grows, the lag monitor calls it WARN,"
                        + " it drains once it has its speed back, nothing is lost",
                ""
            })
    int slowConsumer(
            @Option(
                            names = "--victim",
                            paramLabel = "SERVICE",
                            defaultValue = "notification-service",
                            description = "inventory-service, notification-service or analytics-service"
                                    + " (default: ${DEFAULT-VALUE})")
                    String victim,
            @Option(
                            names = "--rate",
                            paramLabel = "N",
                            defaultValue = "20",
                            converter = WholeNumber.Positive.class,
                            description = "orders/s (default: ${DEFAULT-VALUE})")
                    int rate,
            @Option(
                            names = "--per-record",
                            paramLabel = "MILLIS",
                            converter = WholeNumber.Positive.class,
                            description = "the slow consumer's time per record (default: 2000/rate, half the rate)")
                    Integer perRecord,
            @Option(
                            names = "--calm",
                            paramLabel = "SECONDS",
                            defaultValue = "20",
                            converter = WholeNumber.Positive.class,
                            description = "before and after the slowdown (default: ${DEFAULT-VALUE})")
                    int calm,
            @Option(
                            names = "--slow",
                            paramLabel = "SECONDS",
                            defaultValue = "90",
                            converter = WholeNumber.Positive.class,
                            description =
                                    "the slowdown, longer than the lag monitor's window (default: ${DEFAULT-VALUE})")
                    int slow,
            @Mixin DrillTargetOptions platform)
            throws Exception {
        return report(drill(
                        SlowConsumerDrill.NAME,
                        () -> new SlowConsumerDrill(
                                platform.target(),
                                victim,
                                rate,
                                perRecord == null ? SlowConsumerDrill.halfSpeed(rate) : perRecord,
                                Duration.ofSeconds(calm),
                                Duration.ofSeconds(slow)))
                .run());
    }

    @Command(
            name = TrafficSpikeDrill.NAME,
            description = {
                "ten times the order rate for a while, then back: each group's lag peak and drain time; every order"
                        + " answered and processed, every group drained",
                ""
            })
    int trafficSpike(
            @Option(
                            names = "--rate",
                            paramLabel = "N",
                            defaultValue = "20",
                            converter = WholeNumber.Positive.class,
                            description = "orders/s before and after (default: ${DEFAULT-VALUE})")
                    int rate,
            @Option(
                            names = "--factor",
                            paramLabel = "N",
                            defaultValue = "10",
                            converter = WholeNumber.Positive.class,
                            description = "the spike's rate as a multiple of --rate, at least 2"
                                    + " (default: ${DEFAULT-VALUE})")
                    int factor,
            @Option(
                            names = "--calm",
                            paramLabel = "SECONDS",
                            defaultValue = "20",
                            converter = WholeNumber.Positive.class,
                            description = "before and after the spike (default: ${DEFAULT-VALUE})")
                    int calm,
            @Option(
                            names = "--spike",
                            paramLabel = "SECONDS",
                            defaultValue = "20",
                            converter = WholeNumber.Positive.class,
                            description = "the spike (default: ${DEFAULT-VALUE})")
                    int spike,
            @Mixin DrillTargetOptions platform)
            throws Exception {
        return report(drill(
                        TrafficSpikeDrill.NAME,
                        () -> new TrafficSpikeDrill(
                                platform.target(), rate, factor, Duration.ofSeconds(calm), Duration.ofSeconds(spike)))
                .run());
    }

    /** The drill {@code create} makes; what its constructor refuses ends drill {@code name}'s command line. */
    private <D> D drill(String name, Callable<D> create) throws Exception {
        try {
            return create.call();
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.subcommands().get(name), e.getMessage(), e);
        }
    }

    /** Prints the report; exit code 0 when the drill passed, 1 when it failed. */
    private static int report(DrillReport report) {
        System.out.print(report.render());
        return report.passed() ? 0 : 1;
    }

    /** The launcher's control port from {@code --control} or the state file; refused when there is none. */
    private ServiceControl control(String drill, String given) throws IOException {
        Optional<ServiceControl> control;
        try {
            control = given == null
                    ? ServiceControl.fromStateFile(Path.of(".orderflow", "platform.state"))
                    : given.equals("compose")
                            ? Optional.of(ServiceControl.compose("docker", Path.of(".")))
                            : Optional.of(ServiceControl.launcher(URI.create(given)));
        } catch (IllegalArgumentException e) { // not a URL
            throw new ParameterException(
                    spec.subcommands().get(drill), "'--control " + given + "': " + e.getMessage(), e);
        }
        return control.orElseThrow(() -> new ParameterException(
                spec.subcommands().get(drill),
                "No running ./run-platform found (.orderflow/platform.state); give --control URL, or --control"
                        + " compose for docker compose."));
    }
}
