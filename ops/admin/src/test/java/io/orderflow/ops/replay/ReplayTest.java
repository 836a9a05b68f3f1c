package io.orderflow.ops.replay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.orderflow.process.RunningBroker;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.AfterParameterizedClassInvocation;
import org.junit.jupiter.params.BeforeParameterizedClassInvocation;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A replay on our broker and on Apache Kafka, with plain kafka-clients consumers standing in for a service
 * ({@link StandInService}): the offsets it sets, checked by reading the group's committed offsets back with an Admin
 * client of the test's own; the starts it resolves from records with explicit timestamps; the refusal of a group
 * with a live member (exit code 1, nothing changed); and the whole procedure, stop to duplicates counted.
 *
 * <p>Each test has its own topic (three partitions) and group; the broker is started once per broker.
 */
@ParameterizedClass
@EnumSource(TestBroker.class)
class ReplayTest {

    private static final int PARTITIONS = 3;
    private static final Duration WITHIN = Duration.ofSeconds(60);

    private static RunningBroker broker;

    @Parameter
    TestBroker brokerKind;

    private Admin admin;
    private String topic;
    private String group;

    @BeforeParameterizedClassInvocation
    static void startBroker(TestBroker kind) {
        broker = kind.start();
    }

    @AfterParameterizedClassInvocation
    static void stopBroker() {
        if (broker != null) {
            broker.kill(); // its data is thrown away: no need for a clean shutdown
        }
    }

