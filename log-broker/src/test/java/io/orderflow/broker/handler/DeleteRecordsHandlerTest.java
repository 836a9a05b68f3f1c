package io.orderflow.broker.handler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.orderflow.broker.server.TestBroker;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.OffsetOutOfRangeException;
import org.apache.kafka.common.errors.PolicyViolationException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** DeleteRecords through the stock admin client, over TCP, seen by a consumer. */
class DeleteRecordsHandlerTest {
    private static final TopicPartition EVENTS = new TopicPartition("events", 0);

    @TempDir
    Path dataDir;

    private TestBroker broker;
    private Admin admin;

    @BeforeEach
    void start() throws Exception {
        broker = TestBroker.start(dataDir);
        admin = broker.admin();
        broker.createTopic("events", 1, Map.of("segment.bytes", "1024"));
        try (KafkaProducer<String, String> producer = broker.producer()) {
            for (int i = 0; i < 30; i++) {
                producer.send(new ProducerRecord<>("events", "k" + i, "value-" + i))
                        .get(30, TimeUnit.SECONDS);
            }
        }
    }

    @AfterEach
    void stop() {
        admin.close();
        broker.close();
    }

    @Test
    void movesTheLogStartOffsetThatConsumersSee() throws Exception {
        int segmentsBefore = segmentCount();
        assertThat(segmentsBefore)
                .as("1 KiB segments hold about a dozen records")
                .isGreaterThan(2);

        assertThat(lowWatermark(RecordsToDelete.beforeOffset(25))).isEqualTo(25);

        try (KafkaConsumer<String, String> consumer = broker.consumer()) {
            assertThat(consumer.beginningOffsets(Set.of(EVENTS))).containsEntry(EVENTS, 25L);
            consumer.assign(List.of(EVENTS));
            consumer.seekToBeginning(List.of(EVENTS));
            ConsumerRecords<String, String> records = ConsumerRecords.empty();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (records.isEmpty() && System.nanoTime() < deadline) {
                records = consumer.poll(Duration.ofMillis(200));
            }
            assertThat(records.iterator().next().offset()).isEqualTo(25);
        }
        assertThat(segmentCount())
                .as("segments wholly below the new start are removed")
                .isLessThan(segmentsBefore);
    }

    @Test
    void minusOneMeansTheHighWatermark() throws Exception {
        assertThat(lowWatermark(RecordsToDelete.beforeOffset(-1))).isEqualTo(30);
        try (KafkaConsumer<String, String> consumer = broker.consumer()) {
            assertThat(consumer.beginningOffsets(Set.of(EVENTS))).containsEntry(EVENTS, 30L);
        }
    }

    @Test
    void neverMovesBackwards() throws Exception {
        lowWatermark(RecordsToDelete.beforeOffset(20));
        assertThat(lowWatermark(RecordsToDelete.beforeOffset(5))).isEqualTo(20);
    }

    @Test
    void rejectsAnOffsetBeyondTheHighWatermark() throws Exception {
        assertThatThrownBy(() -> lowWatermark(RecordsToDelete.beforeOffset(31)))
                .isInstanceOf(ExecutionException.class)
                .hasCauseInstanceOf(OffsetOutOfRangeException.class);
        try (KafkaConsumer<String, String> consumer = broker.consumer()) {
            assertThat(consumer.beginningOffsets(Set.of(EVENTS))).containsEntry(EVENTS, 0L);
        }
    }

    @Test
    void aCompactOnlyTopicRefusesWithPolicyViolation() throws Exception {
        broker.createTopic("latest", 1, Map.of("cleanup.policy", "compact"));
        TopicPartition latest = new TopicPartition("latest", 0);

        assertThatThrownBy(() -> admin.deleteRecords(Map.of(latest, RecordsToDelete.beforeOffset(0)))
                        .all()
                        .get(30, TimeUnit.SECONDS))
                .hasCauseInstanceOf(PolicyViolationException.class);
    }

    private long lowWatermark(RecordsToDelete before) throws Exception {
        return admin.deleteRecords(Map.of(EVENTS, before))
                .lowWatermarks()
                .get(EVENTS)
                .get(30, TimeUnit.SECONDS)
                .lowWatermark();
    }

    private int segmentCount() {
        return broker.broker().logs().partition("events", 0).orElseThrow().segmentCount();
    }
}
