package io.orderflow.relay.service;

import io.micrometer.core.instrument.MeterRegistry;
import io.opentelemetry.api.OpenTelemetry;
import io.orderflow.kafka.KafkaClientSettings;
import io.orderflow.relay.OutboxPublisher;
import io.orderflow.relay.OutboxRelay;
import io.orderflow.relay.RelayConfig;
import io.orderflow.relay.RelayMetrics;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Singleton;
import java.sql.DriverManager;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

/**
 * Runs the relay loop on its own thread for the application's life. The relay's database session is opened with
 * the datasource's URL and credentials but outside the pool (see {@link io.orderflow.relay.OutboxDatabase}); the
 * broker is whatever {@code kafka.bootstrap.servers} names, reached with the other {@code kafka.*} client settings
 * ({@link KafkaClientSettings#fromConfig}: a SASL_SSL listener's too): our broker or an Apache Kafka cluster alike.
 */
@Singleton
public class RelayService {

    private static final Logger LOG = Logger.getLogger(RelayService.class);

    private final OutboxRelay relay;
    private final ProducerMeters producerMeters;
    private final KafkaClientSettings cluster;
    private Thread thread;

    RelayService(
            RelayConfig config,
            MeterRegistry registry,
            OpenTelemetry openTelemetry,
            @ConfigProperty(name = "quarkus.datasource.jdbc.url") String jdbcUrl,
            @ConfigProperty(name = "quarkus.datasource.username", defaultValue = "postgres") String user,
            @ConfigProperty(name = "quarkus.datasource.password") Optional<String> password,
            Config configuration) {
        this.cluster = KafkaClientSettings.fromConfig(configuration);
        Map<String, Object> producerConfig = OutboxPublisher.producerConfig(cluster);
        this.producerMeters = new ProducerMeters(registry);
        this.relay = new OutboxRelay(
                config,
                () -> DriverManager.getConnection(jdbcUrl, user, password.orElse("")),
                () -> producerMeters.bind(OutboxPublisher.newProducer(producerConfig)),
                new RelayMetrics(registry),
                openTelemetry,
                Clock.systemUTC());
    }

    void start(@Observes StartupEvent event) {
        thread = Thread.ofPlatform().name("outbox-relay").start(relay);
        LOG.infof(
                "outbox relay started: broker %s, topic %s",
                cluster.bootstrapServers(), relay.settings().topic());
    }

    void stop(@Observes ShutdownEvent event) throws InterruptedException {
        relay.close();
        if (thread != null) {
            thread.join(Duration.ofSeconds(10));
        }
        producerMeters.close();
    }

    public OutboxRelay relay() {
        return relay;
    }

    /** How the relay reaches the cluster: its readiness check's admin client connects the same way. */
    public KafkaClientSettings cluster() {
        return cluster;
    }
}
