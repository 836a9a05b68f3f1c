package io.orderflow.compatibility;

import static io.orderflow.compatibility.KafkaCli.Tool.CONSUMER_GROUPS;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code kafka-consumer-groups.sh} (kafka-tools 4.4.0) against groups that stock kafka-clients consumers formed
 * on our broker: lag as the tool computes it, and the two offset resets operators replay with.
 */
class KafkaConsumerGroupsCliTest {
    private static final int PARTITIONS = 3;
    private static final DateTimeFormatter ISO_MILLIS =
            DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSX").withZone(ZoneOffset.UTC);

    @TempDir
    static Path workDir;

    private static BrokerProcess broker;

    @BeforeAll
    static void startBroker() {
        broker = BrokerProcess.start(workDir);
    }

    @AfterAll
    static void stopBroker() {
        if (broker != null) {
            broker.close();
        }
    }

    private static KafkaCli.Run consumerGroups(String... args) {
        KafkaCli.Run run = KafkaCli.runAgainst(broker.bootstrapServers(), CONSUMER_GROUPS, args)
                .succeeded();
        // The tool exits 0 even when its command failed (e.g. an API the broker does not support), so the
        // exit code alone proves nothing.
        assertThat(run.stdout() + run.stderr())
                .as(run::transcript)
                .doesNotContain("Executing consumer group command failed");
        return run;
    }

    /** {@code perPartition} records in every partition of {@code topic}, values {@code prefix-P-I}. */
    private static List<ProducerRecord<String, String>> records(
            String topic, String prefix, int perPartition, Long timestamp) {
        List<ProducerRecord<String, String>> records = new ArrayList<>();
        for (int p = 0; p < PARTITIONS; p++) {
            for (int i = 0; i < perPartition; i++) {
                records.add(new ProducerRecord<>(topic, p, timestamp, "key-" + i, prefix + "-" + p + "-" + i));
            }
        }
        return records;
    }

    /** Joins {@code group}, reads {@code count} records, commits the given offsets, leaves. */
    private static void consumeAndCommit(String group, String topic, int count, Map<Integer, Long> commit) {
        try (KafkaConsumer<String, String> consumer = KafkaClients.groupConsumer(broker.bootstrapServers(), group)) {
            consumer.subscribe(List.of(topic));
            KafkaClients.pollAtLeast(consumer, count);
            Map<TopicPartition, OffsetAndMetadata> offsets =
                    new TreeMap<>((a, b) -> Integer.compare(a.partition(), b.partition()));
            commit.forEach((p, offset) -> offsets.put(new TopicPartition(topic, p), new OffsetAndMetadata(offset)));
            consumer.commitSync(offsets);
        }
    }

    /** Joins {@code group} and returns the first {@code count} records it reads from its committed offsets. */
    private static List<ConsumerRecord<String, String>> resume(String group, String topic, int count) {
        try (KafkaConsumer<String, String> consumer = KafkaClients.groupConsumer(broker.bootstrapServers(), group)) {
            consumer.subscribe(List.of(topic));
            return KafkaClients.pollAtLeast(consumer, count);
        }
    }

    /** A row of the {@code --describe} or {@code --reset-offsets} table, split on whitespace. */
    private record Row(String group, String topic, int partition, List<String> rest) {}

    private static Map<Integer, Row> rows(KafkaCli.Run run, String group, String topic) {
        Map<Integer, Row> rows = new TreeMap<>();
        for (String line : run.stdoutLines()) {
            String[] cells = line.trim().split("\\s+");
            if (cells.length >= 4 && cells[0].equals(group) && cells[1].equals(topic)) {
                int partition = Integer.parseInt(cells[2]);
                rows.put(
                        partition,
                        new Row(group, topic, partition, List.of(cells).subList(3, cells.length)));
            }
        }
        return rows;
    }

