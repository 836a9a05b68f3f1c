package io.orderflow.platform;

import com.icegreen.greenmail.util.GreenMail;
import io.orderflow.contracts.Topics;
import io.orderflow.kafka.KafkaClientSettings;
import io.orderflow.postgres.EmbeddedMode;
import io.orderflow.postgres.LocalPostgres;
import io.orderflow.postgres.PostgresConfiguration;
import io.orderflow.postgres.PostgresDatabase;
import io.orderflow.process.ServiceProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialAlteration;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.common.errors.TopicExistsException;

/**
 * Everything the launcher starts, as one object that stops it all again.
 *
 * <p>Our log broker, a process of its own ({@link BrokerProcess}), with its data under the launch options' broker
 * directory (kept across restarts, like a Kafka log directory), or no broker at all when the options name a Kafka
 * cluster to run on ({@link LaunchOptions#kafkaBootstrapServers}: the same services, only their {@code
 * kafka.bootstrap.servers} differs), then a {@link LocalPostgres} (the configured server, or an embedded one
 * under the launch options' directory) and one database per service, then a local SMTP server (GreenMail, in this
 * JVM, for notification-service's mails; none when the options name one), then the services, each a {@link ServiceProcess}: order-service and its
 * outbox-relay, inventory-service and the outbox-relay of its outcomes (one relay per database), notification-service
 * and analytics-service, each consumer in its own group with its own database. Services come last because they need
 * the broker and their database from their first moment; their logs go to {@code logs/} beside the PostgreSQL
 * directory ({@code .orderflow/logs} by default). With {@link LaunchOptions#tracing()} on, every service but the lag
 * monitor exports its spans there, under its instance's name ({@code inventory-outbox-relay} for inventory's relay).
 *
 * <p>The broker starts first because it is the part most likely to fail: its default port 9092 is fixed and often
 * taken by another Kafka, and a broker that cannot bind exits within a second, before PostgreSQL has spent seconds
 * starting. {@link #kill} and {@link #startBroker} crash it and start it again on the same ports, as for a service.
 *
 * <p>The broker listens on 127.0.0.1 only and advertises {@code localhost}: a laptop's platform should not be
 * reachable from the network (Docker gets its own configuration). Its one listener is SASL_SSL unless the options say
 * PLAINTEXT: the secrets under {@code secrets/} beside the PostgreSQL directory ({@link PlatformSecrets}) are made or
 * read first, every principal's password and ACLs ({@link PlatformPrincipals}) are set once the broker is up, and
 * each service gets its own principal's settings and the admin token in a configuration file of its own. On a Kafka
 * cluster, every part connects with the {@code --command-config} properties instead. {@link #close()} stops in reverse order of
 * start; the broker stops on SIGTERM, leaving each partition's clean-shutdown marker, so the next start skips log
 * validation.
 *
 * <p>Not thread-safe except {@link #close()}, which is idempotent and may race with the shutdown hook.
 */
public final class LocalPlatform implements AutoCloseable {

    /** The services that get a database, in the order the launcher reports them. */
    public static final List<String> SERVICES =
            List.of("order-service", "inventory-service", "notification-service", "analytics-service");

    private static final String SMTP_HOST = "127.0.0.1";

    /**
     * The consumers' group sessions: 10 s instead of Kafka's 45 s, so that a consumer killed with {@code kill -9} (a
     * drill, a crash) hands its partitions over within seconds rather than most of a minute on a laptop. The consuming
     * services also take the drills' switches ({@code drills-enabled}): this is the platform drills run against.
     */
    private static final Map<String, String> CONSUMER_SESSIONS = Map.of(
            "mp.messaging.incoming.orders.session.timeout.ms", "10000",
            "mp.messaging.incoming.orders-retry.session.timeout.ms", "10000");
    /** The same for order-service's saga consumer, whose channels read {@code inventory}. */
    private static final Map<String, String> SAGA_SESSIONS = Map.of(
            "mp.messaging.incoming.inventory.session.timeout.ms", "10000",
            "mp.messaging.incoming.inventory-retry.session.timeout.ms", "10000");

