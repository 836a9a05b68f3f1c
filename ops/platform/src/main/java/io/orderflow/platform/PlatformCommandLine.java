package io.orderflow.platform;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Spec;
import picocli.CommandLine.TypeConversionException;

/**
 * {@code ./run-platform}'s command line, declared once: each option with its default and its check, from which picocli
 * builds {@code --help}; what a user asks of a running platform from another terminal ({@code status}, {@code stop}
 * [SERVICE], {@code logs}, {@code kill}, {@code start}) are its subcommands, answered by {@link PlatformCommands}.
 * {@code --postgres-dir} is inherited by them: it finds a platform launched with the same option.
 *
 * <p>A value is checked as it is read (a port from 0 to 65535, a directory that is not empty, an http or https
 * endpoint, HOST:PORT pairs); {@link #options} then refuses two parts on the same port. Either ends the command with
 * exit code 2 and a message naming the option and the value. A later occurrence of an option wins. Exit codes
 * otherwise: {@link PlatformLauncher}'s and {@link PlatformCommands}'.
 *
 * <p>Not thread-safe: one instance per command line.
 */
@Command(
        name = "run-platform",
        sortOptions = false,
        sortSynopsis = false,
        description = {
            "Starts every part of the orderflow platform that exists, on this machine and without Docker, and keeps it"
                    + " running until Ctrl-C or SIGTERM, then stops it cleanly.",
            "",
            "That is our Kafka-protocol log broker, PostgreSQL with one database per service (order, inventory,"
                    + " notification, analytics), order-service (POST /orders) and the outbox relay that publishes its"
                    + " events to the topic \"orders\", inventory-, notification- and analytics-service, inventory's"
                    + " outbox relay and the lag monitor. The startup report prints where each one listens.",
            ""
        },
        commandListHeading = "%nFrom another terminal (each takes --postgres-dir DIR too):%n",
        footer = {
            "%nA PORT of 0 picks any free port; the startup report prints the one in use.",
            "",
            "To use an existing PostgreSQL instead of the embedded one, set",
            "  ORDERFLOW_POSTGRES_URL       admin database URL, e.g. jdbc:postgresql://localhost:5432/postgres",
            "  ORDERFLOW_POSTGRES_USER      default postgres; needs CREATEDB unless the databases exist",
            "  ORDERFLOW_POSTGRES_PASSWORD  default empty",
            "(or the system properties orderflow.postgres.url, .user, .password).",
            "",
            "The launcher's log (PostgreSQL, the services' starts and crashes) goes to stderr as plain text lines; set",
            "  LOG_FORMAT=json              for one JSON object per line instead",
            "The broker and the services write theirs to logs/ beside the PostgreSQL directory (.orderflow/logs by"
                    + " default)."
        })
final class PlatformCommandLine implements Callable<Integer> {

    private static final String SERVICES = "order-service, outbox-relay, inventory-service, inventory-outbox-relay,"
            + " notification-service, analytics-service or lag-monitor";
    private static final String SERVICE = "log-broker, " + SERVICES;

    @Spec
    private CommandSpec spec;

    @Option(
            names = "--broker-dir",
            paramLabel = "DIR",
            defaultValue = ".orderflow/broker",
            converter = Directory.class,
            description = {
                "where the log broker keeps its topics and partitions, kept across restarts",
                "(default: ${DEFAULT-VALUE} under the working directory)"
            })
    private Path brokerDirectory;

    @Option(
            names = "--broker-port",
            paramLabel = "PORT",
            defaultValue = "" + LaunchOptions.DEFAULT_BROKER_PORT,
            converter = Port.class,
            description = "Kafka protocol port of the broker, on 127.0.0.1 (default: ${DEFAULT-VALUE})")
    private int brokerPort;

    @Option(
            names = "--metrics-port",
            paramLabel = "PORT",
            defaultValue = "" + LaunchOptions.DEFAULT_METRICS_PORT,
            converter = Port.class,
            description = "HTTP port of the broker's /metrics (Prometheus) and /health (default: ${DEFAULT-VALUE})")
    private int metricsPort;

    @Option(
            names = "--postgres-dir",
            paramLabel = "DIR",
            defaultValue = ".orderflow/postgres",
            converter = Directory.class,
            scope = ScopeType.INHERIT,
            description = {
                "where the embedded PostgreSQL keeps its binaries, data and log",
                "(default: ${DEFAULT-VALUE} under the working directory)"
            })
    private Path postgresDirectory;

