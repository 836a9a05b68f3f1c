package io.orderflow.kafka;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.eclipse.microprofile.config.Config;

/**
 * How one part of the platform reaches the Kafka cluster: {@code bootstrap.servers} and whatever else its clients need
 * there, in Kafka's own client property names ({@code security.protocol}, {@code sasl.mechanism}, {@code
 * sasl.jaas.config}, {@code ssl.truststore.location}, ...). Every producer, consumer and admin client the platform
 * builds by hand starts from one of these, so that a secured cluster (our broker's SASL_SSL listener, or an Apache
 * Kafka cluster) is a configuration change and never a code path of its own.
 *
 * <p>Three sources, as Kafka users know them: a Quarkus service's {@code kafka.*} configuration ({@link #fromConfig},
 * the same keys SmallRye's Kafka connector reads, so environment variables such as {@code KAFKA_SASL_JAAS_CONFIG}
 * work), a client properties file as the Kafka CLI tools take with {@code --command-config} ({@link #fromFile}), or a
 * bare address ({@link #plaintext}). {@link #producer}, {@link #consumer} and {@link #admin} give each client only the
 * keys it knows (kafka-clients warns about the others) with its own settings over them.
 *
 * <p>Secrets ({@code sasl.jaas.config}, passwords) are never shown: {@link #toString} hides their values. Immutable and
 * thread-safe.
 */
public final class KafkaClientSettings {

    /** Every key a Kafka producer, consumer or admin client knows: what {@link #fromConfig} looks for. */
    private static final Set<String> CLIENT_KEYS = clientKeys();

    private final Map<String, String> settings;

    private KafkaClientSettings(Map<String, String> settings) {
        if (!settings.containsKey(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG)) {
            throw new IllegalArgumentException(
                    "no bootstrap.servers among the Kafka client settings " + settings.keySet());
        }
        this.settings = Map.copyOf(settings);
    }

    /** A cluster reached over PLAINTEXT at {@code bootstrapServers}, with nothing else set. */
    public static KafkaClientSettings plaintext(String bootstrapServers) {
        return new KafkaClientSettings(Map.of(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers));
    }

    /**
     * A service's {@code kafka.*} configuration: each Kafka client key set under that prefix ({@code
     * kafka.bootstrap.servers}, {@code kafka.security.protocol}, ...), from any of its configuration's sources.
     *
     * @throws IllegalArgumentException if {@code kafka.bootstrap.servers} is not set
     */
    public static KafkaClientSettings fromConfig(Config config) {
        Map<String, String> found = new HashMap<>();
        for (String key : CLIENT_KEYS) {
            config.getOptionalValue("kafka." + key, String.class).ifPresent(value -> found.put(key, value));
        }
        return new KafkaClientSettings(found);
    }

    /**
     * {@code bootstrapServers} with the client properties in {@code file}, the file the Kafka CLI tools take with
     * {@code --command-config} (security settings; a {@code bootstrap.servers} in it is overridden); {@code null} for no
     * file.
     *
     * @throws UncheckedIOException naming the file if it cannot be read
     */
    public static KafkaClientSettings fromFile(String bootstrapServers, Path file) {
        Map<String, String> found = new HashMap<>();
        if (file != null) {
            Properties properties = new Properties();
            try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
                properties.load(reader);
            } catch (IOException e) {
                throw new UncheckedIOException("Cannot read the Kafka client properties " + file + ": " + e, e);
            }
            properties
                    .stringPropertyNames()
                    .forEach(key -> found.put(key, properties.getProperty(key).trim()));
        }
        found.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        return new KafkaClientSettings(found);
    }

    /** Where the cluster is: the clients' {@code bootstrap.servers}. */
    public String bootstrapServers() {
        return settings.get(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG);
    }

    /** Every setting, as a client's properties (secrets among them: do not log). */
    public Map<String, String> asMap() {
        return settings;
    }

    /** These settings with {@code key} set to {@code value}. */
    public KafkaClientSettings with(String key, String value) {
        Map<String, String> changed = new HashMap<>(settings);
        changed.put(key, value);
        return new KafkaClientSettings(changed);
    }

    /** A producer's configuration: the settings a producer knows, then {@code own} over them. */
    public Map<String, Object> producer(Map<String, ?> own) {
        return configuration(ProducerConfig.configNames(), own);
    }

    /** A consumer's configuration: the settings a consumer knows, then {@code own} over them. */
    public Map<String, Object> consumer(Map<String, ?> own) {
        return configuration(ConsumerConfig.configNames(), own);
    }

    /** An admin client's configuration: the settings an admin client knows, then {@code own} over them. */
    public Map<String, Object> admin(Map<String, ?> own) {
        return configuration(AdminClientConfig.configNames(), own);
    }

    private Map<String, Object> configuration(Set<String> known, Map<String, ?> own) {
        Map<String, Object> configuration = new HashMap<>();
        settings.forEach((key, value) -> {
            if (known.contains(key)) {
                configuration.put(key, value);
            }
        });
        configuration.putAll(own);
        return configuration;
    }

    /** True if a key's value is a secret: {@code sasl.jaas.config} and any password. */
    static boolean secret(String key) {
        return key.equals("sasl.jaas.config") || key.contains("password") || key.endsWith(".key");
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof KafkaClientSettings that && settings.equals(that.settings);
    }

    @Override
    public int hashCode() {
        return settings.hashCode();
    }

    /** The settings in key order with every secret's value hidden. */
    @Override
    public String toString() {
        Map<String, String> shown = new TreeMap<>();
        settings.forEach((key, value) -> shown.put(key, secret(key) ? "(hidden)" : value));
        return shown.toString();
    }

    private static Set<String> clientKeys() {
        Set<String> keys = new TreeSet<>(ProducerConfig.configNames());
        keys.addAll(ConsumerConfig.configNames());
        keys.addAll(AdminClientConfig.configNames());
        return Set.copyOf(keys);
    }
}
