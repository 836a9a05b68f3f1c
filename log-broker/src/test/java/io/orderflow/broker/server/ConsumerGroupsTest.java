package io.orderflow.broker.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Consumer groups (classic protocol) with the stock Java consumer and admin client over TCP. */
class ConsumerGroupsTest {
    private static final String TOPIC = "orders";

    @TempDir
    Path dataDir;

    private TestBroker broker;

    @BeforeEach
    void start() throws Exception {
        broker = TestBroker.start(dataDir, Map.of("group.initial.rebalance.delay.ms", "0"));
        broker.createTopic(TOPIC, 4, Map.of());
    }

    @AfterEach
    void stop() {
        broker.close();
    }

    private KafkaConsumer<String, String> member(String group) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrap());
        p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "20");
        return new KafkaConsumer<>(p, new StringDeserializer(), new StringDeserializer());
    }

    private void produce(int from, int to) throws Exception {
        try (KafkaProducer<String, String> producer = broker.producer()) {
            for (int i = from; i < to; i++) {
                producer.send(new ProducerRecord<>(TOPIC, "key-" + (i % 13), "v" + i))
                        .get(30, TimeUnit.SECONDS);
            }
        }
    }

    /** Polls and commits after each poll until {@code done} values are collected or the deadline passes. */
    private static List<String> consumeAndCommit(KafkaConsumer<String, String> consumer, int count) {
        List<String> values = new ArrayList<>();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (values.size() < count && System.nanoTime() < deadline) {
            for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                values.add(r.value());
            }
            consumer.commitSync();
        }
        return values;
    }

    @Test
    void threeGroupsReadTheSameTopicIndependently() throws Exception {
        produce(0, 100);
        try (KafkaConsumer<String, String> a = member("inventory");
                KafkaConsumer<String, String> b = member("notification");
                KafkaConsumer<String, String> c = member("analytics")) {
            a.subscribe(List.of(TOPIC));
            b.subscribe(List.of(TOPIC));
            c.subscribe(List.of(TOPIC));

            List<String> first = consumeAndCommit(a, 100);
            List<String> second = consumeAndCommit(b, 40); // a slower group stops part way
            List<String> third = consumeAndCommit(c, 100);

            assertThat(new HashSet<>(first)).hasSize(100);
            assertThat(new HashSet<>(third)).hasSize(100);
            assertThat(second.size()).isGreaterThanOrEqualTo(40).isLessThanOrEqualTo(100);
        }
        try (Admin admin = broker.admin()) {
            long inventory = committedTotal(admin, "inventory");
            long notification = committedTotal(admin, "notification");
            assertThat(inventory).isEqualTo(100);
            assertThat(notification).isLessThan(100).isGreaterThanOrEqualTo(40);
        }
    }

    @Test
    void membersJoiningAndLeavingRebalanceWithoutSkippingOrReprocessingCommittedRecords() throws Exception {
        produce(0, 200);
        Set<String> seen = new HashSet<>();
        List<String> all = new ArrayList<>();
        try (KafkaConsumer<String, String> first = member("g")) {
            first.subscribe(List.of(TOPIC));
            List<String> got = consumeAndCommit(first, 60);
            all.addAll(got);
            try (KafkaConsumer<String, String> second = member("g")) {
                second.subscribe(List.of(TOPIC));
                // Both poll until the group has split the four partitions between them.
                await().atMost(Duration.ofSeconds(60)).until(() -> {
                    all.addAll(drain(first));
                    all.addAll(drain(second));
                    return !first.assignment().isEmpty()
                            && !second.assignment().isEmpty()
                            && first.assignment().size() + second.assignment().size() == 4;
                });
                assertThat(disjoint(first.assignment(), second.assignment())).isTrue();
                all.addAll(drain(second));
            } // second leaves the group here
            // first gets all four partitions back and finishes the topic
            await().atMost(Duration.ofSeconds(60)).until(() -> {
                all.addAll(drain(first));
                return first.assignment().size() == 4 && new HashSet<>(all).size() == 200;
            });
        }
        seen.addAll(all);
        assertThat(seen).hasSize(200);
        // Each member committed after every poll and partitions moved only at rebalances, where the new owner
        // starts at the committed offset: nothing is read twice.
        assertThat(all).hasSize(200);
    }

    @Test
    void committedOffsetsAndGroupsSurviveABrokerRestart() throws Exception {
        produce(0, 50);
        try (KafkaConsumer<String, String> consumer = member("durable-group")) {
            consumer.subscribe(List.of(TOPIC));
            consumeAndCommit(consumer, 50);
        }
        broker.restart();
        produce(50, 60);
        try (KafkaConsumer<String, String> consumer = member("durable-group")) {
            consumer.subscribe(List.of(TOPIC));
            List<String> rest = consumeAndCommit(consumer, 10);
            assertThat(rest).hasSize(10).allMatch(v -> Integer.parseInt(v.substring(1)) >= 50);
        }
        try (Admin admin = broker.admin()) {
            ConsumerGroupDescription group = admin.describeConsumerGroups(List.of("durable-group"))
                    .all()
                    .get(30, TimeUnit.SECONDS)
                    .get("durable-group");
            assertThat(group.groupState()).isEqualTo(GroupState.EMPTY);
            assertThat(committedTotal(admin, "durable-group")).isEqualTo(60);
        }
    }

    @Test
    void resettingAnInactiveGroupToEarliestReplaysEverything() throws Exception {
        produce(0, 30);
        try (KafkaConsumer<String, String> consumer = member("replay")) {
            consumer.subscribe(List.of(TOPIC));
            consumeAndCommit(consumer, 30);
        }
        try (Admin admin = broker.admin()) {
            Map<TopicPartition, OffsetAndMetadata> earliest = new java.util.HashMap<>();
            for (int p = 0; p < 4; p++) {
                TopicPartition tp = new TopicPartition(TOPIC, p);
                long offset = admin.listOffsets(Map.of(tp, OffsetSpec.earliest()))
                        .partitionResult(tp)
                        .get(30, TimeUnit.SECONDS)
                        .offset();
                earliest.put(tp, new OffsetAndMetadata(offset));
            }
            admin.alterConsumerGroupOffsets("replay", earliest).all().get(30, TimeUnit.SECONDS);
        }
        try (KafkaConsumer<String, String> consumer = member("replay")) {
            consumer.subscribe(List.of(TOPIC));
            assertThat(new HashSet<>(consumeAndCommit(consumer, 30))).hasSize(30);
        }
    }

    private static List<String> drain(KafkaConsumer<String, String> consumer) {
        List<String> values = new ArrayList<>();
        consumer.poll(Duration.ofMillis(100)).forEach(r -> values.add(r.value()));
        consumer.commitSync();
        return values;
    }

    private static boolean disjoint(Set<TopicPartition> a, Set<TopicPartition> b) {
        Set<TopicPartition> both = new HashSet<>(a);
        both.retainAll(b);
        return both.isEmpty();
    }

    private static long committedTotal(Admin admin, String group) throws Exception {
        return admin
                .listConsumerGroupOffsets(group)
                .partitionsToOffsetAndMetadata()
                .get(30, TimeUnit.SECONDS)
                .values()
                .stream()
                .mapToLong(OffsetAndMetadata::offset)
                .sum();
    }
}