    @Option(
            names = "--postgres-port",
            paramLabel = "PORT",
            defaultValue = "0",
            converter = Port.class,
            description = "port of the embedded PostgreSQL (default: ${DEFAULT-VALUE}, any free port)")
    private int postgresPort;

    @Option(
            names = "--order-service-port",
            paramLabel = "PORT",
            defaultValue = "" + LaunchOptions.DEFAULT_ORDER_SERVICE_PORT,
            converter = Port.class,
            description = "HTTP port of order-service (default: ${DEFAULT-VALUE})")
    private int orderServicePort;

    @Option(
            names = "--relay-port",
            paramLabel = "PORT",
            defaultValue = "" + LaunchOptions.DEFAULT_RELAY_PORT,
            converter = Port.class,
            description = "HTTP port of outbox-relay's health and metrics (default: ${DEFAULT-VALUE})")
    private int relayPort;

    @Option(
            names = "--consumer-ports-from",
            paramLabel = "PORT",
            defaultValue = "" + LaunchOptions.DEFAULT_CONSUMER_PORTS_FROM,
            converter = Port.class,
            description = "HTTP ports of inventory-service, notification-service, analytics-service, inventory's"
                    + " outbox-relay and the lag monitor (its dashboard): PORT and the four after it"
                    + " (default: ${DEFAULT-VALUE})")
    private int consumerPortsFrom;

    @Option(
            names = "--otlp-endpoint",
            paramLabel = "URL",
            converter = OtlpEndpoint.class,
            description = "export the services' traces over OTLP to URL, e.g. Jaeger's or an OpenTelemetry"
                    + " collector's http://localhost:4317 (default: none, no spans are recorded; the W3C trace"
                    + " context still flows into records and logs)")
    private URI otlpEndpoint;

    @Option(
            names = "--otlp-protocol",
            paramLabel = "P",
            defaultValue = "grpc",
            converter = OtlpProtocol.class,
            description = "grpc (port 4317) or http/protobuf (port 4318) (default: ${DEFAULT-VALUE})")
    private String otlpProtocol;

    @Option(
            names = "--bootstrap-servers",
            paramLabel = "HOSTS",
            converter = BootstrapServers.class,
            description = "run the services on this Kafka cluster (e.g. Apache Kafka) instead of starting our broker;"
                    + " the --broker-* and --metrics-port options are then unused (default: none, our broker)")
    private String kafkaBootstrapServers;

    @Option(
            names = "--command-config",
            paramLabel = "FILE",
            description = "with --bootstrap-servers: the Kafka client properties every part connects with"
                    + " (security.protocol, sasl.*, ssl.*), as the Kafka CLI tools take them (default: none,"
                    + " PLAINTEXT)")
    private Path kafkaCommandConfig;

    @Option(
            names = "--security",
            paramLabel = "MODE",
            defaultValue = "sasl_ssl",
            converter = SecurityMode.class,
            description = {
                "our broker's listener: sasl_ssl (TLS, a SCRAM-SHA-512 login and least-privilege ACLs for each part;"
                        + " the secrets are made under .orderflow/secrets) or plaintext (open to anyone who reaches"
                        + " the port) (default: ${DEFAULT-VALUE})"
            })
    private LaunchOptions.Security security;

    @Option(
            names = "--smtp-server",
            paramLabel = "HOST:PORT",
            converter = SmtpServer.class,
            description = "the SMTP server notification-service sends its mails to (default: none, a GreenMail server"
                    + " in the launcher's JVM that keeps them in memory)")
    private String smtpServer;

    @Option(names = "--no-services", description = "start only the broker and PostgreSQL (default: the services too)")
    private boolean noServices;

    @Option(
            names = "--no-aot-cache",
            description = "start the services without the JDK's ahead-of-time caches, neither using nor training them"
                    + " (default: each service starts from its cache, trained by its first run that stopped normally)")
    private boolean noAotCache;

    @Option(
            names = "--full-jit",
            description = "compile the services' hot code with C2 too, as the JVM does by default: the highest"
                    + " throughput once warm, after a first minute in which compiling competes with the requests"
                    + " (default: C1 only, -XX:TieredStopAtLevel=1, as Quarkus's dev mode: fast from the first"
                    + " requests)")
    private boolean fullJit;

