package io.orderflow.broker.log;

import java.io.Closeable;
import java.io.IOException;
import java.io.Reader;
import java.io.StringWriter;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every topic and partition log of the broker, under one data directory.
 *
 * <p><b>Layout.</b> {@code <data>/<topic>-<partition>/} per partition, as Kafka lays it out, and
 * {@code <data>/topics/<topic>.properties} per topic: its id, partition count and configuration overrides.
 * A topic file is replaced atomically (write, fsync, rename, fsync directory), and it is written before the
 * partition directories are created and removed before they are deleted, so after a crash a topic either
 * exists with all its partitions (missing ones are created on open) or not at all (orphaned partition
 * directories are deleted on open).
 *
 * <p><b>Durability.</b> Every partition's group commit runs in the same {@link CommitRounds}: the appends waiting
 * when a round starts are fsynced together and become readable together, and a Produce's partitions always wait in the
 * same round ({@link PartitionLog#appendOfRequest}, {@link PartitionLog#awaitDurable(Map)}).
 *
 * <p><b>Thread-safety.</b> Topic changes (create, delete, add partitions, alter config) are serialised;
 * lookups are lock-free and may run concurrently with them.
 */
public final class LogDirectory implements Closeable {
    private static final Logger log = LoggerFactory.getLogger(LogDirectory.class);
    private static final String TOPICS_DIR = "topics";
    private static final String SUFFIX = ".properties";
    /** More partitions than a laptop broker can sensibly keep open; also bounds what one request can ask. */
    public static final int MAX_PARTITIONS_PER_TOPIC = 10_000;

    private final Path dataDir;
    private final LogConfig defaults;
    private final Clock clock;
    private final LogFiles files;
    /** One set of commit rounds for every partition, so a request's partitions become readable together. */
    private final CommitRounds rounds;

    private final Map<String, Topic> topics = new ConcurrentHashMap<>();
    private final Map<UUID, Topic> topicsById = new ConcurrentHashMap<>();
    private final Map<String, PartitionLog> logs = new ConcurrentHashMap<>();
    private volatile int maxPartitions = Integer.MAX_VALUE;
    private final Object changes = new Object();

    private LogDirectory(Path dataDir, LogConfig defaults, Clock clock, LogFiles files, Executor flusher) {
        this.dataDir = dataDir;
        this.defaults = defaults;
        this.clock = clock;
        this.files = files;
        this.rounds = new CommitRounds(flusher);
    }

    /**
     * Opens (recovering every partition) or creates the broker's data directory. If a partition cannot be opened,
     * the ones opened before it are closed again before the failure is thrown.
     */
    public static LogDirectory open(Path dataDir, LogConfig defaults, Clock clock, LogFiles files, Executor flusher) {
        LogDirectory directory = new LogDirectory(dataDir, defaults, clock, files, flusher);
        try {
            directory.load();
        } catch (RuntimeException e) {
            try {
                directory.close();
            } catch (RuntimeException closing) {
                e.addSuppressed(closing);
            }
            throw e;
        }
        return directory;
    }

    private void load() {
        try {
            Files.createDirectories(dataDir.resolve(TOPICS_DIR));
            for (Path file : list(dataDir.resolve(TOPICS_DIR))) {
                String fileName = file.getFileName().toString();
                if (fileName.endsWith(".tmp")) {
                    Files.delete(file);
                } else if (fileName.endsWith(SUFFIX)) {
                    Topic topic = readTopic(file);
                    register(topic);
                    for (int p = 0; p < topic.partitions(); p++) {
                        openPartition(topic, p);
                    }
                }
            }
            for (Path dir : list(dataDir)) {
                String name = dir.getFileName().toString();
                if (Files.isDirectory(dir)
                        && !name.equals(TOPICS_DIR)
                        && !logs.containsKey(name)
                        && isPartition(name)) {
                    log.atWarn()
                            .addKeyValue("dir", dir)
                            .log("Deleting a partition directory of no topic (a deletion interrupted by a crash)");
                    deleteRecursively(dir);
                }
            }
        } catch (IOException e) {
            throw new LogStorageException("Cannot open data directory " + dataDir, e);
        }
    }

    /** Internal topics (names starting with "__") are kept by their owners outside this directory's topics. */
    private boolean isPartition(String dirName) {
        int dash = dirName.lastIndexOf('-');
        return dash > 0
                && !dirName.startsWith("__")
                && dirName.substring(dash + 1).chars().allMatch(Character::isDigit);
    }

    public Path dataDir() {
        return dataDir;
    }

    public LogConfig defaults() {
        return defaults;
    }

    /**
     * Limits the partitions of all topics together to {@code max} ({@code max.partitions}, KIP-578's name): a topic
     * created or grown beyond it is refused with {@link TopicException.Reason#PARTITION_LIMIT}. Partitions already
     * there stay.
     */
    public void limitPartitions(int max) {
        if (max < 1) {
            throw new IllegalArgumentException("max.partitions must be positive, got " + max);
        }
        maxPartitions = max;
    }

    /** Refuses {@code adding} more partitions (to {@code name}) if they would pass {@code max.partitions}. */
    public void checkPartitionLimit(String name, int adding) {
        long total = (long) logs.size() + adding;
        if (total > maxPartitions) {
            throw new TopicException(
                    TopicException.Reason.PARTITION_LIMIT,
                    name,
                    "The broker has " + logs.size() + " partitions; " + adding + " more for " + name
                            + " would pass max.partitions=" + maxPartitions);
        }
    }

    /** Creates a topic with {@code partitions} partitions and the given configuration overrides. */
    public Topic createTopic(String name, int partitions, Map<String, String> overrides) {
        Topic.validateName(name);
        if (partitions < 1 || partitions > MAX_PARTITIONS_PER_TOPIC) {
            throw new TopicException(
                    TopicException.Reason.INVALID_PARTITIONS,
                    name,
                    "Topic " + name + " needs 1 to " + MAX_PARTITIONS_PER_TOPIC + " partitions, not " + partitions);
        }
        LogConfig config = defaults.with(overrides);
        synchronized (changes) {
            if (topics.containsKey(name)) {
                throw new TopicException(
                        TopicException.Reason.ALREADY_EXISTS, name, "Topic " + name + " already exists");
            }
            checkPartitionLimit(name, partitions);
            Topic topic = new Topic(name, UUID.randomUUID(), partitions, overrides, config);
            writeTopic(topic);
            register(topic);
            for (int p = 0; p < partitions; p++) {
                openPartition(topic, p);
            }
            log.atInfo()
                    .addKeyValue("topic", name)
                    .addKeyValue("topicId", topic.id())
                    .addKeyValue("partitions", partitions)
                    .addKeyValue("overrides", overrides)
                    .log("Created a topic");
            return topic;
        }
    }

    /**
     * Deletes a topic and all its data.
     *
     * @return the topic as it was
     */
    public Topic deleteTopic(String name) {
        synchronized (changes) {
            Topic topic = existing(name);
            try {
                Files.delete(topicFile(name));
                files.syncDirectory(dataDir.resolve(TOPICS_DIR));
            } catch (IOException e) {
                throw new LogStorageException("Cannot delete topic " + name, e);
            }
            topics.remove(name);
            topicsById.remove(topic.id());
            for (int p = 0; p < topic.partitions(); p++) {
                PartitionLog partition = logs.remove(partitionName(name, p));
                if (partition != null) {
                    partition.close();
                    partition.deleteDirectory();
                }
            }
            log.atInfo()
                    .addKeyValue("topic", name)
                    .addKeyValue("topicId", topic.id())
                    .addKeyValue("partitions", topic.partitions())
                    .log("Deleted a topic");
            return topic;
        }
    }

    /**
     * Deletes the topic with this id, and only it: a topic deleted and re-created under the same name meanwhile
     * has another id and is left alone.
     *
     * @return the topic as it was
     */
    public Topic deleteTopic(UUID id) {
        synchronized (changes) {
            Topic topic = topicsById.get(id);
            if (topic == null) {
                throw new TopicException(TopicException.Reason.UNKNOWN_TOPIC_ID, null, "No topic has the id " + id);
            }
            return deleteTopic(topic.name());
        }
    }

    /** Grows a topic to {@code total} partitions; Kafka never shrinks one. */
    public Topic addPartitions(String name, int total) {
        synchronized (changes) {
            Topic topic = checkAddPartitions(name, total);
            Topic grown = new Topic(name, topic.id(), total, topic.overrides(), topic.config());
            writeTopic(grown);
            register(grown);
            for (int p = topic.partitions(); p < total; p++) {
                openPartition(grown, p);
            }
            return grown;
        }
    }

    /**
     * The checks {@link #addPartitions} makes, changing nothing (CreatePartitions with {@code validateOnly}).
     *
     * @return the topic as it is
     */
    public Topic checkAddPartitions(String name, int total) {
        Topic topic = existing(name);
        if (total <= topic.partitions()) {
            throw new TopicException(
                    TopicException.Reason.INVALID_PARTITIONS,
                    name,
                    "Topic " + name + " has " + topic.partitions() + " partitions; the new count " + total
                            + " must be larger");
        }
        if (total > MAX_PARTITIONS_PER_TOPIC) {
            throw new TopicException(
                    TopicException.Reason.INVALID_PARTITIONS,
                    name,
                    "Topic " + name + " may have at most " + MAX_PARTITIONS_PER_TOPIC + " partitions, not " + total);
        }
        checkPartitionLimit(name, total - topic.partitions());
        return topic;
    }

    /**
     * Sets and removes configuration overrides ({@code IncrementalAlterConfigs}); removed keys fall back to
     * the broker's defaults. Applies to the open partitions at once.
     */
    public Topic alterConfig(String name, Map<String, String> set, Collection<String> remove) {
        synchronized (changes) {
            Topic topic = existing(name);
            Map<String, String> overrides = new TreeMap<>(topic.overrides());
            remove.forEach(overrides::remove);
            overrides.putAll(set);
            LogConfig config = defaults.with(overrides);
            Topic altered = new Topic(name, topic.id(), topic.partitions(), overrides, config);
            writeTopic(altered);
            register(altered);
            for (int p = 0; p < altered.partitions(); p++) {
                logs.get(partitionName(name, p)).updateConfig(config);
            }
            return altered;
        }
    }

    public Optional<Topic> topic(String name) {
        return Optional.ofNullable(topics.get(name));
    }

    public Optional<Topic> topic(UUID id) {
        return Optional.ofNullable(topicsById.get(id));
    }

    public Collection<Topic> topics() {
        return List.copyOf(topics.values());
    }

    /** The log of one partition, or empty when the topic or partition does not exist. */
    public Optional<PartitionLog> partition(String topic, int partition) {
        return Optional.ofNullable(logs.get(partitionName(topic, partition)));
    }

    /** Every open partition log. */
    public Collection<PartitionLog> partitions() {
        return List.copyOf(logs.values());
    }

    /** Housekeeping for every partition: retention, flush.ms, delayed file deletes, producer expiry. */
    public void tick() {
        for (PartitionLog partition : logs.values()) {
            try {
                partition.deleteRetainedSegments();
                partition.tick();
            } catch (RuntimeException e) {
                log.atError()
                        .setCause(e)
                        .addKeyValue("topic", partition.topic())
                        .addKeyValue("partition", partition.partition())
                        .log("Housekeeping of a partition failed");
            }
        }
    }

    /** Closes every partition; one that fails does not keep the others open, and the first failure is thrown. */
    @Override
    public void close() {
        synchronized (changes) {
            RuntimeException failure = null;
            for (PartitionLog partition : logs.values()) {
                try {
                    partition.close();
                } catch (RuntimeException e) {
                    if (failure == null) {
                        failure = e;
                    } else {
                        failure.addSuppressed(e);
                    }
                }
            }
            logs.clear();
            if (failure != null) {
                throw failure;
            }
        }
    }

    private Topic existing(String name) {
        Topic topic = topics.get(name);
        if (topic == null) {
            throw new TopicException(
                    TopicException.Reason.UNKNOWN_TOPIC_OR_PARTITION, name, "Topic " + name + " does not exist");
        }
        return topic;
    }

    private void register(Topic topic) {
        topics.put(topic.name(), topic);
        topicsById.put(topic.id(), topic);
    }

    private void openPartition(Topic topic, int p) {
        String name = partitionName(topic.name(), p);
        logs.put(name, PartitionLog.open(name, dataDir.resolve(name), topic.config(), clock, files, rounds));
    }

    static String partitionName(String topic, int partition) {
        return topic + "-" + partition;
    }

    private Path topicFile(String name) {
        return dataDir.resolve(TOPICS_DIR).resolve(name + SUFFIX);
    }

    private void writeTopic(Topic topic) {
        Properties props = new Properties();
        props.setProperty("topic.id", topic.id().toString());
        props.setProperty("partitions", Integer.toString(topic.partitions()));
        topic.overrides().forEach((k, v) -> props.setProperty("config." + k, v));
        StringWriter text = new StringWriter();
        try {
            props.store(text, "topic " + topic.name());
            Path target = topicFile(topic.name());
            Path tmp = target.resolveSibling(target.getFileName() + ".tmp");
            try (FileChannel ch = files.open(
                    tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
                ByteBuffer buf = ByteBuffer.wrap(text.toString().getBytes(StandardCharsets.ISO_8859_1));
                while (buf.hasRemaining()) {
                    ch.write(buf);
                }
                ch.force(true);
            }
            Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE);
            files.syncDirectory(target.getParent());
        } catch (IOException e) {
            throw new LogStorageException("Cannot write metadata of topic " + topic.name(), e);
        }
    }

    private Topic readTopic(Path file) throws IOException {
        String name = file.getFileName().toString();
        name = name.substring(0, name.length() - SUFFIX.length());
        Properties props = new Properties();
        try (Reader reader = Files.newBufferedReader(file, StandardCharsets.ISO_8859_1)) {
            props.load(reader);
        }
        Map<String, String> overrides = new HashMap<>();
        for (String key : props.stringPropertyNames()) {
            if (key.startsWith("config.")) {
                overrides.put(key.substring("config.".length()), props.getProperty(key));
            }
        }
        return new Topic(
                name,
                UUID.fromString(props.getProperty("topic.id")),
                Integer.parseInt(props.getProperty("partitions")),
                overrides,
                defaults.with(overrides));
    }

    private static List<Path> list(Path dir) throws IOException {
        List<Path> out = new ArrayList<>();
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(dir)) {
            stream.forEach(out::add);
        }
        return out;
    }

    private static void deleteRecursively(Path dir) throws IOException {
        try (var paths = Files.walk(dir)) {
            for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
