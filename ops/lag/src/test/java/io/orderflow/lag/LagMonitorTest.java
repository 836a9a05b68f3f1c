package io.orderflow.lag;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;

import io.orderflow.kafka.KafkaClientSettings;
import io.orderflow.testing.InProcessBroker;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The monitor against our broker over TCP: records produced with known timestamps, groups that commit known offsets,
 * readings taken at clock instants the test sets (the clock only stamps readings; everything else is the broker's).
 */
class LagMonitorTest {

    private static final String TOPIC = "events";
    private static final Duration WINDOW = Duration.ofSeconds(10);
    private static final Instant T0 = Instant.parse("2026-12-02T10:00:00Z");

    private InProcessBroker broker;
    private Admin admin;
    private KafkaProducer<String, String> producer;
    private RecordTimestamps timestamps;

    @BeforeEach
    void setUp(@TempDir Path dir) throws Exception {
        broker = InProcessBroker.start(dir);
        admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()));
        admin.createTopics(List.of(new NewTopic(TOPIC, 2, (short) 1))).all().get(30, TimeUnit.SECONDS);
        producer = new KafkaProducer<>(
                Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()),
                new StringSerializer(),
                new StringSerializer());
        timestamps =
                new RecordTimestamps(KafkaClientSettings.plaintext(broker.bootstrapServers()), Duration.ofSeconds(10));
    }

    @AfterEach
    void tearDown() {
        timestamps.close();
        producer.close();
        admin.close();
        broker.close();
    }

    /** {@code count} records on {@code partition}, record i stamped {@code first + i} seconds. */
    private void produce(int partition, int count, Instant first) throws Exception {
        for (int i = 0; i < count; i++) {
            producer.send(new ProducerRecord<>(
                    TOPIC, partition, first.plusSeconds(i).toEpochMilli(), "key-" + i, "value-" + i));
        }
        producer.flush();
    }

    private KafkaConsumer<String, String> consumer(String group) {
        return new KafkaConsumer<>(
                Map.of(
                        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                        broker.bootstrapServers(),
                        ConsumerConfig.GROUP_ID_CONFIG,
                        group,
                        ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
                        "false",
                        ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
                        "earliest"),
                new StringDeserializer(),
                new StringDeserializer());
    }

    private static void commit(KafkaConsumer<?, ?> consumer, int partition, long offset) {
        consumer.commitSync(Map.of(new TopicPartition(TOPIC, partition), new OffsetAndMetadata(offset)));
    }

    private LagSnapshot reading(LagMonitor monitor, Instant at) throws Exception {
        ClusterView view = new ClusterReader(admin, Clock.fixed(at, ZoneOffset.UTC), Duration.ofSeconds(10)).read();
        return monitor.update(view, timestamps.at(LagMonitor.wantedTimestamps(view)));
    }

    private static LagSnapshot.GroupLag group(LagSnapshot snapshot, String group) {
        return snapshot.groups().stream()
                .filter(g -> g.group().equals(group))
                .findFirst()
                .orElseThrow();
    }

    @Test
    void lagInRecordsIsEndMinusCommittedAndInSecondsTheAgeOfTheFirstUnconsumedRecord() throws Exception {
        produce(0, 100, T0);
        produce(1, 10, T0);
        try (KafkaConsumer<String, String> idle = consumer("idle")) {
            commit(idle, 0, 40);
            commit(idle, 1, 10);
        }

        LagSnapshot snapshot = reading(new LagMonitor(WINDOW), T0.plusSeconds(200));

        LagSnapshot.GroupLag idle = group(snapshot, "idle");
        assertThat(idle.partitions()).hasSize(2);
        LagSnapshot.PartitionLag behind = idle.partitions().get(0);
        assertThat(behind.committed()).isEqualTo(40);
        assertThat(behind.endOffset()).isEqualTo(100);
        assertThat(behind.lag()).isEqualTo(60);
        // Record 40 was stamped T0 + 40 s; the reading is at T0 + 200 s.
        assertThat(behind.lagSeconds()).isCloseTo(160.0, within(0.001));
        LagSnapshot.PartitionLag caughtUp = idle.partitions().get(1);
        assertThat(caughtUp.lag()).isZero();
        assertThat(caughtUp.lagSeconds()).isZero();
        assertThat(idle.lag()).isEqualTo(60);
        assertThat(idle.lagSeconds()).isCloseTo(160.0, within(0.001));
        assertThat(idle.members()).isEmpty();
        assertThat(idle.status()).as("lag and nobody to commit").isEqualTo(LagStatus.STOP);
        assertThat(snapshot.topics())
                .anySatisfy(topic -> assertThat(topic.topic()).isEqualTo(TOPIC));
    }

    @Test
    void aWorkingGroupWhoseLagGrowsIsWarnAndOkOnceItCatchesUp() throws Exception {
        LagMonitor monitor = new LagMonitor(WINDOW);
        try (KafkaConsumer<String, String> member = consumer("working")) {
            member.subscribe(List.of(TOPIC));
            produce(0, 10, T0);
            while (member.assignment().isEmpty()) {
                member.poll(Duration.ofMillis(100));
            }
            commit(member, 0, 5);
            LagSnapshot first = reading(monitor, T0.plusSeconds(20));
            produce(0, 20, T0.plusSeconds(20));
            commit(member, 0, 8);
            LagSnapshot second = reading(monitor, T0.plusSeconds(22));
            produce(0, 20, T0.plusSeconds(22));
            commit(member, 0, 10);
            LagSnapshot third = reading(monitor, T0.plusSeconds(24));

            assertThat(group(first, "working").partitions().getFirst().lag()).isEqualTo(5);
            assertThat(group(second, "working").partitions().getFirst().lag()).isEqualTo(22);
            LagSnapshot.GroupLag growing = group(third, "working");
            assertThat(growing.lag()).isEqualTo(40);
            assertThat(growing.members()).hasSize(1);
            assertThat(growing.partitions().getFirst().growthPerSecond()).isPositive();
            assertThat(growing.status()).isEqualTo(LagStatus.WARN);

            commit(member, 0, 50);
            LagSnapshot caughtUp = reading(monitor, T0.plusSeconds(26));
            assertThat(group(caughtUp, "working").lag()).isZero();
            assertThat(group(caughtUp, "working").status()).isEqualTo(LagStatus.OK);
        }
    }

    @Test
    void aMemberThatReadsAndNeverCommitsShowsLagFromTheLogStartAndStallsAfterAWindow() throws Exception {
        LagMonitor monitor = new LagMonitor(WINDOW);
        produce(0, 10, T0);
        try (KafkaConsumer<String, String> member = consumer("reads-never-commits")) {
            member.subscribe(List.of(TOPIC));
            int[] read = {0};
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                read[0] += member.poll(Duration.ofMillis(100)).count();
                return read[0] == 10;
            });

            LagSnapshot first = reading(monitor, T0.plusSeconds(30));
            LagSnapshot second = reading(monitor, T0.plusSeconds(30).plus(WINDOW));

            LagSnapshot.GroupLag before = group(first, "reads-never-commits");
            assertThat(before.partitions()).hasSize(2);
            LagSnapshot.PartitionLag held = before.partitions().get(0);
            assertThat(held.committed()).isEqualTo(LagMonitor.NOT_COMMITTED);
            assertThat(held.lag()).as("every record since the log start").isEqualTo(10);
            // Record 0 was stamped T0; the reading is at T0 + 30 s.
            assertThat(held.lagSeconds()).isCloseTo(30.0, within(0.001));
            assertThat(before.partitions().get(1).lag())
                    .as("an empty partition")
                    .isZero();
            assertThat(before.status()).as("not yet a whole window").isEqualTo(LagStatus.OK);

            LagSnapshot.GroupLag after = group(second, "reads-never-commits");
            assertThat(after.lag()).isEqualTo(10);
            assertThat(after.members()).hasSize(1);
            assertThat(after.status()).isEqualTo(LagStatus.STALL);

            commit(member, 0, 5);
            LagSnapshot committed = reading(monitor, T0.plusSeconds(32).plus(WINDOW));
            LagSnapshot.PartitionLag moving =
                    group(committed, "reads-never-commits").partitions().get(0);
            assertThat(moving.committed()).isEqualTo(5);
            assertThat(moving.lag()).isEqualTo(5);
            assertThat(moving.status()).as("a first commit is no rewind").isEqualTo(LagStatus.OK);
        }
    }
}
