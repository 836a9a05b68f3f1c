package io.orderflow.broker.server;

import io.orderflow.broker.log.LogConfig;
import io.orderflow.broker.network.ConnectionThreads;
import io.orderflow.broker.network.NetworkLimits;
import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;

/**
 * The broker's settings, from a properties file and/or command-line overrides, named as Apache Kafka names
 * them where Kafka has the same setting. Every key, its default and meaning is listed in {@link #KEYS} and
 * printed by {@code --help}.
 */
public record BrokerConfig(
        int nodeId,
        String listenHost,
        int port,
        String advertisedHost,
        int advertisedPort,
        Path dataDir,
        boolean autoCreateTopics,
        int numPartitions,
        NetworkLimits limits,
        ConnectionThreads connectionThreads,
        LogConfig logDefaults,
        long retentionCheckIntervalMs,
        long groupInitialRebalanceDelayMs,
        int metricsPort) {

    /** Key, default, description: the documentation of every setting. */
    public static final Map<String, String[]> KEYS = new LinkedHashMap<>();

    static {
        doc("node.id", "1", "this broker's node id");
        doc("listen.host", "0.0.0.0", "address to bind the Kafka listener to");
        doc("port", "9092", "Kafka listener port (0 picks a free one)");
        doc("advertised.host", "localhost", "host clients are told to connect to");
        doc("advertised.port", "same as port", "port clients are told to connect to");
        doc("log.dirs", ".orderflow/broker", "data directory");
        doc("auto.create.topics.enable", "true", "create unknown topics on Metadata requests that allow it");
        doc("num.partitions", "1", "partitions of auto-created topics and CreateTopics without a count");
        doc(
                "socket.request.max.bytes",
                "104857600",
                "largest request frame accepted; larger ones close the connection");
        doc("max.connections", "10000", "connections beyond this are closed at once");
        doc(
                "connection.threads",
                "platform",
                "platform: two OS threads per connection, lowest latency; virtual: for many thousands of connections");
        doc("log.segment.bytes", "1073741824", "default segment.bytes");
        doc("log.roll.ms", "604800000", "default segment.ms");
        doc("log.retention.ms", "604800000", "default retention.ms (-1: forever)");
        doc("log.retention.bytes", "-1", "default retention.bytes per partition (-1: unlimited)");
        doc("log.cleanup.policy", "delete", "default cleanup.policy");
        doc("log.flush.interval.messages", "1", "default flush.messages (1: fsync before acknowledging)");
        doc("log.flush.interval.ms", "9223372036854775807", "default flush.ms");
        doc("log.retention.check.interval.ms", "1000", "how often retention, compaction and flush.ms run");
        doc("group.initial.rebalance.delay.ms", "3000", "wait for more members before the first rebalance of a group");
        doc("metrics.port", "9404", "HTTP port for /metrics (Prometheus) and /health; -1 disables it");
    }

    private static void doc(String key, String fallback, String meaning) {
        KEYS.put(key, new String[] {fallback, meaning});
    }

    /** Reads {@code file} (may be null) and applies {@code overrides} on top; unknown keys are rejected. */
    public static BrokerConfig load(Path file, Map<String, String> overrides) {
        Map<String, String> values = new LinkedHashMap<>();
        if (file != null) {
            Properties props = new Properties();
            try (Reader reader = Files.newBufferedReader(file)) {
                props.load(reader);
            } catch (IOException e) {
                throw new IllegalArgumentException("Cannot read config file " + file + ": " + e.getMessage(), e);
            }
            props.stringPropertyNames()
                    .forEach(k -> values.put(k, props.getProperty(k).trim()));
        }
        values.putAll(overrides);
        return from(values);
    }

    public static BrokerConfig from(Map<String, String> values) {
        for (String key : values.keySet()) {
            if (!KEYS.containsKey(key)) {
                throw new IllegalArgumentException("Unknown setting " + key + "; --help lists the settings");
            }
        }
        int port = integer(values, "port");
        LogConfig logDefaults = LogConfig.defaults()
                .with(Map.of(
                        LogConfig.SEGMENT_BYTES, get(values, "log.segment.bytes"),
                        LogConfig.SEGMENT_MS, get(values, "log.roll.ms"),
                        LogConfig.RETENTION_MS, get(values, "log.retention.ms"),
                        LogConfig.RETENTION_BYTES, get(values, "log.retention.bytes"),
                        LogConfig.CLEANUP_POLICY, get(values, "log.cleanup.policy"),
                        LogConfig.FLUSH_MESSAGES, get(values, "log.flush.interval.messages"),
                        LogConfig.FLUSH_MS, get(values, "log.flush.interval.ms")));
        String advertisedPort = values.get("advertised.port");
        return new BrokerConfig(
                integer(values, "node.id"),
                get(values, "listen.host"),
                port,
                get(values, "advertised.host"),
                advertisedPort == null ? -1 : Integer.parseInt(advertisedPort),
                Path.of(get(values, "log.dirs")),
                Boolean.parseBoolean(get(values, "auto.create.topics.enable")),
                integer(values, "num.partitions"),
                new NetworkLimits(integer(values, "socket.request.max.bytes"), integer(values, "max.connections")),
                ConnectionThreads.parse(get(values, "connection.threads")),
                logDefaults,
                Long.parseLong(get(values, "log.retention.check.interval.ms")),
                Long.parseLong(get(values, "group.initial.rebalance.delay.ms")),
                integer(values, "metrics.port"));
    }

    private static String get(Map<String, String> values, String key) {
        return values.getOrDefault(key, KEYS.get(key)[0]);
    }

    private static int integer(Map<String, String> values, String key) {
        String value = get(values, key);
        try {
            return Integer.parseInt(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("Setting " + key + "=" + value + " is not a whole number", e);
        }
    }
}
