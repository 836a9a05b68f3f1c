package io.orderflow.ops.replay;

import io.orderflow.ops.admin.DurationText;
import io.orderflow.ops.load.ClusterOptions;
import java.net.URI;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import picocli.CommandLine;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.TypeConversionException;

/**
 * {@code ops/bin/replay}: a consumer group reads its topic again from a point, with its service stopped while its
 * offsets move ({@link Replay}). Its command line is picocli's, declared below with each default.
 *
 * <p>Exit codes: 0 once the offsets are reset, read back and the service started (and, with {@code
 * --wait-caught-up}, caught up), or after {@code --help}; 2 for a bad command line (no {@code --group}, two starts,
 * an unknown option, a value that does not parse); 1 when the replay failed or was refused, with the reason on
 * stderr: above all a group that still has members after {@code --empty-timeout}, where nothing is reset.
 *
 * <p>Not thread-safe: one instance per command line.
 */
@Command(
        name = "ops/bin/replay",
        sortOptions = false,
        sortSynopsis = false,
        usageHelpWidth = 120,
        description = {
            "Makes a consumer group read its topic again from a point: stops the service, waits until the group is"
                    + " empty, moves the group's committed offsets back, reads them back, starts the service again"
                    + " and reports per partition the old offset, the new one and the records read again. The"
                    + " services skip what they applied before (duplicates), so a replay repeats no effect.",
            ""
        },
        footer = {
            "%nOnly the topics given are reset (orders by default): the group's retry topics keep their offsets,"
                    + " since every event in them is a copy of one in orders. A replay never moves an offset forward.",
            "Steps for an Apache Kafka cluster without this command: libs/event-consumer/README.md, \"Replay\"."
        })
public final class ReplayCommandLine implements Callable<Integer> {

    @Spec
    private CommandSpec spec;

    @Option(
            names = "--group",
            paramLabel = "GROUP",
            required = true,
            description = "the consumer group: inventory-service, notification-service or analytics-service (required)")
    private String group;

    @ArgGroup(exclusive = true, multiplicity = "0..1")
    private From from;

    /** Where the replay starts; one at most, the earliest offset when none is given. */
    static final class From {
        @Option(
                names = "--to-earliest",
                description = "from the earliest offset still in the log (default: this one when no start is given)")
        boolean earliest;

        @Option(
                names = "--to-datetime",
                paramLabel = "TIME",
                converter = Timestamp.class,
                description = "from the first record at or after TIME, ISO-8601 with a zone: 2026-12-01T10:00:00Z or"
                        + " 2026-12-01T11:00:00+01:00 (default: none)")
        Instant time;

        @Option(
                names = "--by-duration",
                paramLabel = "DURATION",
                converter = DurationText.Positive.class,
                description = "from the first record at or after DURATION before now: " + DurationText.FORMS
                        + " (default: none)")
        Duration duration;
    }

    @Option(
            names = "--topic",
            paramLabel = "TOPIC",
            split = ",",
            defaultValue = Replay.DEFAULT_TOPIC,
            description = "the topics whose offsets move, repeated or comma-separated (default: ${DEFAULT-VALUE}; the"
                    + " group's retry topics GROUP_retry_MS only when named)")
    private List<String> topics;

    /** The cluster, as the operator commands' principal {@value #PRINCIPAL}. */
    @Mixin
    private ClusterOptions cluster;

    /** The operator commands' user on a secured cluster: it may read and rewind the groups and re-drive. */
    static final String PRINCIPAL = "ops-admin";

    @Option(
            names = "--service-control",
            paramLabel = "HOW",
            defaultValue = "launcher",
            converter = ControlName.class,
            description = "how the service is stopped and started: launcher (./run-platform's control port), compose"
                    + " (docker compose stop SERVICE, then up -d --wait --no-deps SERVICE, in --compose-dir) or none"
                    + " (the operator stopped it and starts it again) (default: ${DEFAULT-VALUE})")
    private String control;

    @Option(
            names = "--service",
            paramLabel = "SERVICE",
            description = "the service to stop and start, as the launcher or compose names it (default: the group's"
                    + " name)")
    private String service;

    @Option(
            names = "--platform-state",
            paramLabel = "FILE",
            defaultValue = ".orderflow/platform.state",
            description = {
                "the running launcher's state file, for --service-control launcher",
                "(default: ${DEFAULT-VALUE} under the repository)"
            })
    private Path platformState;

    @Option(
            names = "--compose-dir",
            paramLabel = "DIR",
            defaultValue = ".",
            description = "where docker-compose.yml is, for --service-control compose (default: ${DEFAULT-VALUE}, the"
                    + " repository)")
    private Path composeDirectory;

