package io.orderflow.hostileframes;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The stock kafka-clients the harness checks a broker with, before and after the hostile frames: an admin client,
 * an idempotent producer with acks=all, a consumer without a group. Their timeouts are short enough that a broker
 * which stopped answering fails the check within a minute instead of hanging the run. Stateless.
 */
final class Clients {
    static final Duration TIMEOUT = Duration.ofSeconds(30);

    private final String bootstrap;

    Clients(String bootstrap) {
        this.bootstrap = bootstrap;
    }

    String bootstrap() {
        return bootstrap;
    }

    Admin admin() {
        Properties config = common("hostile-frames-admin");
        return Admin.create(config);
    }

    KafkaProducer<byte[], byte[]> producer() {
        Properties config = common("hostile-frames-producer");
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        config.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, Long.toString(TIMEOUT.toMillis()));
        config.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, Long.toString(TIMEOUT.toMillis()));
        return new KafkaProducer<>(config, new ByteArraySerializer(), new ByteArraySerializer());
    }

    KafkaConsumer<byte[], byte[]> consumer() {
        Properties config = common("hostile-frames-consumer");
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        return new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    /** Creates {@code topic} with one partition and returns its id; fails if it exists already. */
    Uuid createTopic(String topic) throws Exception {
        try (Admin admin = admin()) {
            return admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1)))
                    .topicId(topic)
                    .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    /** How many topics the broker lists (internal ones left out). */
    int topicCount() throws Exception {
        try (Admin admin = admin()) {
            return admin.listTopics()
                    .names()
                    .get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
                    .size();
        }
    }

    private Properties common(String clientId) {
        Properties config = new Properties();
        config.putAll(Map.of(
                CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG,
                bootstrap,
                CommonClientConfigs.CLIENT_ID_CONFIG,
                clientId,
                CommonClientConfigs.REQUEST_TIMEOUT_MS_CONFIG,
                "10000",
                CommonClientConfigs.DEFAULT_API_TIMEOUT_MS_CONFIG,
                Long.toString(TIMEOUT.toMillis())));
        return config;
    }
}
