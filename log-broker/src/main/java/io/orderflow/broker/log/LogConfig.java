package io.orderflow.broker.log;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Per-topic storage settings, named and defaulted as Apache Kafka names them so that clients and tools
 * ({@code kafka-configs}, {@code DescribeConfigs}) see familiar keys.
 *
 * <p>Durability is the one deliberate difference from Kafka's defaults: Kafka leaves flushing to the
 * operating system ({@code flush.messages} = {@code Long.MAX_VALUE}) and relies on replication, but a
 * single-node broker has no replica, so by default we fsync before acknowledging ({@code flush.messages=1}).
 * See {@link FlushPolicy}.
 */
public record LogConfig(
        int segmentBytes,
        long segmentMs,
        long retentionMs,
        long retentionBytes,
        CleanupPolicy cleanupPolicy,
        long deleteRetentionMs,
        int maxMessageBytes,
        int indexIntervalBytes,
        long fileDeleteDelayMs,
        FlushPolicy flushPolicy,
        String messageTimestampType) {

    public static final String SEGMENT_BYTES = "segment.bytes";
    public static final String SEGMENT_MS = "segment.ms";
    public static final String RETENTION_MS = "retention.ms";
    public static final String RETENTION_BYTES = "retention.bytes";
    public static final String CLEANUP_POLICY = "cleanup.policy";
    public static final String DELETE_RETENTION_MS = "delete.retention.ms";
    public static final String MAX_MESSAGE_BYTES = "max.message.bytes";
    public static final String INDEX_INTERVAL_BYTES = "index.interval.bytes";
    public static final String FILE_DELETE_DELAY_MS = "file.delete.delay.ms";
    public static final String FLUSH_MESSAGES = "flush.messages";
    public static final String FLUSH_MS = "flush.ms";
    public static final String MESSAGE_TIMESTAMP_TYPE = "message.timestamp.type";
    /** The one {@code message.timestamp.type} stored: the producer's timestamps, as sent. */
    public static final String CREATE_TIME = "CreateTime";

    /** The smallest segment we accept; Kafka's own lower bound is 14 bytes, which is useless. */
    public static final int MIN_SEGMENT_BYTES = 1024;

    public LogConfig {
        if (segmentBytes < MIN_SEGMENT_BYTES) {
            throw new InvalidConfigException(SEGMENT_BYTES, segmentBytes, "must be at least " + MIN_SEGMENT_BYTES);
        }
        if (segmentMs < 1) {
            throw new InvalidConfigException(SEGMENT_MS, segmentMs, "must be at least 1");
        }
        if (retentionMs < -1) {
            throw new InvalidConfigException(RETENTION_MS, retentionMs, "must be -1 (unlimited) or more");
        }
        if (retentionBytes < -1) {
            throw new InvalidConfigException(RETENTION_BYTES, retentionBytes, "must be -1 (unlimited) or more");
        }
        if (deleteRetentionMs < 0) {
            throw new InvalidConfigException(DELETE_RETENTION_MS, deleteRetentionMs, "must not be negative");
        }
        if (maxMessageBytes < 0) {
            throw new InvalidConfigException(MAX_MESSAGE_BYTES, maxMessageBytes, "must not be negative");
        }
        if (indexIntervalBytes < 0) {
            throw new InvalidConfigException(INDEX_INTERVAL_BYTES, indexIntervalBytes, "must not be negative");
        }
        if (fileDeleteDelayMs < 0) {
            throw new InvalidConfigException(FILE_DELETE_DELAY_MS, fileDeleteDelayMs, "must not be negative");
        }
        if (!CREATE_TIME.equals(messageTimestampType)) {
            throw new InvalidConfigException(
                    MESSAGE_TIMESTAMP_TYPE,
                    messageTimestampType,
                    "must be CreateTime: records keep the producer's timestamps (LogAppendTime is not supported)");
        }
    }

    /** Kafka's defaults, except {@code flush.messages=1}: acknowledged means on disk. */
    public static LogConfig defaults() {
        return new LogConfig(
                1024 * 1024 * 1024,
                7L * 24 * 60 * 60 * 1000,
                7L * 24 * 60 * 60 * 1000,
                -1,
                CleanupPolicy.DELETE,
                24L * 60 * 60 * 1000,
                1024 * 1024 + 12,
                4096,
                60_000,
                FlushPolicy.EVERY_APPEND,
                CREATE_TIME);
    }

    /** The Kafka-named keys, in the order {@code DescribeConfigs} lists them. */
    public static final List<String> KEYS = List.of(
            CLEANUP_POLICY,
            DELETE_RETENTION_MS,
            FILE_DELETE_DELAY_MS,
            FLUSH_MESSAGES,
            FLUSH_MS,
            INDEX_INTERVAL_BYTES,
            MAX_MESSAGE_BYTES,
            MESSAGE_TIMESTAMP_TYPE,
            RETENTION_BYTES,
            RETENTION_MS,
            SEGMENT_BYTES,
            SEGMENT_MS);

    /** These settings with the given Kafka-named overrides applied; unknown keys and bad values are rejected. */
    public LogConfig with(Map<String, String> overrides) {
        Map<String, String> merged = new LinkedHashMap<>(toMap());
        for (Map.Entry<String, String> e : overrides.entrySet()) {
            if (!KEYS.contains(e.getKey())) {
                throw new InvalidConfigException(e.getKey(), e.getValue(), "is not a topic configuration we support");
            }
            merged.put(e.getKey(), e.getValue());
        }
        return fromMap(merged);
    }

    public LogConfig with(String key, String value) {
        return with(Map.of(key, value));
    }

    public LogConfig withFlushPolicy(FlushPolicy policy) {
        return with(Map.of(FLUSH_MESSAGES, Long.toString(policy.messages()), FLUSH_MS, Long.toString(policy.ms())));
    }

    /** Every setting as Kafka names and formats it. */
    public Map<String, String> toMap() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put(CLEANUP_POLICY, cleanupPolicy.kafkaName());
        m.put(DELETE_RETENTION_MS, Long.toString(deleteRetentionMs));
        m.put(FILE_DELETE_DELAY_MS, Long.toString(fileDeleteDelayMs));
        m.put(FLUSH_MESSAGES, Long.toString(flushPolicy.messages()));
        m.put(FLUSH_MS, Long.toString(flushPolicy.ms()));
        m.put(INDEX_INTERVAL_BYTES, Integer.toString(indexIntervalBytes));
        m.put(MAX_MESSAGE_BYTES, Integer.toString(maxMessageBytes));
        m.put(MESSAGE_TIMESTAMP_TYPE, messageTimestampType);
        m.put(RETENTION_BYTES, Long.toString(retentionBytes));
        m.put(RETENTION_MS, Long.toString(retentionMs));
        m.put(SEGMENT_BYTES, Integer.toString(segmentBytes));
        m.put(SEGMENT_MS, Long.toString(segmentMs));
        return m;
    }

    private static LogConfig fromMap(Map<String, String> m) {
        return new LogConfig(
                parseInt(m, SEGMENT_BYTES),
                parseLong(m, SEGMENT_MS),
                parseLong(m, RETENTION_MS),
                parseLong(m, RETENTION_BYTES),
                CleanupPolicy.parse(m.get(CLEANUP_POLICY)),
                parseLong(m, DELETE_RETENTION_MS),
                parseInt(m, MAX_MESSAGE_BYTES),
                parseInt(m, INDEX_INTERVAL_BYTES),
                parseLong(m, FILE_DELETE_DELAY_MS),
                new FlushPolicy(parseLong(m, FLUSH_MESSAGES), parseLong(m, FLUSH_MS)),
                m.get(MESSAGE_TIMESTAMP_TYPE).trim());
    }

    private static long parseLong(Map<String, String> m, String key) {
        try {
            return Long.parseLong(m.get(key).trim());
        } catch (NumberFormatException e) {
            throw new InvalidConfigException(key, m.get(key), "is not a whole number");
        }
    }

    private static int parseInt(Map<String, String> m, String key) {
        long value = parseLong(m, key);
        if (value != (int) value) {
            throw new InvalidConfigException(key, m.get(key), "is larger than " + Integer.MAX_VALUE);
        }
        return (int) value;
    }

    /** Kafka's {@code cleanup.policy}: delete old segments, keep the latest value per key, or both. */
    public enum CleanupPolicy {
        DELETE("delete"),
        COMPACT("compact"),
        COMPACT_DELETE("compact,delete");

        private final String kafkaName;

        CleanupPolicy(String kafkaName) {
            this.kafkaName = kafkaName;
        }

        public String kafkaName() {
            return kafkaName;
        }

        public boolean compacts() {
            return this != DELETE;
        }

        public boolean deletes() {
            return this != COMPACT;
        }

        public static CleanupPolicy parse(String value) {
            String normalised = value.toLowerCase(Locale.ROOT).replace(" ", "");
            return switch (normalised) {
                case "delete" -> DELETE;
                case "compact" -> COMPACT;
                case "compact,delete", "delete,compact" -> COMPACT_DELETE;
                default ->
                    throw new InvalidConfigException(
                            CLEANUP_POLICY, value, "must be delete, compact or compact,delete");
            };
        }
    }
}