    @BeforeEach
    void createTopic() throws Exception {
        admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()));
        String id = UUID.randomUUID().toString().substring(0, 8);
        topic = "orders-" + id;
        group = "service-" + id;
        admin.createTopics(List.of(new NewTopic(topic, PARTITIONS, (short) 1)))
                .all()
                .get(30, TimeUnit.SECONDS);
    }

    @AfterEach
    void closeAdmin() {
        admin.close();
    }

    @Test
    void aGroupThatReadEverythingIsRewoundToTheEarliestAndOnlyItsChosenTopic() throws Exception {
        produce(topic, 10, null);
        consumeAll(topic, 30);
        TopicPartition retry = new TopicPartition(group + "_retry_1000", 0);
        admin.createTopics(List.of(new NewTopic(retry.topic(), 1, (short) 1)))
                .all()
                .get(30, TimeUnit.SECONDS);
        admin.alterConsumerGroupOffsets(group, Map.of(retry, new OffsetAndMetadata(7)))
                .all()
                .get(30, TimeUnit.SECONDS);

        GroupRewind rewind = new GroupRewind(admin, Duration.ofSeconds(30));
        rewind.awaitEmpty(group, Duration.ofSeconds(5));
        ReplayPlan plan = rewind.plan(group, List.of(topic), new ReplayStart.Earliest(), Instant.now());
        assertThat(plan.partitions())
                .extracting(PartitionRewind::committed, PartitionRewind::target, PartitionRewind::reread)
                .containsOnly(org.assertj.core.groups.Tuple.tuple(10L, 0L, 10L));
        assertThat(plan.reread()).isEqualTo(30);
        assertThat(plan.untouchedTopics()).containsExactly(retry.topic());
        rewind.reset(plan);

        Map<TopicPartition, Long> committed = committed();
        for (int p = 0; p < PARTITIONS; p++) {
            assertThat(committed).containsEntry(new TopicPartition(topic, p), 0L);
        }
        assertThat(committed).containsEntry(retry, 7L);
        assertThat(consumeAll(topic, 30))
                .as("the group reads every record again")
                .hasSize(30);
    }

    @Test
    void aTimeOrADurationBeforeNowStartsAtTheFirstRecordAtOrAfterItAndNeverMovesAGroupForward() throws Exception {
        Instant first = Instant.now().truncatedTo(ChronoUnit.SECONDS).minus(Duration.ofHours(3));
        Instant second = first.plus(Duration.ofHours(1));
        produce(topic, 5, first);
        produce(topic, 5, second);
        consumeAll(topic, 30);
        GroupRewind rewind = new GroupRewind(admin, Duration.ofSeconds(30));
        Instant now = second.plus(Duration.ofHours(1));

        assertThat(targets(rewind.plan(group, List.of(topic), new ReplayStart.AtTime(first.plusSeconds(1)), now)))
                .as("the first record of the second hour")
                .containsOnly(5L);
        assertThat(targets(rewind.plan(group, List.of(topic), new ReplayStart.AtTime(first), now)))
                .as("a record exactly at the time is replayed")
                .containsOnly(0L);
        assertThat(targets(rewind.plan(group, List.of(topic), new ReplayStart.Before(Duration.ofMinutes(90)), now)))
                .as("now minus 90 minutes falls between the hours")
                .containsOnly(5L);
        assertThat(targets(rewind.plan(group, List.of(topic), new ReplayStart.Before(Duration.ofHours(5)), now)))
                .containsOnly(0L);
        assertThat(targets(rewind.plan(group, List.of(topic), new ReplayStart.AtTime(now), now)))
                .as("after the last record: the log end offset, nothing to re-read")
                .containsOnly(10L);

        admin.alterConsumerGroupOffsets(group, Map.of(new TopicPartition(topic, 0), new OffsetAndMetadata(2)))
                .all()
                .get(30, TimeUnit.SECONDS);
        ReplayPlan plan = rewind.plan(group, List.of(topic), new ReplayStart.AtTime(second), now);
        assertThat(plan.partitions().getFirst())
                .as("a group that has not read that far stays where it is")
                .extracting(PartitionRewind::start, PartitionRewind::target, PartitionRewind::keptCommitted)
                .containsExactly(5L, 2L, true);
    }

    @Test
    void aGroupWithALiveMemberIsRefusedWithExitCode1AndNothingIsReset() throws Exception {
        produce(topic, 10, null);
        consumeAll(topic, 30);
        Map<TopicPartition, Long> before = committed();
        try (KafkaConsumer<String, String> live = consumer()) {
            live.subscribe(List.of(topic));
            await().atMost(WITHIN).until(() -> {
                live.poll(Duration.ofMillis(100));
                return !live.assignment().isEmpty();
            });
            StringWriter out = new StringWriter();
            StringWriter err = new StringWriter();
            var commandLine = ReplayCommandLine.commandLine();
            commandLine.setOut(new PrintWriter(out, true));
            commandLine.setErr(new PrintWriter(err, true));

            int exitCode = commandLine.execute(
                    "--group",
                    group,
                    "--topic",
                    topic,
                    "--bootstrap-servers",
                    broker.bootstrapServers(),
                    "--service-control",
                    "none",
                    "--empty-timeout",
                    "1s");

            assertThat(exitCode).as(out + "\n" + err).isEqualTo(1);
            assertThat(err.toString())
                    .contains("replay failed: consumer group " + group + " still has 1 member after 1 s")
                    .contains(live.groupMetadata().memberId())
                    .contains("Nothing was reset", "session times out");
            assertThat(out.toString()).doesNotContain("replay done");
            assertThat(committed()).isEqualTo(before);
        }
    }

    @Test
    void aReplayStopsTheServiceResetsReadsBackStartsItAndCountsWhatItSkippedAsDuplicates() throws Exception {
        produce(topic, 10, null);
        try (StandInService service = new StandInService(broker.bootstrapServers(), group, List.of(topic))) {
            service.start();
            await().atMost(WITHIN).until(() -> service.applied() == 30 && committedTotal() == 30);
            StringWriter out = new StringWriter();

            ReplayPlan plan = new Replay(
                            new GroupRewind(admin, Duration.ofSeconds(30)),
                            service.control(),
                            Clock.fixed(Instant.now(), ZoneOffset.UTC),
                            new PrintWriter(out, true))
                    .run(new Replay.Request(
                            group,
                            "stand-in",
                            List.of(topic),
                            new ReplayStart.Earliest(),
                            Duration.ofSeconds(10),
                            Optional.of(WITHIN),
                            Optional.of(service.metricsUri())));

            assertThat(plan.reread()).isEqualTo(30);
            assertThat(service.stops()).isEqualTo(1);
            assertThat(service.starts()).isEqualTo(2);
            assertThat(out.toString())
                    .contains("stopped stand-in", "consumer group " + group + " is empty", "started stand-in")
                    .containsPattern(topic + "-0 +10 +0 +10 +10")
                    .containsPattern("total +30 +30")
                    .contains("has caught up")
                    .contains("30 duplicate (skipped), 0 applied, 0 ignored, 0 retried, 0 dead-lettered");
            assertThat(committed().values()).containsOnly(10L);
        }
    }

    @Test
    void aGroupThatDoesNotEmptyIsRefusedAndTheStoppedServiceIsStartedAgain() throws Exception {
        produce(topic, 10, null);
        try (StandInService service = new StandInService(broker.bootstrapServers(), group, List.of(topic));
                KafkaConsumer<String, String> otherInstance = consumer()) {
            service.start();
            await().atMost(WITHIN).until(() -> committedTotal() == 30);
            otherInstance.subscribe(List.of(topic));
            await().atMost(WITHIN).until(() -> {
                otherInstance.poll(Duration.ofMillis(100));
                return !otherInstance.assignment().isEmpty();
            });
            Map<TopicPartition, Long> before = committed();
            StringWriter out = new StringWriter();

            assertThatThrownBy(() -> new Replay(
                                    new GroupRewind(admin, Duration.ofSeconds(30)),
                                    service.control(),
                                    Clock.systemUTC(),
                                    new PrintWriter(out, true))
                            .run(new Replay.Request(
                                    group,
                                    "stand-in",
                                    List.of(topic),
                                    new ReplayStart.Earliest(),
                                    Duration.ofSeconds(1),
                                    Optional.empty(),
                                    Optional.empty())))
                    .isInstanceOf(GroupStillActiveException.class)
                    .satisfies(e -> assertThat(((GroupStillActiveException) e).members())
                            .singleElement()
                            .asString()
                            .startsWith(otherInstance.groupMetadata().memberId()));

            assertThat(service.starts()).as("started again after the refusal").isEqualTo(2);
            assertThat(out.toString()).contains("the replay failed; starting stand-in again: started stand-in");
            assertThat(committed()).isEqualTo(before);
        }
    }

    @Test
    void anUnknownGroupOrTopicIsRefusedBeforeTheServiceIsStopped() throws Exception {
        try (StandInService service = new StandInService(broker.bootstrapServers(), group, List.of(topic))) {
            Replay replay = new Replay(
                    new GroupRewind(admin, Duration.ofSeconds(30)),
                    service.control(),
                    Clock.systemUTC(),
                    new PrintWriter(new StringWriter(), true));
            assertThatThrownBy(() -> replay.run(request("no-such-group", topic)))
                    .isInstanceOf(ReplayException.class)
                    .hasMessageContaining("no consumer group no-such-group");

            produce(topic, 1, null);
            consumeAll(topic, 3);
            assertThatThrownBy(() -> replay.run(request(group, "no-such-topic")))
                    .isInstanceOf(ReplayException.class)
                    .hasMessageContaining("no-such-topic");
            assertThat(service.stops()).isZero();
        }
    }

    private static Replay.Request request(String group, String topic) {
        return new Replay.Request(
                group,
                "stand-in",
                List.of(topic),
                new ReplayStart.Earliest(),
                Duration.ofSeconds(1),
                Optional.empty(),
                Optional.empty());
    }

    /** {@code perPartition} records in every partition, each with its own key (its event id), at {@code timestamp}. */
    private void produce(String topic, int perPartition, Instant timestamp) throws Exception {
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName(),
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName()))) {
            for (int p = 0; p < PARTITIONS; p++) {
                for (int i = 0; i < perPartition; i++) {
                    producer.send(new ProducerRecord<>(
                            topic,
                            p,
                            timestamp == null ? null : timestamp.toEpochMilli(),
                            UUID.randomUUID().toString(),
                            "event"));
                }
            }
            producer.flush();
        }
    }

    /** Joins the group, reads {@code count} records, commits, and leaves; returns the records' keys. */
    private List<String> consumeAll(String topic, int count) {
        List<String> keys = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = consumer()) {
            consumer.subscribe(List.of(topic));
            await().atMost(WITHIN).until(() -> {
                consumer.poll(Duration.ofMillis(100)).forEach(record -> keys.add(record.key()));
                return keys.size() >= count;
            });
            consumer.commitSync();
        }
        return keys;
    }

    private KafkaConsumer<String, String> consumer() {
        return StandInService.member(broker.bootstrapServers(), group);
    }

    /** The group's committed offsets, read with the test's own Admin client. */
    private Map<TopicPartition, Long> committed() throws Exception {
        Map<TopicPartition, Long> committed = new HashMap<>();
        admin.listConsumerGroupOffsets(group)
                .partitionsToOffsetAndMetadata()
                .get(30, TimeUnit.SECONDS)
                .forEach((partition, offset) -> {
                    if (offset != null) {
                        committed.put(partition, offset.offset());
                    }
                });
        return committed;
    }

    private long committedTotal() throws Exception {
        return committed().values().stream().mapToLong(Long::longValue).sum();
    }

    private static List<Long> targets(ReplayPlan plan) {
        return plan.partitions().stream().map(PartitionRewind::target).toList();
    }
}
