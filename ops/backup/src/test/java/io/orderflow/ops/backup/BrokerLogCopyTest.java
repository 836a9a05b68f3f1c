package io.orderflow.ops.backup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.orderflow.testing.InProcessBroker;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BrokerLogCopyTest {
    private static final String TOPIC = "copied";
    private static final String GROUP = "reader";
    private static final int PARTITIONS = 3;

    @TempDir
    Path directory;

    /**
     * Copied while an idempotent producer keeps writing (small segments, so segments roll during the copy) and a group
     * commits what it read: a broker started on the copy has, per partition, a prefix of the original log holding
     * every record acknowledged before the copy began, and the group's committed offsets within it.
     */
    @Test
    void aCopyTakenUnderWritesIsAPrefixOfEveryPartitionWithEverythingAcknowledgedBeforeIt() throws Exception {
        Map<String, String> smallSegments = Map.of("log.segment.bytes", "4096", "auto.create.topics.enable", "false");
        Path originalLog = directory.resolve("original");
        Map<TopicPartition, List<String>> acknowledgedBeforeCopy = new HashMap<>();
        try (InProcessBroker original = InProcessBroker.start(originalLog, smallSegments)) {
            try (Admin admin =
                    Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, original.bootstrapServers()))) {
                admin.createTopics(List.of(new NewTopic(TOPIC, PARTITIONS, (short) 1)))
                        .all()
                        .get();
            }
            Map<TopicPartition, ConcurrentLinkedQueue<String>> acknowledged = new ConcurrentHashMap<>();
            AtomicBoolean writing = new AtomicBoolean(true);
            Thread writer = Thread.ofPlatform().start(() -> write(original.bootstrapServers(), writing, acknowledged));
            try {
                awaitAcknowledged(acknowledged, 2_000);
                commitWhatIsRead(original.bootstrapServers());
                acknowledged.forEach((partition, values) -> acknowledgedBeforeCopy.put(partition, List.copyOf(values)));

                BrokerLogCopy.Copied copied = BrokerLogCopy.copy(originalLog, directory.resolve("copy"));

                assertThat(copied.partitions()).isGreaterThanOrEqualTo(PARTITIONS + 1); // and __consumer_offsets'
                awaitAcknowledged(acknowledged, 4_000); // writing went on after the copy
            } finally {
                writing.set(false);
                writer.join();
            }
        }
        try (var files = Files.walk(directory.resolve("copy"))) {
            assertThat(files.map(file -> file.getFileName().toString()))
                    .as("no indexes, no clean-shutdown marker, no lock: the broker recovers the copy")
                    .noneMatch(
                            name -> name.endsWith(".index") || name.equals("clean-shutdown") || name.equals(".lock"));
        }

        Map<TopicPartition, List<String>> originalRecords;
        try (InProcessBroker original = InProcessBroker.start(originalLog, smallSegments)) {
            originalRecords = readAll(original.bootstrapServers());
        }
        try (InProcessBroker restored = InProcessBroker.start(directory.resolve("copy"), smallSegments)) {
            Map<TopicPartition, List<String>> copiedRecords = readAll(restored.bootstrapServers());
            for (TopicPartition partition : originalRecords.keySet()) {
                List<String> copy = copiedRecords.get(partition);
                assertThat(originalRecords.get(partition))
                        .as("the copy of %s is a prefix", partition)
                        .startsWith(copy.toArray(String[]::new));
                assertThat(copy)
                        .as("%s holds everything acknowledged before the copy", partition)
                        .containsSubsequence(acknowledgedBeforeCopy.getOrDefault(partition, List.of()));
                assertThat(copy.size())
                        .isLessThan(originalRecords.get(partition).size());
            }
            try (Admin admin =
                    Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, restored.bootstrapServers()))) {
                Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(GROUP)
                        .partitionsToOffsetAndMetadata()
                        .get();
                assertThat(committed).isNotEmpty();
                committed.forEach((partition, offset) -> assertThat(offset.offset())
                        .as("committed offset of %s within the copied log", partition)
                        .isBetween(1L, (long) copiedRecords.get(partition).size()));
            }
        }
    }

    private static void write(
            String bootstrap, AtomicBoolean writing, Map<TopicPartition, ConcurrentLinkedQueue<String>> acknowledged) {
        Properties settings = new Properties();
        settings.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        settings.put(ProducerConfig.ACKS_CONFIG, "all");
        settings.put(ProducerConfig.LINGER_MS_CONFIG, "1");
        try (KafkaProducer<String, String> producer =
                new KafkaProducer<>(settings, new StringSerializer(), new StringSerializer())) {
            for (int i = 0; writing.get(); i++) {
                String value = "record-" + i + "-" + "x".repeat(100);
                producer.send(new ProducerRecord<>(TOPIC, "key-" + (i % 17), value), (metadata, error) -> {
                    if (error == null) {
                        acknowledged
                                .computeIfAbsent(
                                        new TopicPartition(TOPIC, metadata.partition()),
                                        p -> new ConcurrentLinkedQueue<>())
                                .add(value);
                    }
                });
                if (i % 200 == 199) {
                    producer.flush();
                }
            }
        }
    }

    private static void awaitAcknowledged(Map<TopicPartition, ConcurrentLinkedQueue<String>> acknowledged, int more) {
        int from = total(acknowledged);
        await().atMost(Duration.ofSeconds(60)).until(() -> total(acknowledged) >= from + more);
    }

    private static int total(Map<TopicPartition, ConcurrentLinkedQueue<String>> acknowledged) {
        return acknowledged.values().stream()
                .mapToInt(ConcurrentLinkedQueue::size)
                .sum();
    }

    /** A group reads what is there now and commits it. */
    private static void commitWhatIsRead(String bootstrap) {
        try (KafkaConsumer<String, String> consumer = consumer(bootstrap, GROUP)) {
            consumer.subscribe(List.of(TOPIC));
            int read = 0;
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (read < 500 && System.nanoTime() < deadline) {
                read += consumer.poll(Duration.ofMillis(200)).count();
            }
            consumer.commitSync();
            assertThat(read).isGreaterThanOrEqualTo(500);
        }
    }

    private static Map<TopicPartition, List<String>> readAll(String bootstrap) {
        Map<TopicPartition, List<String>> records = new HashMap<>();
        try (KafkaConsumer<String, String> consumer = consumer(bootstrap, null)) {
            List<TopicPartition> partitions = new ArrayList<>();
            for (int p = 0; p < PARTITIONS; p++) {
                partitions.add(new TopicPartition(TOPIC, p));
                records.put(new TopicPartition(TOPIC, p), new ArrayList<>());
            }
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
            while (partitions.stream().anyMatch(p -> consumer.position(p) < end.get(p))) {
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
                    records.get(new TopicPartition(record.topic(), record.partition()))
                            .add(record.value());
                }
            }
        }
        return records;
    }

    private static KafkaConsumer<String, String> consumer(String bootstrap, String group) {
        Properties settings = new Properties();
        settings.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        settings.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        settings.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        if (group != null) {
            settings.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        }
        return new KafkaConsumer<>(settings, new StringDeserializer(), new StringDeserializer());
    }
}
