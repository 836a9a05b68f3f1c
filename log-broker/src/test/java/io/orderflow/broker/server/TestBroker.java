package io.orderflow.broker.server;

import java.nio.file.Path;
import java.time.Clock;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * A real broker for tests, in-process on a free loopback port with its data in the given directory, and stock
 * kafka-clients (admin, producer, consumer) that talk to it over TCP. Not thread-safe; one per test.
 */
public final class TestBroker implements AutoCloseable {
    private final Path dataDir;
    private final Map<String, String> settings;
    private Broker broker;

    private TestBroker(Path dataDir, Map<String, String> settings) {
        this.dataDir = dataDir;
        this.settings = Map.copyOf(settings);
        this.broker = Broker.start(config(dataDir, settings), Clock.systemUTC());
    }

    /** Starts a broker with the test defaults. */
    public static TestBroker start(Path dataDir) {
        return start(dataDir, Map.of());
    }

    /** Starts a broker with the test defaults and {@code settings} (broker keys, see {@link BrokerConfig}) on top. */
    public static TestBroker start(Path dataDir, Map<String, String> settings) {
        return new TestBroker(dataDir, settings);
    }

    /** The test defaults (free port, loopback, no metrics listener) with {@code settings} on top. */
    public static BrokerConfig config(Path dataDir, Map<String, String> settings) {
        Map<String, String> values = new HashMap<>(Map.of(
                "port", "0",
                "listen.host", "127.0.0.1",
                "advertised.host", "127.0.0.1",
                "log.dirs", dataDir.toString(),
                "metrics.port", "-1"));
        values.putAll(settings);
        return BrokerConfig.from(values);
    }

    /** Stops the broker cleanly and starts it again on the same data, with the same settings (a new port). */
    public void restart() {
        broker.close();
        broker = Broker.start(config(dataDir, settings), Clock.systemUTC());
    }

    public Broker broker() {
        return broker;
    }

    public String bootstrap() {
        return "127.0.0.1:" + broker.port();
    }

    public Admin admin() {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap()));
    }

    /** An idempotent {@code acks=all} producer of string keys and values. */
    public KafkaProducer<String, String> producer() {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        return new KafkaProducer<>(p, new StringSerializer(), new StringSerializer());
    }

    /** A consumer without a group (use {@code assign}) that starts at the earliest offset. */
    public KafkaConsumer<String, String> consumer() {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap());
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        return new KafkaConsumer<>(p, new StringDeserializer(), new StringDeserializer());
    }

    /** Creates a topic through the admin client, with the given configuration overrides. */
    public void createTopic(String name, int partitions, Map<String, String> configs) throws Exception {
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic(name, partitions, (short) 1).configs(configs)))
                    .all()
                    .get(30, TimeUnit.SECONDS);
        }
    }

    @Override
    public void close() {
        broker.close();
    }
}
