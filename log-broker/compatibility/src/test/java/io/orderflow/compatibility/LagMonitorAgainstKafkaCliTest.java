package io.orderflow.compatibility;

import static io.orderflow.compatibility.KafkaCli.Tool.CONSOLE_CONSUMER;
import static io.orderflow.compatibility.KafkaCli.Tool.CONSUMER_GROUPS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.orderflow.kafka.KafkaClientSettings;
import io.orderflow.lag.ClusterReader;
import io.orderflow.lag.ClusterView;
import io.orderflow.lag.LagMonitor;
import io.orderflow.lag.LagSnapshot;
import io.orderflow.lag.RecordTimestamps;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The lag monitor against the tools operators already trust, on our broker and on Apache Kafka 4.4.0: with nothing
 * produced or committed in between, its committed offset, log end offset and lag per partition equal what
 * {@code kafka-consumer-groups --describe} prints, and its lag in seconds equals the reading's time minus the
 * timestamp {@code kafka-console-consumer} prints for the first unconsumed record.
 */
class LagMonitorAgainstKafkaCliTest {

    private static final String TOPIC = "shipments";
    private static final String GROUP = "warehouse";
    private static final int PARTITIONS = 3;
    private static final Instant PRODUCED = Instant.parse("2026-12-01T08:00:00Z");

    @TempDir
    Path workDir;

    @Test
    void agreesWithTheCliOnOurBroker() throws Exception {
        try (BrokerProcess broker = BrokerProcess.start(workDir)) {
            agreesWithTheCli(broker.bootstrapServers());
        }
    }

    @Test
    void agreesWithTheCliOnApacheKafka() throws Exception {
        try (ApacheKafkaProcess kafka = ApacheKafkaProcess.start(workDir)) {
            agreesWithTheCli(kafka.bootstrapServers());
        }
    }

    /** A row of {@code --describe}: partition -> [CURRENT-OFFSET, LOG-END-OFFSET, LAG]. */
    private static Map<Integer, List<String>> describe(String bootstrap) {
        KafkaCli.Run run = KafkaCli.runAgainst(bootstrap, CONSUMER_GROUPS, "--describe", "--group", GROUP)
                .succeeded();
        Map<Integer, List<String>> rows = new TreeMap<>();
        for (String line : run.stdoutLines()) {
            String[] cells = line.trim().split("\\s+");
            if (cells.length >= 6 && cells[0].equals(GROUP) && cells[1].equals(TOPIC)) {
                rows.put(Integer.parseInt(cells[2]), List.of(cells[3], cells[4], cells[5]));
            }
        }
        assertThat(rows).as(run::transcript).hasSize(PARTITIONS);
        return rows;
    }

    /** The timestamp {@code kafka-console-consumer} prints for the record at {@code offset} of {@code partition}. */
    private static long timestampAt(String bootstrap, int partition, long offset) {
        KafkaCli.Run run = KafkaCli.run(
                        CONSOLE_CONSUMER,
                        "",
                        Duration.ofSeconds(60),
                        "--bootstrap-server",
                        bootstrap,
                        "--topic",
                        TOPIC,
                        "--partition",
                        Integer.toString(partition),
                        "--offset",
                        Long.toString(offset),
                        "--max-messages",
                        "1",
                        "--property",
                        "print.timestamp=true")
                .succeeded();
        String line = run.stdoutLines().stream()
                .filter(l -> l.startsWith("CreateTime:"))
                .findFirst()
                .orElseThrow(() -> new AssertionError(run.transcript()));
        return Long.parseLong(line.substring("CreateTime:".length(), line.indexOf('\t')));
    }

    private void agreesWithTheCli(String bootstrap) throws Exception {
        KafkaClients.createTopic(bootstrap, TOPIC, PARTITIONS);
        List<ProducerRecord<String, String>> records = new ArrayList<>();
        for (int p = 0; p < PARTITIONS; p++) {
            for (int i = 0; i < 20 + 10 * p; i++) {
                long timestamp = PRODUCED.plusSeconds(60L * p + i).toEpochMilli();
                records.add(new ProducerRecord<>(TOPIC, p, timestamp, "key-" + i, "value-" + p + "-" + i));
            }
        }
        KafkaClients.produce(bootstrap, records);
        Map<Integer, Long> commit = Map.of(0, 5L, 1, 30L, 2, 12L);
        try (KafkaConsumer<String, String> consumer = KafkaClients.groupConsumer(bootstrap, GROUP)) {
            Map<TopicPartition, OffsetAndMetadata> offsets = new java.util.HashMap<>();
            commit.forEach((p, offset) -> offsets.put(new TopicPartition(TOPIC, p), new OffsetAndMetadata(offset)));
            consumer.commitSync(offsets);
        }

        Instant readAt = Instant.now();
        LagSnapshot snapshot;
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap));
                RecordTimestamps timestamps =
                        new RecordTimestamps(KafkaClientSettings.plaintext(bootstrap), Duration.ofSeconds(30))) {
            ClusterView view =
                    new ClusterReader(admin, Clock.fixed(readAt, ZoneOffset.UTC), Duration.ofSeconds(30)).read();
            snapshot = new LagMonitor(Duration.ofSeconds(60))
                    .update(view, timestamps.at(LagMonitor.wantedTimestamps(view)));
        }
        Map<Integer, List<String>> described = describe(bootstrap);

        LagSnapshot.GroupLag group = snapshot.groups().stream()
                .filter(g -> g.group().equals(GROUP))
                .findFirst()
                .orElseThrow();
        assertThat(group.partitions()).hasSize(PARTITIONS);
        for (LagSnapshot.PartitionLag partition : group.partitions()) {
            List<String> row = described.get(partition.partition());
            assertThat(List.of(
                            Long.toString(partition.committed()),
                            Long.toString(partition.endOffset()),
                            Long.toString(partition.lag())))
                    .as("partition %d: monitor against --describe", partition.partition())
                    .isEqualTo(row);
            if (partition.lag() > 0) {
                long timestamp = timestampAt(bootstrap, partition.partition(), partition.committed());
                assertThat(partition.lagSeconds())
                        .as("partition %d: seconds against the console consumer's timestamp", partition.partition())
                        .isCloseTo((readAt.toEpochMilli() - timestamp) / 1000.0, within(0.001));
            } else {
                assertThat(partition.lagSeconds()).isZero();
            }
        }
    }
}
