package io.orderflow.broker.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The stock kafka-clients producer, consumer and admin client against our broker over TCP. */
class BrokerWithKafkaClientsTest {
    @TempDir
    Path dataDir;

    private TestBroker broker;

    @BeforeEach
    void start() {
        broker = TestBroker.start(dataDir);
    }

    @AfterEach
    void stop() {
        broker.close();
    }

    private KafkaProducer<String, String> producer() {
        return broker.producer();
    }

    private KafkaConsumer<String, String> consumer() {
        return broker.consumer();
    }

    private void createTopic(String name, int partitions) throws Exception {
        broker.createTopic(name, partitions, Map.of());
    }

    @Test
    void producerAndConsumerKeepPerKeyOrderAcrossPartitions() throws Exception {
        createTopic("orders", 3);
        Map<String, List<String>> sent = new HashMap<>();
        Map<String, Integer> partitionOfKey = new HashMap<>();
        try (KafkaProducer<String, String> producer = producer()) {
            for (int i = 0; i < 300; i++) {
                String key = "order-" + (i % 17);
                String value = key + ":" + i;
                RecordMetadata md = producer.send(new ProducerRecord<>("orders", key, value))
                        .get(30, TimeUnit.SECONDS);
                sent.computeIfAbsent(key, k -> new ArrayList<>()).add(value);
                partitionOfKey.put(key, md.partition());
                // The Java client's default partitioner: murmur2(key) % partitions.
                assertThat(md.partition()).isEqualTo(Utils.toPositive(Utils.murmur2(key.getBytes())) % 3);
            }
        }
        Map<String, List<String>> received = new HashMap<>();
        try (KafkaConsumer<String, String> consumer = consumer()) {
            List<TopicPartition> all = List.of(
                    new TopicPartition("orders", 0), new TopicPartition("orders", 1), new TopicPartition("orders", 2));
            consumer.assign(all);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            int count = 0;
            while (count < 300 && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500))) {
                    received.computeIfAbsent(r.key(), k -> new ArrayList<>()).add(r.value());
                    assertThat(r.partition()).isEqualTo(partitionOfKey.get(r.key()));
                    count++;
                }
            }
        }
        assertThat(received).isEqualTo(sent);
    }

    @Test
    void consumerSeesTheLogStartAndEndOffsets() throws Exception {
        createTopic("events", 1);
        try (KafkaProducer<String, String> producer = producer()) {
            for (int i = 0; i < 10; i++) {
                producer.send(new ProducerRecord<>("events", "k", "v" + i)).get(30, TimeUnit.SECONDS);
            }
        }
        try (KafkaConsumer<String, String> consumer = consumer()) {
            TopicPartition tp = new TopicPartition("events", 0);
            assertThat(consumer.beginningOffsets(Set.of(tp))).containsEntry(tp, 0L);
            assertThat(consumer.endOffsets(Set.of(tp))).containsEntry(tp, 10L);
        }
    }

    @Test
    void dataAndTopicsSurviveABrokerRestart() throws Exception {
        createTopic("durable", 2);
        try (KafkaProducer<String, String> producer = producer()) {
            for (int i = 0; i < 20; i++) {
                producer.send(new ProducerRecord<>("durable", "k" + i, "v" + i)).get(30, TimeUnit.SECONDS);
            }
        }
        broker.restart();

        try (KafkaConsumer<String, String> consumer = consumer()) {
            List<TopicPartition> parts = List.of(new TopicPartition("durable", 0), new TopicPartition("durable", 1));
            consumer.assign(parts);
            List<String> values = new ArrayList<>();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (values.size() < 20 && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(500)).forEach(r -> values.add(r.value()));
            }
            assertThat(values.stream().collect(Collectors.toSet())).hasSize(20).contains("v0", "v19");
        }
    }

    @Test
    void producingToAnUnknownTopicCreatesItWithTheDefaultPartitionCount() throws Exception {
        try (KafkaProducer<String, String> producer = producer()) {
            RecordMetadata md = producer.send(new ProducerRecord<>("auto-created", "k", "v"))
                    .get(30, TimeUnit.SECONDS);
            assertThat(md.offset()).isZero();
        }
        assertThat(broker.broker().logs().topic("auto-created"))
                .hasValueSatisfying(t -> assertThat(t.partitions())
                        .isEqualTo(broker.broker().config().numPartitions()));
    }
}
