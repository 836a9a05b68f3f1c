package io.orderflow.broker.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
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
import org.apache.kafka.clients.admin.GroupListing;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.GroupType;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * KIP-848 consumer groups ({@code group.protocol=consumer}) with the stock Java consumer and admin client over TCP:
 * the server-side assignors, incremental reconciliation, static membership, restarts, offsets shared with the classic
 * protocol and conversion between the two protocols when the group is empty.
 */
class ConsumerProtocolGroupsTest {
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

    private KafkaConsumer<String, String> member(String group, Map<String, String> extra) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrap());
        p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        p.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer");
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "20");
        p.putAll(extra);
        return new KafkaConsumer<>(p, new StringDeserializer(), new StringDeserializer());
    }

    private KafkaConsumer<String, String> member(String group) {
        return member(group, Map.of());
    }

    private KafkaConsumer<String, String> classicMember(String group) {
        return member(group, Map.of(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "classic"));
    }

    private void produce(int from, int to) throws Exception {
        try (KafkaProducer<String, String> producer = broker.producer()) {
            for (int i = from; i < to; i++) {
                producer.send(new ProducerRecord<>(TOPIC, "key-" + (i % 13), "v" + i))
                        .get(30, TimeUnit.SECONDS);
            }
        }
    }

    private static List<String> consumeAndCommit(KafkaConsumer<String, String> consumer, int count) {
        List<String> values = new ArrayList<>();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (values.size() < count && System.nanoTime() < deadline) {
            values.addAll(drain(consumer));
        }
        return values;
    }

    private static List<String> drain(KafkaConsumer<String, String> consumer) {
        List<String> values = new ArrayList<>();
        for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(100))) {
            values.add(r.value());
        }
        consumer.commitSync();
        return values;
    }

    private ConsumerGroupDescription describe(Admin admin, String group) throws Exception {
        return admin.describeConsumerGroups(List.of(group))
                .all()
                .get(30, TimeUnit.SECONDS)
                .get(group);
    }

    @Test
    void aConsumerGroupMemberReadsEverythingAndTheAdminClientDescribesItAsAConsumerGroup() throws Exception {
        produce(0, 100);
        try (KafkaConsumer<String, String> consumer = member("kip848")) {
            consumer.subscribe(List.of(TOPIC));
            assertThat(new HashSet<>(consumeAndCommit(consumer, 100))).hasSize(100);
            assertThat(consumer.assignment()).hasSize(4);
            try (Admin admin = broker.admin()) {
                ConsumerGroupDescription d = describe(admin, "kip848");
                assertThat(d.type()).isEqualTo(GroupType.CONSUMER);
                assertThat(d.groupState()).isEqualTo(GroupState.STABLE);
                assertThat(d.partitionAssignor()).isEqualTo("uniform");
                assertThat(d.groupEpoch()).hasValueSatisfying(e -> assertThat(e).isPositive());
                assertThat(d.members()).singleElement().satisfies(m -> {
                    assertThat(m.assignment().topicPartitions()).hasSize(4);
                    assertThat(m.targetAssignment())
                            .hasValueSatisfying(
                                    t -> assertThat(t.topicPartitions()).hasSize(4));
                    assertThat(m.memberEpoch()).isEqualTo(d.groupEpoch());
                });
                assertThat(admin.listGroups().all().get(30, TimeUnit.SECONDS))
                        .filteredOn(g -> g.groupId().equals("kip848"))
                        .singleElement()
                        .extracting(GroupListing::type)
                        .isEqualTo(java.util.Optional.of(GroupType.CONSUMER));
                long committed = admin
                        .listConsumerGroupOffsets("kip848")
                        .partitionsToOffsetAndMetadata()
                        .get(30, TimeUnit.SECONDS)
                        .values()
                        .stream()
                        .mapToLong(OffsetAndMetadata::offset)
                        .sum();
                assertThat(committed).isEqualTo(100);
            }
        }
    }

    @Test
    void membersSplitThePartitionsAndTakeThemBackWithoutLosingOrRereadingCommittedRecords() throws Exception {
        produce(0, 200);
        List<String> all = new ArrayList<>();
        try (KafkaConsumer<String, String> first = member("split")) {
            first.subscribe(List.of(TOPIC));
            all.addAll(consumeAndCommit(first, 60));
            try (KafkaConsumer<String, String> second = member("split")) {
                second.subscribe(List.of(TOPIC));
                await().atMost(Duration.ofSeconds(60)).until(() -> {
                    all.addAll(drain(first));
                    all.addAll(drain(second));
                    return first.assignment().size() == 2 && second.assignment().size() == 2;
                });
                Set<TopicPartition> both = new HashSet<>(first.assignment());
                both.retainAll(second.assignment());
                assertThat(both).isEmpty();
                all.addAll(drain(second));
            }
            await().atMost(Duration.ofSeconds(60)).until(() -> {
                all.addAll(drain(first));
                return first.assignment().size() == 4 && new HashSet<>(all).size() == 200;
            });
        }
        assertThat(all).hasSize(200).doesNotHaveDuplicates();
    }

    @Test
    void theRangeAssignorGivesCoPartitionedTopicsTheSamePartitionNumbers() throws Exception {
        broker.createTopic("payments", 4, Map.of());
        Map<String, String> range = Map.of(ConsumerConfig.GROUP_REMOTE_ASSIGNOR_CONFIG, "range");
        try (KafkaConsumer<String, String> a = member("ranged", range);
                KafkaConsumer<String, String> b = member("ranged", range)) {
            a.subscribe(List.of(TOPIC, "payments"));
            b.subscribe(List.of(TOPIC, "payments"));
            await().atMost(Duration.ofSeconds(60)).until(() -> {
                a.poll(Duration.ofMillis(100));
                b.poll(Duration.ofMillis(100));
                return a.assignment().size() == 4 && b.assignment().size() == 4;
            });
            for (KafkaConsumer<String, String> c : List.of(a, b)) {
                Set<Integer> orders = partitionsOf(c.assignment(), TOPIC);
                assertThat(partitionsOf(c.assignment(), "payments")).isEqualTo(orders);
                assertThat(orders).hasSize(2);
            }
            try (Admin admin = broker.admin()) {
                assertThat(describe(admin, "ranged").partitionAssignor()).isEqualTo("range");
            }
        }
    }

    private static Set<Integer> partitionsOf(Set<TopicPartition> assignment, String topic) {
        Set<Integer> out = new HashSet<>();
        assignment.stream().filter(tp -> tp.topic().equals(topic)).forEach(tp -> out.add(tp.partition()));
        return out;
    }

    @Test
    void aStaticMemberThatRestartsWithinItsSessionGetsItsPartitionsBackWithoutARebalance() throws Exception {
        Map<String, String> staticA = Map.of(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, "a");
        try (KafkaConsumer<String, String> other =
                member("static", Map.of(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, "b"))) {
            other.subscribe(List.of(TOPIC));
            Set<TopicPartition> before;
            int epochBefore;
            try (KafkaConsumer<String, String> a = member("static", staticA)) {
                a.subscribe(List.of(TOPIC));
                await().atMost(Duration.ofSeconds(60)).until(() -> {
                    a.poll(Duration.ofMillis(100));
                    other.poll(Duration.ofMillis(100));
                    return a.assignment().size() == 2 && other.assignment().size() == 2;
                });
                before = Set.copyOf(a.assignment());
                try (Admin admin = broker.admin()) {
                    epochBefore = describe(admin, "static").groupEpoch().orElseThrow();
                }
            }
            try (KafkaConsumer<String, String> again = member("static", staticA)) {
                again.subscribe(List.of(TOPIC));
                await().atMost(Duration.ofSeconds(60)).until(() -> {
                    again.poll(Duration.ofMillis(100));
                    other.poll(Duration.ofMillis(100));
                    return again.assignment().equals(before);
                });
                assertThat(other.assignment()).hasSize(2).doesNotContainAnyElementsOf(before);
                try (Admin admin = broker.admin()) {
                    ConsumerGroupDescription d = describe(admin, "static");
                    assertThat(d.groupEpoch()).hasValue(epochBefore);
                    assertThat(d.members())
                            .extracting(MemberDescription::groupInstanceId)
                            .containsExactlyInAnyOrder(java.util.Optional.of("a"), java.util.Optional.of("b"));
                }
            }
        }
    }

    @Test
    void aConsumerGroupAndItsAssignmentsSurviveABrokerRestart() throws Exception {
        // The consumer lives through the restart, so the broker comes back on the same port.
        broker.close();
        int port;
        try (java.net.ServerSocket free = new java.net.ServerSocket(0)) {
            port = free.getLocalPort();
        }
        broker = TestBroker.start(
                dataDir, Map.of("group.initial.rebalance.delay.ms", "0", "port", Integer.toString(port)));
        produce(0, 40);
        try (KafkaConsumer<String, String> consumer = member("durable")) {
            consumer.subscribe(List.of(TOPIC));
            assertThat(consumeAndCommit(consumer, 40)).hasSize(40);
            int epoch;
            try (Admin admin = broker.admin()) {
                epoch = describe(admin, "durable").groupEpoch().orElseThrow();
            }
            broker.restart();
            produce(40, 50);
            List<String> rest = consumeAndCommit(consumer, 10);
            assertThat(rest).hasSize(10).allMatch(v -> Integer.parseInt(v.substring(1)) >= 40);
            try (Admin admin = broker.admin()) {
                ConsumerGroupDescription d = describe(admin, "durable");
                assertThat(d.groupEpoch()).hasValue(epoch);
                assertThat(d.members()).hasSize(1);
            }
        }
    }

    @Test
    void anEmptyGroupConvertsBetweenProtocolsAndKeepsItsCommittedOffsets() throws Exception {
        produce(0, 30);
        try (KafkaConsumer<String, String> classic = classicMember("convert")) {
            classic.subscribe(List.of(TOPIC));
            assertThat(consumeAndCommit(classic, 20)).hasSizeGreaterThanOrEqualTo(20);
        }
        produce(30, 40);
        List<String> seen = new ArrayList<>();
        try (KafkaConsumer<String, String> modern = member("convert")) {
            modern.subscribe(List.of(TOPIC));
            await().atMost(Duration.ofSeconds(60)).until(() -> {
                seen.addAll(drain(modern));
                return seen.contains("v39");
            });
            try (Admin admin = broker.admin()) {
                assertThat(describe(admin, "convert").type()).isEqualTo(GroupType.CONSUMER);
            }
        }
        Map<TopicPartition, OffsetAndMetadata> committed;
        try (Admin admin = broker.admin()) {
            committed = admin.listConsumerGroupOffsets("convert")
                    .partitionsToOffsetAndMetadata()
                    .get(30, TimeUnit.SECONDS);
        }
        assertThat(committed.values().stream()
                        .mapToLong(OffsetAndMetadata::offset)
                        .sum())
                .isEqualTo(40);
        try (KafkaConsumer<String, String> classicAgain = classicMember("convert")) {
            classicAgain.subscribe(List.of(TOPIC));
            produce(40, 41);
            List<String> after = new ArrayList<>();
            await().atMost(Duration.ofSeconds(60)).until(() -> {
                after.addAll(drain(classicAgain));
                return after.contains("v40");
            });
            assertThat(after).containsExactly("v40");
            try (Admin admin = broker.admin()) {
                assertThat(describe(admin, "convert").type()).isEqualTo(GroupType.CLASSIC);
            }
        }
    }

    @Test
    void aGroupWithMembersRefusesMembersOfTheOtherProtocol() throws Exception {
        try (KafkaConsumer<String, String> classic = classicMember("taken")) {
            classic.subscribe(List.of(TOPIC));
            await().atMost(Duration.ofSeconds(60)).until(() -> {
                classic.poll(Duration.ofMillis(100));
                return classic.assignment().size() == 4;
            });
            try (KafkaConsumer<String, String> modern = member("taken")) {
                modern.subscribe(List.of(TOPIC));
                assertThatThrownBy(() -> {
                            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                            while (System.nanoTime() < deadline) {
                                modern.poll(Duration.ofMillis(100));
                            }
                        })
                        .isInstanceOf(KafkaException.class)
                        .hasMessageContaining("not a consumer group");
            }
        }
    }

    @Test
    void theBrokersConsumerGroupTimeoutsSetTheHeartbeatIntervalAndRemoveSilentMembers() throws Exception {
        broker.close();
        broker = TestBroker.start(
                dataDir,
                Map.of(
                        "group.consumer.heartbeat.interval.ms", "250",
                        "group.consumer.session.timeout.ms", "1500"));
        var join = new org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData()
                .setGroupId("silent")
                .setMemberId(org.apache.kafka.common.Uuid.randomUuid().toString())
                .setMemberEpoch(0)
                .setRebalanceTimeoutMs(10_000)
                .setSubscribedTopicNames(List.of(TOPIC))
                .setTopicPartitions(List.of());
        try (io.orderflow.frames.WireClient client =
                io.orderflow.frames.WireClient.connect(broker.broker().port())) {
            var response = (org.apache.kafka.common.requests.ConsumerGroupHeartbeatResponse) client.receive(client.send(
                    new org.apache.kafka.common.requests.ConsumerGroupHeartbeatRequest.Builder(join).build((short) 1),
                    1));
            assertThat(response.data().heartbeatIntervalMs()).isEqualTo(250);
            assertThat(response.data().memberEpoch()).isEqualTo(1);
        }
        try (Admin admin = broker.admin()) {
            assertThat(describe(admin, "silent").members()).hasSize(1);
            // no more heartbeats: the member is gone once its 1.5 s session has passed
            await().atMost(Duration.ofSeconds(30))
                    .until(() -> describe(admin, "silent").members().isEmpty());
            assertThat(describe(admin, "silent").groupState()).isEqualTo(GroupState.EMPTY);
        }
    }
}
