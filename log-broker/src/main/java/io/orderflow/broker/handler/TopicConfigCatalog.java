package io.orderflow.broker.handler;

import io.orderflow.broker.log.LogConfig;
import io.orderflow.broker.log.Topic;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.requests.DescribeConfigsResponse.ConfigSource;
import org.apache.kafka.common.requests.DescribeConfigsResponse.ConfigType;

/**
 * What Kafka's admin tools are told about each topic configuration of {@link LogConfig}: its type, the broker
 * setting that supplies its default (Kafka's name for it), a line of documentation, and where a topic's value
 * comes from.
 *
 * <p><b>Sources, as Kafka reports them.</b> A topic override is {@link ConfigSource#TOPIC_CONFIG}. Otherwise
 * the value is the broker's default: {@link ConfigSource#STATIC_BROKER_CONFIG} when the broker's configuration
 * changed it from the built-in default ({@link LogConfig#defaults()}), else {@link ConfigSource#DEFAULT_CONFIG}.
 * We tell the two apart by value, not by whether the operator wrote the key down: an operator who sets
 * {@code log.retention.ms} to its built-in value sees {@code DEFAULT_CONFIG}, which names the same value. Synonyms
 * list every level that has a value, most specific first (override, broker setting, built-in default), each
 * level under its own name, as Kafka does.
 *
 * <p>Broker settings are static here (there are no dynamic broker configs), so every broker-level entry is
 * read-only. Stateless; thread-safe.
 */
final class TopicConfigCatalog {
    /** One topic configuration: its Kafka type, the broker setting that defaults it, and what it means. */
    record Definition(String key, ConfigType type, String brokerKey, String documentation) {}

    /** In {@link LogConfig#KEYS} order. */
    private static final Map<String, Definition> DEFINITIONS = new LinkedHashMap<>();

    private static final Map<String, String> BUILT_IN = LogConfig.defaults().toMap();

    static {
        define(
                LogConfig.CLEANUP_POLICY,
                ConfigType.LIST,
                "log.cleanup.policy",
                "What happens to old segments: \"delete\" removes them by retention.ms and retention.bytes,"
                        + " \"compact\" keeps the latest record of each key, \"compact,delete\" does both.");
        define(
                LogConfig.DELETE_RETENTION_MS,
                ConfigType.LONG,
                "log.cleaner.delete.retention.ms",
                "How long a tombstone stays in a compacted log after the cleaning that first kept it, so that"
                        + " readers see the delete.");
        define(
                LogConfig.FILE_DELETE_DELAY_MS,
                ConfigType.LONG,
                "log.segment.delete.delay.ms",
                "How long a segment removed by retention or compaction stays on disk before its files are"
                        + " deleted, so that reads already under way finish.");
        define(
                LogConfig.FLUSH_MESSAGES,
                ConfigType.LONG,
                "log.flush.interval.messages",
                "Fsync once this many messages are unflushed. This broker's default is 1: an acknowledged"
                        + " message is on disk (Kafka's default leaves flushing to the operating system).");
        define(
                LogConfig.FLUSH_MS,
                ConfigType.LONG,
                "log.flush.interval.ms",
                "Fsync at least this often, in milliseconds, when messages are unflushed.");
        define(
                LogConfig.INDEX_INTERVAL_BYTES,
                ConfigType.INT,
                "log.index.interval.bytes",
                "Bytes of records between two offset index entries.");
        define(
                LogConfig.MAX_MESSAGE_BYTES,
                ConfigType.INT,
                "message.max.bytes",
                "The largest record batch the topic accepts, in bytes.");
        define(
                LogConfig.MESSAGE_TIMESTAMP_TYPE,
                ConfigType.STRING,
                "log.message.timestamp.type",
                "Which timestamp records keep: CreateTime, the producer's (the only one supported; Kafka Streams"
                        + " names it for its internal topics).");
        define(
                LogConfig.RETENTION_BYTES,
                ConfigType.LONG,
                "log.retention.bytes",
                "The most bytes a partition keeps before its oldest segments are removed; -1 for no limit.");
        define(
                LogConfig.RETENTION_MS,
                ConfigType.LONG,
                "log.retention.ms",
                "How long a segment is kept after its newest record's timestamp before it is removed; -1 for"
                        + " ever.");
        define(
                LogConfig.SEGMENT_BYTES,
                ConfigType.INT,
                "log.segment.bytes",
                "The size at which a partition's active segment is sealed and a new one started.");
        define(
                LogConfig.SEGMENT_MS,
                ConfigType.LONG,
                "log.roll.ms",
                "The age at which a partition's active segment is sealed and a new one started, even if not"
                        + " full.");
        if (!List.copyOf(DEFINITIONS.keySet()).equals(LogConfig.KEYS)) {
            throw new IllegalStateException(
                    "Topic configs " + LogConfig.KEYS + " and their definitions " + DEFINITIONS.keySet() + " differ");
        }
    }

    private static void define(String key, ConfigType type, String brokerKey, String documentation) {
        DEFINITIONS.put(key, new Definition(key, type, brokerKey, documentation));
    }

    private TopicConfigCatalog() {}

    /** Every topic configuration, in {@link LogConfig#KEYS} order. */
    static List<Definition> definitions() {
        return List.copyOf(DEFINITIONS.values());
    }

    /** The definition of a topic configuration key, or null when we do not support it. */
    static Definition definition(String key) {
        return DEFINITIONS.get(key);
    }

    /** One level a value comes from, as a synonym in a DescribeConfigs answer. */
    record Synonym(String name, String value, ConfigSource source) {}

    /**
     * Where {@code topic}'s value of {@code key} comes from, most specific first; the first one is in effect.
     *
     * @param brokerDefaults the broker's topic defaults (its configuration applied to the built-in ones)
     */
    static List<Synonym> topicSynonyms(Topic topic, String key, LogConfig brokerDefaults) {
        List<Synonym> synonyms = new ArrayList<>();
        String override = topic.overrides().get(key);
        if (override != null) {
            synonyms.add(new Synonym(key, override, ConfigSource.TOPIC_CONFIG));
        }
        synonyms.addAll(brokerSynonyms(key, brokerDefaults));
        return synonyms;
    }

    /** Where the broker's default for topic config {@code key} comes from, most specific first. */
    static List<Synonym> brokerSynonyms(String key, LogConfig brokerDefaults) {
        Definition definition = DEFINITIONS.get(key);
        String builtIn = BUILT_IN.get(key);
        String configured = brokerDefaults.toMap().get(key);
        List<Synonym> synonyms = new ArrayList<>(2);
        if (!configured.equals(builtIn)) {
            synonyms.add(new Synonym(definition.brokerKey(), configured, ConfigSource.STATIC_BROKER_CONFIG));
        }
        synonyms.add(new Synonym(definition.brokerKey(), builtIn, ConfigSource.DEFAULT_CONFIG));
        return synonyms;
    }

    /** The source of {@code topic}'s value of {@code key}. */
    static ConfigSource topicSource(Topic topic, String key, LogConfig brokerDefaults) {
        return topicSynonyms(topic, key, brokerDefaults).getFirst().source();
    }
}