    @Test
    void describeShowsCurrentOffsetLogEndOffsetAndLagPerPartition() {
        String topic = "lag-topic";
        String group = "lag-group";
        KafkaClients.createTopic(broker.bootstrapServers(), topic, PARTITIONS);
        KafkaClients.produce(broker.bootstrapServers(), records(topic, "v", 10, null));
        consumeAndCommit(group, topic, 30, Map.of(0, 4L, 1, 7L, 2, 10L));

        assertThat(consumerGroups("--list").stdoutLines()).contains(group);
        KafkaCli.Run described = consumerGroups("--describe", "--group", group);

        // CURRENT-OFFSET, LOG-END-OFFSET, LAG, then CONSUMER-ID, HOST, CLIENT-ID ("-": nobody is in the group).
        assertThat(rows(described, group, topic))
                .as(described::transcript)
                .isEqualTo(Map.of(
                        0, new Row(group, topic, 0, List.of("4", "10", "6", "-", "-", "-")),
                        1, new Row(group, topic, 1, List.of("7", "10", "3", "-", "-", "-")),
                        2, new Row(group, topic, 2, List.of("10", "10", "0", "-", "-", "-"))));
        // The tool prints this notice on stderr.
        assertThat(described.stderr()).contains("Consumer group '" + group + "' has no active members.");
    }

    @Test
    void resetToEarliestMakesTheGroupReplayEverything() {
        String topic = "replay-topic";
        String group = "replay-group";
        KafkaClients.createTopic(broker.bootstrapServers(), topic, PARTITIONS);
        List<ProducerRecord<String, String>> produced = records(topic, "v", 10, null);
        KafkaClients.produce(broker.bootstrapServers(), produced);
        consumeAndCommit(group, topic, 30, Map.of(0, 10L, 1, 10L, 2, 10L));

        KafkaCli.Run reset =
                consumerGroups("--reset-offsets", "--to-earliest", "--execute", "--group", group, "--topic", topic);

        assertThat(rows(reset, group, topic))
                .as(reset::transcript)
                .isEqualTo(Map.of(
                        0, new Row(group, topic, 0, List.of("0")),
                        1, new Row(group, topic, 1, List.of("0")),
                        2, new Row(group, topic, 2, List.of("0"))));
        List<ConsumerRecord<String, String>> replayed = resume(group, topic, produced.size());
        assertThat(replayed)
                .extracting(ConsumerRecord::value)
                .containsExactlyInAnyOrderElementsOf(
                        produced.stream().map(ProducerRecord::value).toList());
    }

    @Test
    void resetToDatetimeMakesTheGroupResumeFromTheFirstRecordAtOrAfterIt() {
        String topic = "datetime-topic";
        String group = "datetime-group";
        KafkaClients.createTopic(broker.bootstrapServers(), topic, PARTITIONS);
        // Two batches an hour apart by their record timestamps (CreateTime), so no test has to wait.
        Instant firstBatch = Instant.now().truncatedTo(ChronoUnit.SECONDS).minus(2, ChronoUnit.HOURS);
        Instant secondBatch = firstBatch.plus(1, ChronoUnit.HOURS);
        KafkaClients.produce(broker.bootstrapServers(), records(topic, "first", 5, firstBatch.toEpochMilli()));
        List<ProducerRecord<String, String>> second = records(topic, "second", 4, secondBatch.toEpochMilli());
        KafkaClients.produce(broker.bootstrapServers(), second);
        consumeAndCommit(group, topic, 27, Map.of(0, 9L, 1, 9L, 2, 9L));

        String between = ISO_MILLIS.format(firstBatch.plus(30, ChronoUnit.MINUTES));
        KafkaCli.Run reset = consumerGroups(
                "--reset-offsets", "--to-datetime", between, "--execute", "--group", group, "--topic", topic);

        assertThat(rows(reset, group, topic))
                .as(reset::transcript)
                .isEqualTo(Map.of(
                        0, new Row(group, topic, 0, List.of("5")),
                        1, new Row(group, topic, 1, List.of("5")),
                        2, new Row(group, topic, 2, List.of("5"))));
        List<ConsumerRecord<String, String>> resumed = resume(group, topic, second.size());
        assertThat(resumed)
                .extracting(ConsumerRecord::value)
                .containsExactlyInAnyOrderElementsOf(
                        second.stream().map(ProducerRecord::value).toList());
        assertThat(resumed).allSatisfy(record -> assertThat(record.offset()).isGreaterThanOrEqualTo(5));
    }
}
