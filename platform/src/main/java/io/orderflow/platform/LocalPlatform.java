package io.orderflow.platform;

import io.orderflow.broker.server.Broker;
import io.orderflow.broker.server.BrokerConfig;
import io.orderflow.postgres.LocalPostgres;
import io.orderflow.postgres.PostgresConfiguration;
import io.orderflow.postgres.PostgresDatabase;
import java.net.URI;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Everything the launcher starts, as one object that stops it all again.
 *
 * <p>Today: our log {@link Broker}, in this JVM, with its data under the launch options' broker directory (kept
 * across restarts, like a Kafka log directory), then a {@link LocalPostgres} (the configured server, or an
 * embedded one under the launch options' directory) and one database per service. The services join after both,
 * as later issues build them, because they need the broker and their database from their first moment.
 *
 * <p>The broker starts first because it is the part most likely to fail: its default port 9092 is fixed and often
 * taken by another Kafka, and binding fails in milliseconds, before PostgreSQL has spent seconds starting.
 *
 * <p>The broker listens on 127.0.0.1 only and advertises {@code localhost}: a laptop's platform should not be
 * reachable from the network (Docker gets its own configuration). {@link #close()} stops in reverse order of
 * start; a clean stop leaves each partition's clean-shutdown marker, so the next start skips log validation.
 *
 * <p>Not thread-safe except {@link #close()}, which is idempotent and may race with the shutdown hook.
 */
public final class LocalPlatform implements AutoCloseable {

    /** The services that get a database, in the order the launcher reports them. */
    public static final List<String> SERVICES =
            List.of("order-service", "inventory-service", "notification-service", "analytics-service");

    private static final String BROKER_LISTEN_HOST = "127.0.0.1";
    private static final String BROKER_ADVERTISED_HOST = "localhost";

    private final Broker broker;
    private final LocalPostgres postgres;
    private final List<PostgresDatabase> databases;
    private final AtomicBoolean closed = new AtomicBoolean();

    private LocalPlatform(Broker broker, LocalPostgres postgres, List<PostgresDatabase> databases) {
        this.broker = broker;
        this.postgres = postgres;
        this.databases = databases;
    }

    public static LocalPlatform start(PostgresConfiguration configuration, LaunchOptions options) {
        Broker broker = startBroker(options);
        try {
            LocalPostgres postgres =
                    LocalPostgres.start(configuration, options.postgresDirectory(), options.postgresPort());
            try {
                List<PostgresDatabase> databases =
                        SERVICES.stream().map(postgres::database).toList();
                return new LocalPlatform(broker, postgres, databases);
            } catch (RuntimeException e) {
                postgres.close();
                throw e;
            }
        } catch (RuntimeException e) {
            broker.close();
            throw e;
        }
    }

    private static Broker startBroker(LaunchOptions options) {
        BrokerConfig config = BrokerConfig.from(Map.of(
                "listen.host", BROKER_LISTEN_HOST,
                "port", Integer.toString(options.brokerPort()),
                "advertised.host", BROKER_ADVERTISED_HOST,
                "log.dirs", options.brokerDirectory().toString(),
                "metrics.port", Integer.toString(options.metricsPort())));
        try {
            return Broker.start(config, Clock.systemUTC());
        } catch (RuntimeException e) {
            throw new IllegalStateException(
                    "The log broker did not start on " + BROKER_LISTEN_HOST + " (Kafka port " + options.brokerPort()
                            + ", metrics port " + options.metricsPort() + ", data in "
                            + options.brokerDirectory().toAbsolutePath() + "): " + e.getMessage()
                            + ". --broker-port and --metrics-port choose other ports (0 picks any free one).",
                    e);
        }
    }

    public Broker broker() {
        return broker;
    }

    /** What Kafka clients put in {@code bootstrap.servers}, with the port actually bound. */
    public String bootstrapServers() {
        return broker.node().host() + ":" + broker.node().port();
    }

    /** The broker's Prometheus endpoint. */
    public URI metricsUri() {
        return brokerHttp("/metrics");
    }

    /** The broker's health check: 200 while it serves Kafka clients. */
    public URI healthUri() {
        return brokerHttp("/health");
    }

    private URI brokerHttp(String path) {
        return URI.create("http://" + BROKER_ADVERTISED_HOST + ":" + broker.metricsPort() + path);
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
            postgres.close();
        } finally {
            broker.close();
        }
    }
}