    @Option(
            names = "--no-warm-up",
            description = "start the services without their warm-ups: each reports ready sooner, and is slow in its"
                    + " first seconds of load (default: each runs its own request path, rolled back, before it"
                    + " reports ready; docs/benchmarks.md, \"First minute\")")
    private boolean noWarmUp;

    @Option(
            names = {"-h", "--help"},
            usageHelp = true,
            scope = ScopeType.INHERIT,
            description = "print this text")
    private boolean help;

    /** The command line of {@code ./run-platform} and its subcommands. */
    static CommandLine commandLine() {
        return new CommandLine(new PlatformCommandLine())
                .setOverwrittenOptionsAllowed(true)
                .setUsageHelpWidth(120);
    }

    /** {@code args} as {@link LaunchOptions}, refused with a {@link ParameterException} naming what is wrong. */
    static LaunchOptions parse(String... args) {
        CommandLine commandLine = commandLine();
        commandLine.parseArgs(args);
        return commandLine.<PlatformCommandLine>getCommand().options();
    }

    /** Starts the platform and keeps it running: it returns only if the platform did not start. */
    @Override
    public Integer call() throws InterruptedException {
        return PlatformLauncher.launch(options());
    }

    @Command(
            name = "status",
            description = "each service's process and readiness (exit code 0 when all are ready, 1 when one is not,"
                    + " 3 when no platform runs here)")
    int status() {
        return commands().status();
    }

    @Command(
            name = "stop",
            description = "stops a running platform (and services a killed launcher left behind); with SERVICE only"
                    + " that service, with SIGTERM, a clean shutdown, until start SERVICE")
    int stop(
            @Parameters(
                            paramLabel = "SERVICE",
                            arity = "0..1",
                            description =
                                    "one of the platform's services (default: none, the whole platform): " + SERVICES)
                    String service)
            throws InterruptedException {
        return service == null ? commands().stop() : commands().control("stop", service);
    }

    @Command(name = "logs", description = "a service's log, followed until Ctrl-C")
    int logs(@Parameters(paramLabel = "SERVICE", description = SERVICE) String service) throws InterruptedException {
        return commands().logs(service);
    }

    @Command(name = "kill", description = "SIGKILL to a service, as a crash would; it stays down until start SERVICE")
    int kill(@Parameters(paramLabel = "SERVICE", description = SERVICE) String service) throws InterruptedException {
        return commands().control("kill", service);
    }

    @Command(name = "start", description = "starts a service that is down again, with its settings and port")
    int start(@Parameters(paramLabel = "SERVICE", description = SERVICE) String service) throws InterruptedException {
        return commands().control("start", service);
    }

    private PlatformCommands commands() {
        return new PlatformCommands(postgresDirectory, System.out, System.err);
    }

    /** The options read, once no two parts share a port. */
    LaunchOptions options() {
        requireDistinct("--broker-port", brokerPort, "--metrics-port", metricsPort);
        requireDistinct("--broker-port", brokerPort, "--postgres-port", postgresPort);
        requireDistinct("--metrics-port", metricsPort, "--postgres-port", postgresPort);
        requireDistinct("--order-service-port", orderServicePort, "--relay-port", relayPort);
        if (kafkaCommandConfig != null && kafkaBootstrapServers == null) {
            throw new ParameterException(
                    spec.commandLine(),
                    "'--command-config' configures the clients of a Kafka cluster given by '--bootstrap-servers'; our"
                            + " broker's security is '--security'.");
        }
        for (int infrastructurePort : new int[] {brokerPort, metricsPort, postgresPort}) {
            requireDistinct(
                    "--order-service-port", orderServicePort, "a broker or PostgreSQL port", infrastructurePort);
            requireDistinct("--relay-port", relayPort, "a broker or PostgreSQL port", infrastructurePort);
        }
        if (consumerPortsFrom != 0) {
            for (int index = 0; index < LaunchOptions.CONSUMER_PORTS; index++) {
                for (int other : new int[] {brokerPort, metricsPort, postgresPort, orderServicePort, relayPort}) {
                    requireDistinct(
                            "--consumer-ports-from (" + consumerPortsFrom + " to "
                                    + (consumerPortsFrom + LaunchOptions.CONSUMER_PORTS - 1) + ")",
                            consumerPortsFrom + index,
                            "another part's port",
                            other);
                }
            }
        }
        return new LaunchOptions(
                help,
                postgresDirectory,
                postgresPort,
                brokerDirectory,
                brokerPort,
                metricsPort,
                !noServices,
                LaunchOptions.DEFAULT_APPLICATIONS,
                !noAotCache,
                !fullJit,
                !noWarmUp,
                orderServicePort,
                relayPort,
                consumerPortsFrom,
                otlpEndpoint == null
                        ? LaunchOptions.Tracing.OFF
                        : new LaunchOptions.Tracing(otlpEndpoint, otlpProtocol),
                kafkaBootstrapServers,
                security,
                kafkaCommandConfig,
                smtpServer);
    }

