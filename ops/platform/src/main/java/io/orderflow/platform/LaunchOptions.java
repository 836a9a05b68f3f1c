package io.orderflow.platform;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;

/**
 * The launcher's command line.
 *
 * <p>A port of 0 means "any free port" (the report then prints the real one); the broker and its metrics
 * default to the ports Kafka users expect, 9092 and 9404, so clients and scrapers need no configuration.
 */
public record LaunchOptions(
        boolean help,
        Path postgresDirectory,
        int postgresPort,
        Path brokerDirectory,
        int brokerPort,
        int metricsPort,
        boolean services,
        Path servicesHome,
        int orderServicePort,
        int relayPort,
        int consumerPortsFrom,
        Tracing tracing,
        String kafkaBootstrapServers) {

    /**
     * Where the services export their spans: over OTLP to {@code endpoint} with {@code protocol} ({@code grpc} or
     * {@code http/protobuf}), or nowhere ({@link #OFF}: the services record no spans, the trace context still flows).
     */
    public record Tracing(URI endpoint, String protocol) {
        public static final Tracing OFF = new Tracing(null, null);

        public boolean on() {
            return endpoint != null;
        }
    }

    public static final Path DEFAULT_POSTGRES_DIRECTORY = Path.of(".orderflow", "postgres");
    public static final Path DEFAULT_BROKER_DIRECTORY = Path.of(".orderflow", "broker");
    public static final int DEFAULT_BROKER_PORT = 9092;
    public static final int DEFAULT_METRICS_PORT = 9404;
    public static final int DEFAULT_ORDER_SERVICE_PORT = 8080;
    public static final int DEFAULT_RELAY_PORT = 8081;
    /**
     * inventory-service, notification-service, analytics-service, inventory's outbox-relay and the lag monitor take
     * this port and the four after it, in that order.
     */
    public static final int DEFAULT_CONSUMER_PORTS_FROM = 8082;

    /** How many ports {@link #consumerPortsFrom} starts. */
    static final int CONSUMER_PORTS = 5;
    /** Where the services' modules are (each at {@code <name>/target/quarkus-app}): the repository's root. */
    public static final Path DEFAULT_SERVICES_HOME = Path.of(".");

    /** Infrastructure only (broker and PostgreSQL), no services: what tests of the launcher itself start. */
    public LaunchOptions(
            boolean help,
            Path postgresDirectory,
            int postgresPort,
            Path brokerDirectory,
            int brokerPort,
            int metricsPort) {
        this(
                help,
                postgresDirectory,
                postgresPort,
                brokerDirectory,
                brokerPort,
                metricsPort,
                false,
                DEFAULT_SERVICES_HOME,
                DEFAULT_ORDER_SERVICE_PORT,
                DEFAULT_RELAY_PORT,
                DEFAULT_CONSUMER_PORTS_FROM,
                Tracing.OFF,
                null);
    }

    /** True when the platform runs on a Kafka cluster given by {@code --bootstrap-servers} instead of our broker. */
    public boolean externalKafka() {
        return kafkaBootstrapServers != null;
    }

    public static final String USAGE = """
            Usage: run-platform [--broker-dir DIR] [--broker-port PORT] [--metrics-port PORT]
                                [--postgres-dir DIR] [--postgres-port PORT]
                                [--order-service-port PORT] [--relay-port PORT] [--consumer-ports-from PORT]
                                [--otlp-endpoint URL [--otlp-protocol grpc|http/protobuf]]
                                [--bootstrap-servers HOSTS] [--no-services] [--help]
                   run-platform status | stop | logs SERVICE | kill SERVICE | start SERVICE  [--postgres-dir DIR]

            Starts every part of the orderflow platform that exists, on this machine and without Docker, and
            keeps it running until Ctrl-C or SIGTERM, then stops it cleanly.

            That is our Kafka-protocol log broker (clients connect to localhost:9092), PostgreSQL with one
            database per service (order, inventory, notification, analytics), order-service
            (http://localhost:8080/orders) and the outbox relay that publishes its events to the topic "orders",
            inventory-, notification- and analytics-service, inventory's outbox relay and the lag monitor.

              --broker-dir DIR      where the log broker keeps its topics and partitions, kept across restarts
                                    (default: .orderflow/broker under the working directory)
              --broker-port PORT    Kafka protocol port of the broker, on 127.0.0.1 (default: 9092)
              --metrics-port PORT   HTTP port of the broker's /metrics (Prometheus) and /health
                                    (default: 9404)
              --postgres-dir DIR    where the embedded PostgreSQL keeps its binaries, data and log
                                    (default: .orderflow/postgres under the working directory)
              --postgres-port PORT  port of the embedded PostgreSQL (default: any free port)
              --order-service-port PORT
                                    HTTP port of order-service (default: 8080)
              --relay-port PORT     HTTP port of outbox-relay's health and metrics (default: 8081)
              --consumer-ports-from PORT
                                    HTTP ports of inventory-service, notification-service, analytics-service,
                                    inventory's outbox-relay and the lag monitor (its dashboard): PORT and the
                                    four after it (default: 8082)
              --otlp-endpoint URL   export the services' traces over OTLP to URL, e.g. Jaeger's or an
                                    OpenTelemetry collector's http://localhost:4317 (default: no spans are
                                    recorded; the W3C trace context still flows into records and logs)
              --otlp-protocol P     grpc (default, port 4317) or http/protobuf (port 4318)
              --bootstrap-servers HOSTS
                                    run the services on this Kafka cluster (e.g. Apache Kafka) instead of
                                    starting our broker; the --broker-* and --metrics-port options are then
                                    unused (default: our broker)
              --no-services         start only the broker and PostgreSQL
              --help                print this text

            A PORT of 0 picks any free port; the startup report prints the one in use.

            From another terminal:
              status                each service's process and readiness (exit code 0 when all are ready)
              stop                  stops a running platform (and services a killed launcher left behind)
              logs SERVICE          a service's log, followed until Ctrl-C (log-broker, order-service,
                                    outbox-relay, inventory-service, inventory-outbox-relay,
                                    notification-service, analytics-service, lag-monitor)
              kill SERVICE          SIGKILL to a service, as a crash would; it stays down until
              start SERVICE         starts it again with its settings and port

            To use an existing PostgreSQL instead of the embedded one, set
              ORDERFLOW_POSTGRES_URL       admin database URL, e.g. jdbc:postgresql://localhost:5432/postgres
              ORDERFLOW_POSTGRES_USER      default postgres; needs CREATEDB unless the databases exist
              ORDERFLOW_POSTGRES_PASSWORD  default empty
            (or the system properties orderflow.postgres.url, .user, .password).

            The launcher's log (PostgreSQL, the services' starts and crashes) goes to stderr as plain text
            lines; set
              LOG_FORMAT=json              for one JSON object per line instead
            The broker and the services write theirs to logs/ beside the PostgreSQL directory
            (.orderflow/logs by default).
            """;

    public static LaunchOptions defaults() {
        return new LaunchOptions(
                false,
                DEFAULT_POSTGRES_DIRECTORY,
                0,
                DEFAULT_BROKER_DIRECTORY,
                DEFAULT_BROKER_PORT,
                DEFAULT_METRICS_PORT,
                true,
                DEFAULT_SERVICES_HOME,
                DEFAULT_ORDER_SERVICE_PORT,
                DEFAULT_RELAY_PORT,
                DEFAULT_CONSUMER_PORTS_FROM,
                Tracing.OFF,
                null);
    }

    /** Accepts {@code --option value} and {@code --option=value}; a later occurrence of an option wins. */
    public static LaunchOptions parse(String... args) {
        LaunchOptions defaults = defaults();
        boolean help = defaults.help;
        Path postgresDirectory = defaults.postgresDirectory;
        int postgresPort = defaults.postgresPort;
        Path brokerDirectory = defaults.brokerDirectory;
        int brokerPort = defaults.brokerPort;
        int metricsPort = defaults.metricsPort;
        boolean services = defaults.services;
        int orderServicePort = defaults.orderServicePort;
        int relayPort = defaults.relayPort;
        int consumerPortsFrom = defaults.consumerPortsFrom;
        URI otlpEndpoint = null;
        String otlpProtocol = "grpc";
        String kafka = null;
        for (int i = 0; i < args.length; i++) {
            String argument = args[i];
            boolean inline = argument.contains("=");
            String name = inline ? argument.substring(0, argument.indexOf('=')) : argument;
            switch (name) {
                case "--help", "-h" -> help = true;
                case "--postgres-dir" ->
                    postgresDirectory = Path.of(inline ? valueAfterEquals(argument) : nextValue(args, i++));
                case "--postgres-port" ->
                    postgresPort = port(name, inline ? valueAfterEquals(argument) : nextValue(args, i++));
                case "--broker-dir" ->
                    brokerDirectory = Path.of(inline ? valueAfterEquals(argument) : nextValue(args, i++));
                case "--broker-port" ->
                    brokerPort = port(name, inline ? valueAfterEquals(argument) : nextValue(args, i++));
                case "--metrics-port" ->
                    metricsPort = port(name, inline ? valueAfterEquals(argument) : nextValue(args, i++));
                case "--order-service-port" ->
                    orderServicePort = port(name, inline ? valueAfterEquals(argument) : nextValue(args, i++));
                case "--relay-port" ->
                    relayPort = port(name, inline ? valueAfterEquals(argument) : nextValue(args, i++));
                case "--consumer-ports-from" ->
                    consumerPortsFrom = port(name, inline ? valueAfterEquals(argument) : nextValue(args, i++));
                case "--otlp-endpoint" ->
                    otlpEndpoint = endpoint(name, inline ? valueAfterEquals(argument) : nextValue(args, i++));
                case "--otlp-protocol" ->
                    otlpProtocol = protocol(name, inline ? valueAfterEquals(argument) : nextValue(args, i++));
                case "--bootstrap-servers" ->
                    kafka = bootstrapServers(name, inline ? valueAfterEquals(argument) : nextValue(args, i++));
                case "--no-services" -> services = false;
                default -> throw new InvalidArgumentsException("Unknown argument '" + argument + "'.");
            }
        }
        requireDistinct("--broker-port", brokerPort, "--metrics-port", metricsPort);
        requireDistinct("--broker-port", brokerPort, "--postgres-port", postgresPort);
        requireDistinct("--metrics-port", metricsPort, "--postgres-port", postgresPort);
        requireDistinct("--order-service-port", orderServicePort, "--relay-port", relayPort);
        for (int infrastructurePort : new int[] {brokerPort, metricsPort, postgresPort}) {
            requireDistinct(
                    "--order-service-port", orderServicePort, "a broker or PostgreSQL port", infrastructurePort);
            requireDistinct("--relay-port", relayPort, "a broker or PostgreSQL port", infrastructurePort);
        }
        if (consumerPortsFrom != 0) {
            for (int index = 0; index < CONSUMER_PORTS; index++) {
                for (int other : new int[] {brokerPort, metricsPort, postgresPort, orderServicePort, relayPort}) {
                    requireDistinct(
                            "--consumer-ports-from (" + consumerPortsFrom + " to "
                                    + (consumerPortsFrom + CONSUMER_PORTS - 1) + ")",
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
                services,
                defaults.servicesHome,
                orderServicePort,
                relayPort,
                consumerPortsFrom,
                otlpEndpoint == null ? Tracing.OFF : new Tracing(otlpEndpoint, otlpProtocol),
                kafka);
    }

    /** {@code host:port[,host:port...]}, each port a number. */
    private static String bootstrapServers(String name, String value) {
        for (String server : value.split(",")) {
            int colon = server.lastIndexOf(':');
            boolean valid = colon > 0 && colon < server.length() - 1;
            if (valid) {
                try {
                    int port = Integer.parseInt(server.substring(colon + 1));
                    valid = port > 0 && port <= 65_535;
                } catch (NumberFormatException e) {
                    valid = false;
                }
            }
            if (!valid) {
                throw new InvalidArgumentsException(name
                        + " takes HOST:PORT[,HOST:PORT...] (e.g. kafka-1:9092,kafka-2:9092), was '" + value + "'.");
            }
        }
        return value;
    }

    /**
     * The HTTP port of the {@code index}-th port from {@link #consumerPortsFrom} (0: inventory-service, 1:
     * notification-service, 2: analytics-service, 3: inventory's outbox-relay); 0 when they are picked freely.
     */
    public int consumerPort(int index) {
        return consumerPortsFrom == 0 ? 0 : consumerPortsFrom + index;
    }

    private static String valueAfterEquals(String argument) {
        String value = argument.substring(argument.indexOf('=') + 1);
        if (value.isEmpty()) {
            throw new InvalidArgumentsException("'" + argument + "' needs a value after '='.");
        }
        return value;
    }

    private static String nextValue(String[] args, int optionIndex) {
        if (optionIndex + 1 >= args.length) {
            throw new InvalidArgumentsException("'" + args[optionIndex] + "' needs a value.");
        }
        return args[optionIndex + 1];
    }

    private static int port(String option, String value) {
        try {
            int port = Integer.parseInt(value);
            if (port >= 0 && port <= 65535) {
                return port;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new InvalidArgumentsException(
                "'" + option + " " + value + "': the port must be a number from 0 to 65535 (0 picks any free port).");
    }

    private static URI endpoint(String option, String value) {
        try {
            URI uri = new URI(value);
            if (("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) && uri.getHost() != null) {
                return uri;
            }
        } catch (URISyntaxException e) {
            // reported below
        }
        throw new InvalidArgumentsException("'" + option + " " + value
                + "': the endpoint must be an http or https URL, e.g. http://localhost:4317.");
    }

    private static String protocol(String option, String value) {
        if (value.equals("grpc") || value.equals("http/protobuf")) {
            return value;
        }
        throw new InvalidArgumentsException(
                "'" + option + " " + value + "': the protocol must be grpc or http/protobuf.");
    }

    private static void requireDistinct(String option, int port, String otherOption, int otherPort) {
        if (port != 0 && port == otherPort) {
            throw new InvalidArgumentsException(
                    "'" + option + "' and '" + otherOption + "' are both " + port + "; each needs its own port.");
        }
    }
}