    /** Partitions of the {@code orders} topic the platform creates: room for six consumers per group. */
    static final int ORDERS_PARTITIONS = 6;

    private BrokerProcess broker; // null on an external Kafka cluster
    private final String bootstrapServers;
    private final LocalPostgres postgres;
    private final List<PostgresDatabase> databases;
    private final List<Slot> slots;
    private final GreenMail smtp;
    private final Access access;
    private final AtomicBoolean closed = new AtomicBoolean();

    private LocalPlatform(
            BrokerProcess broker,
            String bootstrapServers,
            LocalPostgres postgres,
            List<PostgresDatabase> databases,
            GreenMail smtp,
            List<Slot> slots,
            Access access) {
        this.broker = broker;
        this.access = access;
        this.bootstrapServers = bootstrapServers;
        this.postgres = postgres;
        this.databases = databases;
        this.smtp = smtp;
        this.slots = slots;
    }

    /** One service instance: how to start it, and its current process (replaced by {@link #start}). */
    /** Set by a kill of the broker on request, cleared by its next start: no restart of its own meanwhile. */
    private boolean brokerDownOnRequest;

    private static final class Slot {
        final String instance;
        final ServiceProcess.Builder builder;
        volatile ServiceProcess process;

        Slot(String instance, ServiceProcess.Builder builder) {
            this.instance = instance;
            this.builder = builder;
        }
    }

    public static LocalPlatform start(PostgresConfiguration configuration, LaunchOptions options) {
        boolean secured = !options.externalKafka() && options.security() == LaunchOptions.Security.SASL_SSL;
        PlatformSecrets secrets = openSecrets(options, secured);
        BrokerProcess broker = options.externalKafka() ? null : startBroker(options, secured ? secrets : null);
        String bootstrapServers = broker == null ? options.kafkaBootstrapServers() : broker.bootstrapServers();
        Access access = new Access(
                secrets, secured, options.externalKafka() ? options.kafkaCommandConfig() : null, bootstrapServers);
        try {
            if (secured) {
                authorize(access.launcher(), secrets);
            }
            LocalPostgres postgres = LocalPostgres.start(
                    configuration, options.postgresDirectory(), options.postgresPort(), EmbeddedMode.KEPT);
            try {
                List<PostgresDatabase> databases =
                        SERVICES.stream().map(postgres::database).toList();
                if (!options.services()) {
                    return new LocalPlatform(broker, bootstrapServers, postgres, databases, null, List.of(), access);
                }
                GreenMail smtp = options.smtpServer() == null ? startSmtp() : null;
                try {
                    String smtpServer = smtp == null
                            ? options.smtpServer()
                            : SMTP_HOST + ":" + smtp.getSmtp().getPort();
                    List<Slot> services = startServices(options, bootstrapServers, access, databases, smtpServer);
                    return new LocalPlatform(broker, bootstrapServers, postgres, databases, smtp, services, access);
                } catch (RuntimeException e) {
                    if (smtp != null) {
                        smtp.stop();
                    }
                    throw e;
                }
            } catch (RuntimeException e) {
                postgres.close();
                throw e;
            }
        } catch (RuntimeException e) {
            if (broker != null) {
                broker.close();
            }
            throw e;
        }
    }

