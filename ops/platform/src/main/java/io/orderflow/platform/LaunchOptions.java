package io.orderflow.platform;

import java.net.URI;
import java.nio.file.Path;

/**
 * What the launcher starts, and where: the values of {@code ./run-platform}'s command line ({@link
 * PlatformCommandLine} declares its options, their defaults and checks; {@link #parse} reads one).
 *
 * <p>A port of 0 means "any free port" (the report then prints the real one); the broker and its metrics
 * default to the ports Kafka users expect, 9092 and 9404, so clients and scrapers need no configuration.
 *
 * @param help whether {@code --help} was given: the launcher prints its usage instead of starting anything
 * @param aotCaches whether the services start from, or train, the JDK's AOT caches ({@link AotCaches})
 * @param quickJit whether the services' JIT stops at C1 ({@code -XX:TieredStopAtLevel=1}, as Quarkus's dev mode):
 *     fast from the first requests on two cores, at a lower peak than C2's
 * @param warmUps whether the services run their warm-ups before they report ready (order-service's {@code WarmUp},
 *     the consumers' {@code ConsumerWarmUp}); without, they are ready sooner and slow in their first seconds
 * @param security how our broker's listener is secured ({@link Security#SASL_SSL} by default on the command line)
 * @param kafkaCommandConfig on a Kafka cluster given by {@code --bootstrap-servers}, the client properties every part
 *     connects with ({@code --command-config}; null: PLAINTEXT)
 * @param smtpServer the SMTP server notification-service sends to, {@code HOST:PORT} ({@code --smtp-server}; null: a
 *     GreenMail server in the launcher's JVM, whose mails go with the launcher)
 */
public record LaunchOptions(
        boolean help,
        Path postgresDirectory,
        int postgresPort,
        Path brokerDirectory,
        int brokerPort,
        int metricsPort,
        boolean services,
        Path applications,
        boolean aotCaches,
        boolean quickJit,
        boolean warmUps,
        int orderServicePort,
        int relayPort,
        int consumerPortsFrom,
        Tracing tracing,
        String kafkaBootstrapServers,
        Security security,
        Path kafkaCommandConfig,
        String smtpServer) {

    /**
     * Our broker's one listener: SASL_SSL (TLS, a SCRAM login per part, ACLs; {@link PlatformSecrets}) or PLAINTEXT
     * (anyone who reaches the port may do anything, as a Kafka broker with no security configured).
     */
    public enum Security {
        SASL_SSL,
        PLAINTEXT
    }

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
    /**
     * Where the packaged applications are, each at {@code <artifactId>/quarkus-run.jar}: the build of this module
     * unpacks them there from the services' {@code quarkus-app} zip artifacts. Relative to the repository's root,
     * where {@code ./run-platform} runs the launcher.
     */
    public static final Path DEFAULT_APPLICATIONS = Path.of("ops", "platform", "target", "applications");

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
                DEFAULT_APPLICATIONS,
                true,
                true,
                true,
                DEFAULT_ORDER_SERVICE_PORT,
                DEFAULT_RELAY_PORT,
                DEFAULT_CONSUMER_PORTS_FROM,
                Tracing.OFF,
                null,
                Security.PLAINTEXT,
                null,
                null);
    }

    /**
     * {@code ./run-platform}'s options as given: {@code --option value} or {@code --option=value}, a later occurrence
     * of an option winning, the defaults for the others.
     *
     * @throws picocli.CommandLine.ParameterException naming the option and value for an unknown option, a missing or
     *     bad value, or two parts given the same port
     */
    public static LaunchOptions parse(String... args) {
        return PlatformCommandLine.parse(args);
    }

    /** True when the platform runs on a Kafka cluster given by {@code --bootstrap-servers} instead of our broker. */
    public boolean externalKafka() {
        return kafkaBootstrapServers != null;
    }

    /**
     * The HTTP port of the {@code index}-th port from {@link #consumerPortsFrom} (0: inventory-service, 1:
     * notification-service, 2: analytics-service, 3: inventory's outbox-relay); 0 when they are picked freely.
     */
    public int consumerPort(int index) {
        return consumerPortsFrom == 0 ? 0 : consumerPortsFrom + index;
    }
}
