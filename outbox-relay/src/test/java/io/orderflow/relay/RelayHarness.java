package io.orderflow.relay;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.opentelemetry.api.OpenTelemetry;
import io.orderflow.kafka.KafkaClientSettings;
import io.orderflow.testing.InProcessBroker;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;

/** Builds relays wired to a test's database and broker, and creates the topics they publish to. */
final class RelayHarness {

    static final String TOPIC = "orders";

    private final OutboxFixture outbox;
    private final InProcessBroker broker;

    RelayHarness(OutboxFixture outbox, InProcessBroker broker) {
        this.outbox = outbox;
        this.broker = broker;
    }

    void createTopic(int partitions) throws Exception {
        createTopic(TOPIC, partitions);
    }

    void createTopic(String topic, int partitions) throws Exception {
        try (Admin admin =
                Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()))) {
            admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1)))
                    .all()
                    .get(30, TimeUnit.SECONDS);
        }
    }

    OutboxRelay relay(RelayConfig settings, RelayMetrics metrics) {
        return relay(settings, metrics, OpenTelemetry.noop());
    }

    OutboxRelay relay(RelayConfig settings, RelayMetrics metrics, OpenTelemetry openTelemetry) {
        Map<String, Object> producerConfig =
                OutboxPublisher.producerConfig(KafkaClientSettings.plaintext(broker.bootstrapServers()));
        return new OutboxRelay(
                settings,
                outbox::connect,
                () -> OutboxPublisher.newProducer(producerConfig),
                metrics,
                openTelemetry,
                Clock.systemUTC());
    }

    OutboxRelay relay(RelayConfig settings) {
        return relay(settings, new RelayMetrics(new SimpleMeterRegistry()));
    }

    static RelayMetrics metrics() {
        return new RelayMetrics(new SimpleMeterRegistry());
    }

    private static final List<Thread> STARTED = new java.util.concurrent.CopyOnWriteArrayList<>();

    static Thread runInBackground(OutboxRelay relay, String name) {
        Thread thread = Thread.ofPlatform().name(name).daemon().start(relay);
        STARTED.add(thread);
        return thread;
    }

    /** The relay threads started so far that have not ended; forgets the ones that have. */
    static List<Thread> startedThreads() {
        STARTED.removeIf(thread -> !thread.isAlive());
        return List.copyOf(STARTED);
    }
}