    @Option(
            names = "--empty-timeout",
            paramLabel = "DURATION",
            defaultValue = "30s",
            converter = DurationText.Positive.class,
            description = "how long to wait for the group's members to leave; a killed consumer stays a member until"
                    + " its session times out (default: ${DEFAULT-VALUE})")
    private Duration emptyTimeout;

    @Option(
            names = "--wait-caught-up",
            description = "after the start, wait until the group has read the replayed records again and print the"
                    + " service's duplicate and applied counts (default: return once the service is started)")
    private boolean waitCaughtUp;

    @Option(
            names = "--caught-up-timeout",
            paramLabel = "DURATION",
            defaultValue = "10m",
            converter = DurationText.Positive.class,
            description = "how long --wait-caught-up waits at most (default: ${DEFAULT-VALUE})")
    private Duration caughtUpTimeout;

    @Option(
            names = "--metrics-url",
            paramLabel = "URL",
            converter = MetricsUrl.class,
            description = "the service's Prometheus metrics, for --wait-caught-up's counts (default: the service's"
                    + " /q/metrics from the launcher's state file; none with compose or none)")
    private URI metricsUrl;

    @Option(
            names = {"-h", "--help"},
            usageHelp = true,
            description = "print this text")
    private boolean help;

    private ReplayCommandLine() {}

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /** The command line, with its failures (exit code 1) reported as one line on stderr. */
    public static CommandLine commandLine() {
        return new CommandLine(new ReplayCommandLine())
                .setOverwrittenOptionsAllowed(true)
                .setExecutionExceptionHandler((exception, commandLine, parseResult) -> {
                    commandLine.getErr().println("replay failed: " + exception.getMessage());
                    for (Throwable suppressed : exception.getSuppressed()) {
                        commandLine.getErr().println("  and: " + suppressed.getMessage());
                    }
                    return 1;
                });
    }

    @Override
    public Integer call() throws Exception {
        String serviceName = service == null ? group : service;
        ServiceControl serviceControl;
        Optional<URI> metrics = Optional.ofNullable(metricsUrl);
        switch (control) {
            case "launcher" -> {
                LauncherState state = LauncherState.read(platformState);
                serviceControl = ServiceControl.launcher(state.control());
                if (metrics.isEmpty()) {
                    metrics = state.metrics(serviceName);
                }
            }
            case "compose" -> serviceControl = ServiceControl.compose("docker", composeDirectory);
            default -> serviceControl = ServiceControl.none();
        }
        Replay.Request request = new Replay.Request(
                group,
                serviceName,
                topics,
                start(),
                emptyTimeout,
                waitCaughtUp ? Optional.of(caughtUpTimeout) : Optional.empty(),
                metrics);
        try (Admin admin = Admin.create(cluster.cluster(PRINCIPAL)
                .admin(Map.of(
                        AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "30000",
                        AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000")))) {
            new Replay(
                            new GroupRewind(admin, Duration.ofSeconds(30)),
                            serviceControl,
                            Clock.systemUTC(),
                            spec.commandLine().getOut())
                    .run(request);
        }
        spec.commandLine().getOut().println("replay done");
        return 0;
    }

    private ReplayStart start() {
        if (from == null || from.earliest) {
            return new ReplayStart.Earliest();
        }
        return from.time != null ? new ReplayStart.AtTime(from.time) : new ReplayStart.Before(from.duration);
    }

    /** ISO-8601 with a zone or an offset; a time without one is refused rather than read in some zone. */
    static final class Timestamp implements ITypeConverter<Instant> {
        @Override
        public Instant convert(String value) {
            try {
                return OffsetDateTime.parse(value).toInstant();
            } catch (DateTimeParseException e) {
                throw new TypeConversionException("'" + value + "' is not a time with a zone: ISO-8601, e.g."
                        + " 2026-12-01T10:00:00Z or 2026-12-01T11:00:00+01:00");
            }
        }
    }

    /** launcher, compose or none. */
    static final class ControlName implements ITypeConverter<String> {
        @Override
        public String convert(String value) {
            if (List.of("launcher", "compose", "none").contains(value)) {
                return value;
            }
            throw new TypeConversionException("'" + value + "' is not launcher, compose or none");
        }
    }

    /** An http or https URL. */
    static final class MetricsUrl implements ITypeConverter<URI> {
        @Override
        public URI convert(String value) {
            try {
                URI uri = new URI(value);
                if (("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) && uri.getHost() != null) {
                    return uri;
                }
            } catch (java.net.URISyntaxException e) {
                // reported below
            }
            throw new TypeConversionException(
                    "'" + value + "' is not an http URL, e.g. http://localhost:8084/q/metrics");
        }
    }
}