    /** {@code sasl_ssl} or {@code plaintext}, in either case. */
    static final class SecurityMode implements ITypeConverter<LaunchOptions.Security> {
        @Override
        public LaunchOptions.Security convert(String value) {
            try {
                return LaunchOptions.Security.valueOf(value.trim().toUpperCase(java.util.Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException("'" + value + "' is not sasl_ssl or plaintext");
            }
        }
    }

    private void requireDistinct(String option, int port, String otherOption, int otherPort) {
        if (port != 0 && port == otherPort) {
            throw new ParameterException(
                    spec.commandLine(),
                    "'" + option + "' and '" + otherOption + "' are both " + port + "; each needs its own port.");
        }
    }

    /** A port from 0 to 65535; 0 picks any free one. */
    static final class Port implements ITypeConverter<Integer> {
        @Override
        public Integer convert(String value) {
            try {
                int port = Integer.parseInt(value);
                if (port >= 0 && port <= 65535) {
                    return port;
                }
            } catch (NumberFormatException e) {
                // reported below
            }
            throw new TypeConversionException(
                    "'" + value + "' is not a port: a number from 0 to 65535 (0 picks any free port).");
        }
    }

    /** A directory, which {@code --broker-dir=} (nothing after the equals sign) does not name. */
    static final class Directory implements ITypeConverter<Path> {
        @Override
        public Path convert(String value) {
            if (value.isBlank()) {
                throw new TypeConversionException("needs a directory, got '" + value + "'.");
            }
            return Path.of(value);
        }
    }

    /** An http or https URL with a host. */
    static final class OtlpEndpoint implements ITypeConverter<URI> {
        @Override
        public URI convert(String value) {
            try {
                URI uri = new URI(value);
                if (("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) && uri.getHost() != null) {
                    return uri;
                }
            } catch (URISyntaxException e) {
                // reported below
            }
            throw new TypeConversionException(
                    "'" + value + "': the endpoint must be an http or https URL, e.g. http://localhost:4317.");
        }
    }

    /** OTLP over {@code grpc} or {@code http/protobuf}. */
    static final class OtlpProtocol implements ITypeConverter<String> {
        @Override
        public String convert(String value) {
            if (value.equals("grpc") || value.equals("http/protobuf")) {
                return value;
            }
            throw new TypeConversionException("'" + value + "': the protocol must be grpc or http/protobuf.");
        }
    }

    /** {@code host:port[,host:port...]}, each port a number. */
    static final class BootstrapServers implements ITypeConverter<String> {
        @Override
        public String convert(String value) {
            for (String server : value.split(",")) {
                if (!hostAndPort(server)) {
                    throw new TypeConversionException(
                            "takes HOST:PORT[,HOST:PORT...] (e.g. kafka-1:9092,kafka-2:9092), was '" + value + "'.");
                }
            }
            return value;
        }
    }

    /** {@code HOST:PORT}, a port from 1 to 65535. */
    static final class SmtpServer implements ITypeConverter<String> {
        @Override
        public String convert(String value) {
            if (!hostAndPort(value)) {
                throw new TypeConversionException("takes HOST:PORT (e.g. localhost:1025), was '" + value + "'.");
            }
            return value;
        }
    }

    /** Whether {@code server} is a host, a colon and a port from 1 to 65535. */
    private static boolean hostAndPort(String server) {
        int colon = server.lastIndexOf(':');
        if (colon <= 0 || colon == server.length() - 1) {
            return false;
        }
        try {
            int port = Integer.parseInt(server.substring(colon + 1));
            return port > 0 && port <= 65_535;
        } catch (NumberFormatException e) {
            return false;
        }
    }
}