    private static PlatformSecrets openSecrets(LaunchOptions options, boolean secured) {
        Path dir = PlatformSecrets.beside(options.postgresDirectory());
        try {
            return secured ? PlatformSecrets.open(dir) : PlatformSecrets.tokenOnly(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot make or read the platform's secrets in " + dir + ": " + e, e);
        }
    }

    /**
     * How each part reaches the cluster: as its own principal on our SASL_SSL broker, with the {@code --command-config}
     * properties on a Kafka cluster given by {@code --bootstrap-servers}, or over PLAINTEXT; and each service's
     * configuration file with those settings and the admin endpoints' token.
     */
    private record Access(PlatformSecrets secrets, boolean secured, Path commandConfig, String bootstrapServers) {

        /** {@code principal}'s client security settings, beyond {@code bootstrap.servers}. */
        Map<String, String> security(String principal) {
            Map<String, String> settings =
                    new java.util.HashMap<>(client(principal).asMap());
            settings.remove("bootstrap.servers");
            return settings;
        }

        /** How {@code principal} reaches the cluster: as itself on our secured broker, else as every part does. */
        KafkaClientSettings client(String principal) {
            return secured
                    ? secrets.client(principal, bootstrapServers)
                    : KafkaClientSettings.fromFile(bootstrapServers, commandConfig);
        }

        KafkaClientSettings launcher() {
            return client(PlatformPrincipals.ADMIN);
        }

        /** {@code instance}'s configuration file, as {@code quarkus.config.locations} takes it. */
        String serviceConfiguration(String instance) {
            try {
                return secrets.serviceConfiguration(instance, security(instance))
                        .toUri()
                        .toString();
            } catch (IOException e) {
                throw new UncheckedIOException("Cannot write " + instance + "'s configuration: " + e, e);
            }
        }
    }

    /**
     * Sets every principal's password on the broker (so that a password made anew takes effect) and grants each its
     * ACLs ({@link PlatformPrincipals}); both are idempotent, so this runs on every start.
     */
    static void authorize(KafkaClientSettings launcher, PlatformSecrets secrets) {
        try (Admin admin = Admin.create(launcher.admin(Map.of()))) {
            List<UserScramCredentialAlteration> passwords = new ArrayList<>();
            secrets.servicePasswords()
                    .forEach((principal, password) -> passwords.add(new UserScramCredentialUpsertion(
                            principal, new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 8192), password)));
            admin.alterUserScramCredentials(passwords).all().get(30, TimeUnit.SECONDS);
            admin.createAcls(PlatformPrincipals.acls()).all().get(30, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("Cannot set the principals' passwords and ACLs on the broker: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while setting the principals' passwords and ACLs", e);
        }
    }

    /**
     * order-service and its outbox-relay, then inventory-service and the outbox-relay of its outcomes, then
     * notification-service and analytics-service, then the lag monitor, each as its own process; the {@code orders} and {@code inventory}
     * topics are created first so that they get {@link #ORDERS_PARTITIONS} partitions rather than an auto-created
     * single one. If one fails to start, the ones started are stopped.
     */
    private static List<Slot> startServices(
            LaunchOptions options,
            String bootstrapServers,
            Access access,
            List<PostgresDatabase> databases,
            String smtpServer) {
        createTopics(access.launcher(), Topics.ORDERS, Topics.INVENTORY);
        Path logs = PlatformState.logs(options.postgresDirectory());
        List<Slot> slots = List.of(
                new Slot(
                        "order-service",
                        service(options, "order-service", "order-service", options.orderServicePort(), logs)
                                .properties(database(databases, "order-service").quarkusDatasource())
                                .properties(SAGA_SESSIONS)
                                .property("orderflow.consumer.drills-enabled", "true")
                                .property("kafka.bootstrap.servers", bootstrapServers)),
                new Slot(
                        "outbox-relay",
                        service(options, "outbox-relay", "outbox-relay", options.relayPort(), logs)
                                .properties(database(databases, "order-service").quarkusDatasource())
                                .property("kafka.bootstrap.servers", bootstrapServers)),
                new Slot(
                        "inventory-service",
                        consumer(
                                options,
                                "inventory-service",
                                options.consumerPort(0),
                                logs,
                                databases,
                                bootstrapServers)),
                new Slot(
                        "inventory-outbox-relay",
                        service(options, "outbox-relay", "inventory-outbox-relay", options.consumerPort(3), logs)
                                .properties(
                                        database(databases, "inventory-service").quarkusDatasource())
                                .property("kafka.bootstrap.servers", bootstrapServers)
                                .property("orderflow.outbox-relay.topic", Topics.INVENTORY)),
                new Slot(
                        "notification-service",
                        consumer(
                                        options,
                                        "notification-service",
                                        options.consumerPort(1),
                                        logs,
                                        databases,
                                        bootstrapServers)
                                .property("quarkus.mailer.host", smtpServer.substring(0, smtpServer.lastIndexOf(':')))
                                .property(
                                        "quarkus.mailer.port", smtpServer.substring(smtpServer.lastIndexOf(':') + 1))),
                new Slot(
                        "analytics-service",
                        consumer(
                                options,
                                "analytics-service",
                                options.consumerPort(2),
                                logs,
                                databases,
                                bootstrapServers)),
                new Slot(
                        "lag-monitor",
                        service(options, "lag-monitor", "lag-monitor", options.consumerPort(4), logs)
                                .property("kafka.bootstrap.servers", bootstrapServers)));
        for (Slot slot : slots) {
            slot.builder.property("quarkus.config.locations", access.serviceConfiguration(slot.instance));
        }
        List<Slot> started = new ArrayList<>();
        try {
            for (Slot slot : slots) {
                slot.process = slot.builder.start();
                started.add(slot);
            }
            return slots;
        } catch (RuntimeException e) {
            started.reversed().forEach(slot -> slot.process.close());
            throw e;
        }
    }

    /**
     * A consuming service: its own database, its group's short sessions ({@link #CONSUMER_SESSIONS}), the broker, and
     * the drills' switch turned on.
     */
    private static ServiceProcess.Builder consumer(
            LaunchOptions options,
            String module,
            int port,
            Path logs,
            List<PostgresDatabase> databases,
            String bootstrapServers) {
        return service(options, module, module, port, logs)
                .properties(database(databases, module).quarkusDatasource())
                .properties(CONSUMER_SESSIONS)
                .property("orderflow.consumer.drills-enabled", "true")
                .property("kafka.bootstrap.servers", bootstrapServers);
    }

    private static PostgresDatabase database(List<PostgresDatabase> databases, String service) {
        return databases.stream()
                .filter(d -> d.serviceName().equals(service))
                .findFirst()
                .orElseThrow();
    }

    /** GreenMail's SMTP server on a free loopback port: mails are kept in memory and shown through the services. */
    private static GreenMail startSmtp() {
        return LocalSmtpServer.start(SMTP_HOST);
    }

    /**
     * A service of the platform: listening on every interface, as it would on a server, with its log and pid file
     * under {@code .orderflow/logs} (the pid file lets the next launcher stop it if this one is killed).
     */
    private static ServiceProcess.Builder service(
            LaunchOptions options, String module, String instance, int port, Path logs) {
        Path application = quarkusApp(options, module);
        List<String> jvmOptions = new ArrayList<>(List.of("-Xmx256m"));
        if (options.quickJit()) {
            jvmOptions.add("-XX:TieredStopAtLevel=1");
        }
        if (options.aotCaches()) {
            jvmOptions.addAll(AotCaches.beside(options.applications()).jvmOptions(instance, application.getParent()));
        }
        ServiceProcess.Builder builder = ServiceProcess.builder(module, application)
                .jvmOptions(jvmOptions)
                .http("0.0.0.0", port)
                .logFile(logs.resolve(instance + ".log"))
                .pidFile(logs.resolve(instance + ".pid"));
        if (!options.warmUps()) {
            builder.property("orderflow.order-service.warm-up.rounds", "0")
                    .property("orderflow.consumer.warm-up.rounds", "0");
        }
        LaunchOptions.Tracing tracing = options.tracing();
        if (tracing.on() && !module.equals("lag-monitor")) {
            builder.property("quarkus.otel.sdk.disabled", "false")
                    .property("quarkus.otel.service.name", instance)
                    .property(
                            "quarkus.otel.exporter.otlp.traces.endpoint",
                            tracing.endpoint().toString())
                    .property("quarkus.otel.exporter.otlp.traces.protocol", tracing.protocol());
        }
        return builder;
    }

    /** A module's packaged application, as this module's build unpacked it. */
    private static Path quarkusApp(LaunchOptions options, String module) {
        return options.applications().resolve(module).resolve("quarkus-run.jar");
    }

    static void createTopics(KafkaClientSettings launcher, String... names) {
        try (Admin admin = Admin.create(launcher.admin(Map.of()))) {
            for (String name : names) {
                try {
                    // -1: the cluster's default replication factor (1 on our broker, 3 on compose's Kafka cluster).
                    admin.createTopics(List.of(new NewTopic(name, ORDERS_PARTITIONS, (short) -1)))
                            .all()
                            .get(30, TimeUnit.SECONDS);
                } catch (ExecutionException e) {
                    if (!(e.getCause() instanceof TopicExistsException)) {
                        throw new IllegalStateException("Cannot create the topic " + name + ": " + e.getCause(), e);
                    }
                }
            }
        } catch (InterruptedException | TimeoutException e) {
            throw new IllegalStateException("Cannot create the topics " + String.join(", ", names) + ": " + e, e);
        }
    }

    /** Our broker, with the SASL_SSL listener of {@code secrets}, or PLAINTEXT when that is null. */
    private static BrokerProcess startBroker(LaunchOptions options, PlatformSecrets secrets) {
        Path logs = PlatformState.logs(options.postgresDirectory());
        try {
            return BrokerProcess.start(
                    options.brokerDirectory(),
                    options.brokerPort(),
                    options.metricsPort(),
                    logs.resolve(BrokerProcess.NAME + ".log"),
                    logs.resolve(BrokerProcess.NAME + ".pid"),
                    secrets == null ? null : secrets.brokerListener());
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read the broker's certificates: " + e, e);
        }
    }

    /** The broker's current process; empty when the platform runs on an external Kafka cluster. */
    synchronized Optional<BrokerProcess> broker() {
        return Optional.ofNullable(broker);
    }

    /** What Kafka clients put in {@code bootstrap.servers}: our broker with the port actually bound, or the cluster's. */
    public String bootstrapServers() {
        return bootstrapServers;
    }

    /** True when our broker's listener is SASL_SSL, with a principal and ACLs per part. */
    public boolean secured() {
        return access.secured();
    }

    /** How {@code principal} ({@link PlatformPrincipals}) reaches the broker: as itself on a secured one. */
    public KafkaClientSettings cluster(String principal) {
        return access.client(principal);
    }

    /** The folder of the secrets: certificates, passwords, client properties, the admin token. */
    public Path secretsDirectory() {
        return access.secrets().directory();
    }

    /** The services' admin endpoints' bearer token. */
    public String adminToken() {
        return access.secrets().adminToken();
    }

    /** The services' current processes, in start order (empty with {@code --no-services}). */
    public List<ServiceProcess> services() {
        return slots.stream().map(slot -> slot.process).toList();
    }

    /** The instance names, in start order: the module's name, {@code inventory-outbox-relay} for inventory's relay. */
    public List<String> instances() {
        return slots.stream().map(slot -> slot.instance).toList();
    }

    /** The current process of {@code instance}. */
    public ServiceProcess service(String instance) {
        return slot(instance).process;
    }

    /** SIGKILL to {@code instance}'s process, as a crash would; returns once it is gone. It stays down until {@link #start}. */
    public synchronized void kill(String instance) {
        if (instance.equals(BrokerProcess.NAME)) {
            brokerDownOnRequest = true;
            ownBroker().killNine();
            return;
        }
        slot(instance).process.killNine();
    }

    /**
     * SIGTERM to {@code instance}'s process, a clean shutdown: a consuming service commits what it has processed and
     * its consumers leave their groups at once (a kill leaves them members until their sessions time out), which is
     * what a replay needs. Returns once it has ended (killed if it has not after the grace period); it stays down until
     * {@link #start}. Only services: the broker stops with the platform.
     *
     * @throws IllegalArgumentException if there is no such service
     */
    public synchronized void stop(String instance) {
        slot(instance).process.close();
    }

    /**
     * Starts the broker again on its ports and log once its process has ended (a crash, or {@code kill log-broker});
     * returns once it is ready.
     *
     * @throws IllegalStateException if it is still running or the platform is stopping
     */
    synchronized BrokerProcess startBroker() {
        if (closed.get()) {
            throw new IllegalStateException("the platform is stopping");
        }
        broker = ownBroker().restart();
        brokerDownOnRequest = false;
        return broker;
    }

    /** Whether the broker was killed on request ({@link #kill}) and has not been started since. */
    synchronized boolean brokerDownOnRequest() {
        return brokerDownOnRequest;
    }

    /**
     * Starts the broker again, as {@link #startBroker} does, if its process has ended by itself: not while it runs,
     * after a kill on request, or once the platform is stopping.
     *
     * @return the new process, or empty if nothing was started
     */
    synchronized Optional<BrokerProcess> restartBrokerThatDied() {
        if (closed.get() || brokerDownOnRequest || broker == null || broker.isAlive()) {
            return Optional.empty();
        }
        broker = broker.restart();
        return Optional.of(broker);
    }

    private BrokerProcess ownBroker() {
        if (broker == null) {
            throw new IllegalStateException(
                    "the platform runs on the Kafka cluster at " + bootstrapServers + ", not on our broker");
        }
        return broker;
    }

    /**
     * Starts {@code instance} again, with the settings and the HTTP port it had, once its process has ended (a crash,
     * {@link #kill} or {@link #stop}); returns the new process once it is ready.
     *
     * @throws IllegalStateException if it is still running
     * @throws IllegalArgumentException if there is no such instance
     */
    public synchronized ServiceProcess start(String instance) {
        Slot slot = slot(instance);
        if (closed.get()) {
            throw new IllegalStateException("the platform is stopping");
        }
        if (slot.process.isAlive()) {
            throw new IllegalStateException(instance + " is running (pid " + slot.process.pid() + ")");
        }
        slot.process = slot.builder.http("0.0.0.0", slot.process.port()).start();
        return slot.process;
    }

    private Slot slot(String instance) {
        return slots.stream()
                .filter(slot -> slot.instance.equals(instance))
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException(
                        "no service '" + instance + "'; the services are " + String.join(", ", instances())));
    }

    /** The launcher's own SMTP server's port; empty without services, or with {@code --smtp-server}. */
    public java.util.OptionalInt smtpPort() {
        return smtp == null
                ? java.util.OptionalInt.empty()
                : java.util.OptionalInt.of(smtp.getSmtp().getPort());
    }

    /** Our broker's Prometheus endpoint; empty on an external Kafka cluster. */
    public Optional<URI> metricsUri() {
        return broker().map(process -> process.http("/metrics"));
    }

    /** Our broker's health check, 200 while it serves Kafka clients; empty on an external Kafka cluster. */
    public Optional<URI> healthUri() {
        return broker().map(process -> process.http("/health"));
    }

    public LocalPostgres postgres() {
        return postgres;
    }

    public List<PostgresDatabase> databases() {
        return databases;
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        try {
            synchronized (this) {
                slots.reversed().forEach(slot -> slot.process.close());
            }
            if (smtp != null) {
                smtp.stop();
            }
        } finally {
            try {
                postgres.close();
            } finally {
                broker().ifPresent(BrokerProcess::close);
            }
        }
    }
}
