package io.orderflow.broker.handler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.orderflow.broker.server.TestBroker;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Configs altered over the wire drive the broker's own housekeeping (retention and the log cleaner, every
 * 50 ms here), as a consumer sees it.
 */
class RetentionAndCompactionTest {
    private static final TopicPartition EVENTS = new TopicPartition("events", 0);

    @TempDir
    Path dataDir;

    private TestBroker broker;
    private Admin admin;

    @BeforeEach
    void start() throws Exception {
        broker = TestBroker.start(dataDir, Map.of("log.retention.check.interval.ms", "50"));
        admin = broker.admin();
        broker.createTopic("events", 1, Map.of("segment.bytes", "1024"));
    }

    @AfterEach
    void stop() {
        admin.close();
        broker.close();
    }

    @Test
    void loweringRetentionMsRemovesSegmentsOlderThanIt() throws Exception {
        long anHourAgo = System.currentTimeMillis() - TimeUnit.HOURS.toMillis(1);
        try (KafkaProducer<String, String> producer = broker.producer()) {
            for (int i = 0; i < 40; i++) {
                producer.send(new ProducerRecord<>("events", 0, anHourAgo, "k" + i, "old-" + i))
                        .get(30, TimeUnit.SECONDS);
            }
        }
        assertThat(beginningOffset()).as("kept for the default 7 days").isZero();

        setConfig("retention.ms", Long.toString(TimeUnit.MINUTES.toMillis(10)));

        await().atMost(Duration.ofSeconds(30)).until(() -> beginningOffset() > 0);
        try (KafkaConsumer<String, String> consumer = broker.consumer()) {
            assertThat(consumer.endOffsets(Set.of(EVENTS)))
                    .as("the active segment always stays")
                    .containsEntry(EVENTS, 40L);
        }
        assertThat(beginningOffset()).isLessThan(40);
    }

    @Test
    void compactedTopicKeepsTheLatestValueOfEachKeyForConsumers() throws Exception {
        setConfig("cleanup.policy", "compact");
        Map<String, String> latest = new LinkedHashMap<>();
        try (KafkaProducer<String, String> producer = broker.producer()) {
            for (int i = 0; i < 200; i++) {
                String key = "order-" + (i % 5);
                String value = key + " v" + i;
                producer.send(new ProducerRecord<>("events", key, value)).get(30, TimeUnit.SECONDS);
                latest.put(key, value);
            }
        }

        await().atMost(Duration.ofSeconds(30)).until(() -> readAll().size() < 50);

        List<ConsumerRecord<String, String>> records = readAll();
        Map<String, String> lastSeen = new LinkedHashMap<>();
        records.forEach(r -> lastSeen.put(r.key(), r.value()));
        assertThat(lastSeen).isEqualTo(latest);
        assertThat(records).extracting(ConsumerRecord::offset).isSorted().doesNotHaveDuplicates();
    }

    @Test
    void aProducerSendingAKeylessRecordToACompactedTopicGetsInvalidRecordNamingIt() throws Exception {
        setConfig("cleanup.policy", "compact");
        try (KafkaProducer<String, String> producer = broker.producer()) {
            assertThatThrownBy(() -> producer.send(new ProducerRecord<>("events", null, "keyless"))
                            .get(30, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class)
                    .cause()
                    .isInstanceOf(InvalidRecordException.class)
                    .hasMessageContaining("has no key");
            producer.send(new ProducerRecord<>("events", "k", "keyed")).get(30, TimeUnit.SECONDS);
        }
        assertThat(readAll()).extracting(ConsumerRecord::value).containsExactly("keyed");
    }

    private void setConfig(String key, String value) throws Exception {
        ConfigResource topic = new ConfigResource(ConfigResource.Type.TOPIC, "events");
        admin.incrementalAlterConfigs(Map.of(
                        topic, List.of(new AlterConfigOp(new ConfigEntry(key, value), AlterConfigOp.OpType.SET))))
                .all()
                .get(30, TimeUnit.SECONDS);
    }

    private long beginningOffset() {
        try (KafkaConsumer<String, String> consumer = broker.consumer()) {
            return consumer.beginningOffsets(Set.of(EVENTS)).get(EVENTS);
        }
    }

    /** Every record of the partition, from its start to its end offset at the time of the call. */
    private List<ConsumerRecord<String, String>> readAll() {
        List<ConsumerRecord<String, String>> records = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = broker.consumer()) {
            consumer.assign(List.of(EVENTS));
            consumer.seekToBeginning(List.of(EVENTS));
            long end = consumer.endOffsets(Set.of(EVENTS)).get(EVENTS);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (consumer.position(EVENTS) < end && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
            }
        }
        return records;
    }
}
