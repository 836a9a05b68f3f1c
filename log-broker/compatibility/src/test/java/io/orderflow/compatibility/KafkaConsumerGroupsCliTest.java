package io.orderflow.compatibility;

import static io.orderflow.compatibility.ConsumerGroupsTable.cells;
import static io.orderflow.compatibility.KafkaCli.Tool.CONSUMER_GROUPS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.GroupProtocol;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code kafka-consumer-groups.sh} (kafka-tools 4.4.0) against groups that stock kafka-clients 4.4.0 consumers formed,
 * every test once per group protocol: {@code group.protocol=classic} (JoinGroup, SyncGroup, Heartbeat; the group's
 * leader assigns) and {@code group.protocol=consumer} (KIP-848's ConsumerGroupHeartbeat; the broker assigns, and the
 * tool describes the group with ConsumerGroupDescribe). Lag as the tool computes it, the two offset resets operators
 * replay with, and a group of two live members as the tool's four views show it before and after one leaves; that
 * last test runs on Apache Kafka 4.4.0 too, with the same assertions.
 *
 * <p>Every expected cell comes from the consumers themselves (their member ids, client ids and assignments) or from
 * the offsets the test committed; nothing in the tool's output is taken as given. One broker of each kind for the
 * class, Apache Kafka started by the first test that asks for it; each test has its own topic and group, named after
 * its protocol.
 */
class KafkaConsumerGroupsCliTest {
    private static final int PARTITIONS = 3;
    private static final int PER_PARTITION = 10;
    private static final String HOST = "/127.0.0.1";
    /** The columns of {@code --describe} after PARTITION (without {@code --verbose}). */
    private static final String[] OFFSET_COLUMNS = {
        "CURRENT-OFFSET", "LOG-END-OFFSET", "LAG", "CONSUMER-ID", "HOST", "CLIENT-ID"
    };

    private static final DateTimeFormatter ISO_MILLIS =
            DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSX").withZone(ZoneOffset.UTC);

    @TempDir
    static Path workDir;

    private static BrokerProcess ours;
    private static ApacheKafkaProcess apacheKafka;

    /** The brokers a test can run against. */
    enum Broker {
        OURS,
        APACHE_KAFKA;

        String bootstrapServers() {
            return this == OURS ? ours.bootstrapServers() : apacheKafka().bootstrapServers();
        }
    }

    @BeforeAll
    static void startBroker() {
        ours = BrokerProcess.start(workDir.resolve("ours"));
    }

    @AfterAll
    static void stopBrokers() throws InterruptedException {
        try {
            if (apacheKafka != null) {
                apacheKafka.close();
            }
        } finally {
            if (ours != null) {
                ours.close();
            }
        }
    }

    private static synchronized ApacheKafkaProcess apacheKafka() {
        if (apacheKafka == null) {
            apacheKafka = ApacheKafkaProcess.start(workDir.resolve("apache-kafka"));
        }
        return apacheKafka;
    }

    static Stream<Arguments> everyBrokerAndProtocol() {
        return Stream.of(Broker.values())
                .flatMap(broker -> Stream.of(GroupProtocol.values()).map(protocol -> Arguments.of(broker, protocol)));
    }

    private static String named(String prefix, GroupProtocol protocol) {
        return prefix + "-" + protocol.name().toLowerCase(Locale.ROOT);
    }

    /** The group type {@code --list --type} prints for a group formed with {@code protocol}. */
    private static String groupType(GroupProtocol protocol) {
        return switch (protocol) {
            case CLASSIC -> "Classic";
            case CONSUMER -> "Consumer";
        };
    }

    /**
     * The assignment strategy {@code --describe --state} prints for a stable group: with the classic protocol, the
     * first of the consumers' default {@code partition.assignment.strategy} (range, cooperative-sticky) that every
     * member offers; with the consumer protocol, the broker's default server-side assignor, on both brokers.
     */
    private static String assignmentStrategy(GroupProtocol protocol) {
        return switch (protocol) {
            case CLASSIC -> "range";
            case CONSUMER -> "uniform";
        };
    }

    private static KafkaCli.Run consumerGroups(String bootstrap, String... args) {
        KafkaCli.Run run = KafkaCli.runAgainst(bootstrap, CONSUMER_GROUPS, args).succeeded();
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

    private static Map<TopicPartition, OffsetAndMetadata> offsets(String topic, Map<Integer, Long> commit) {
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        commit.forEach((p, offset) -> offsets.put(new TopicPartition(topic, p), new OffsetAndMetadata(offset)));
        return offsets;
    }

    /** Joins {@code group}, reads {@code count} records, commits the given offsets, leaves. */
    private static void consumeAndCommit(
            GroupProtocol protocol, String group, String topic, int count, Map<Integer, Long> commit) {
        try (KafkaConsumer<String, String> consumer =
                KafkaClients.groupConsumer(ours.bootstrapServers(), group, protocol)) {
            consumer.subscribe(List.of(topic));
            KafkaClients.pollAtLeast(consumer, count);
            consumer.commitSync(offsets(topic, commit));
        }
    }

    /** Joins {@code group} and returns the first {@code count} records it reads from its committed offsets. */
    private static List<ConsumerRecord<String, String>> resume(
            GroupProtocol protocol, String group, String topic, int count) {
        try (KafkaConsumer<String, String> consumer =
                KafkaClients.groupConsumer(ours.bootstrapServers(), group, protocol)) {
            consumer.subscribe(List.of(topic));
            return KafkaClients.pollAtLeast(consumer, count);
        }
    }

    /** The rows of the table {@code run} printed for {@code group}, keyed by their cell under {@code column}. */
    private static Map<String, Map<String, String>> rowsBy(KafkaCli.Run run, String group, String column) {
        return ConsumerGroupsTable.of(run).rowsOf(group, column);
    }

    /** Partition -> the cells of {@link #OFFSET_COLUMNS}, from {@code --describe}, after checking every row's topic. */
    private static Map<String, List<String>> offsetRows(KafkaCli.Run described, String group, String topic) {
        Map<String, Map<String, String>> rows = rowsBy(described, group, "PARTITION");
        assertThat(rows.values())
                .as(described::transcript)
                .allSatisfy(row -> assertThat(row).containsEntry("TOPIC", topic));
        Map<String, List<String>> offsets = new TreeMap<>();
        rows.forEach((partition, row) -> offsets.put(partition, cells(row, OFFSET_COLUMNS)));
        return offsets;
    }

    @ParameterizedTest(name = "group.protocol={0}")
    @EnumSource(GroupProtocol.class)
    void describeShowsCurrentOffsetLogEndOffsetAndLagPerPartition(GroupProtocol protocol) {
        String topic = named("lag-topic", protocol);
        String group = named("lag-group", protocol);
        String bootstrap = ours.bootstrapServers();
        KafkaClients.createTopic(bootstrap, topic, PARTITIONS);
        KafkaClients.produce(bootstrap, records(topic, "v", PER_PARTITION, null));
        Map<Integer, Long> committed = Map.of(0, 4L, 1, 7L, 2, 10L);
        consumeAndCommit(protocol, group, topic, PARTITIONS * PER_PARTITION, committed);

        KafkaCli.Run listed = consumerGroups(bootstrap, "--list", "--type");
        assertThat(rowsBy(listed, group, "GROUP"))
                .as(listed::transcript)
                .containsOnlyKeys(group)
                .hasEntrySatisfying(group, row -> assertThat(row).containsEntry("TYPE", groupType(protocol)));
        KafkaCli.Run described = consumerGroups(bootstrap, "--describe", "--group", group);

        // CONSUMER-ID, HOST and CLIENT-ID are "-": nobody is in the group.
        Map<String, List<String>> expected = new TreeMap<>();
        committed.forEach((p, offset) -> expected.put(
                String.valueOf(p),
                List.of(
                        String.valueOf(offset),
                        String.valueOf(PER_PARTITION),
                        String.valueOf(PER_PARTITION - offset),
                        "-",
                        "-",
                        "-")));
        assertThat(offsetRows(described, group, topic))
                .as(described::transcript)
                .isEqualTo(expected);
        // The tool prints this notice on stderr.
        assertThat(described.stderr()).contains("Consumer group '" + group + "' has no active members.");
    }

    @ParameterizedTest(name = "group.protocol={0}")
    @EnumSource(GroupProtocol.class)
    void resetToEarliestMakesTheGroupReplayEverything(GroupProtocol protocol) {
        String topic = named("replay-topic", protocol);
        String group = named("replay-group", protocol);
        KafkaClients.createTopic(ours.bootstrapServers(), topic, PARTITIONS);
        List<ProducerRecord<String, String>> produced = records(topic, "v", PER_PARTITION, null);
        KafkaClients.produce(ours.bootstrapServers(), produced);
        consumeAndCommit(protocol, group, topic, produced.size(), Map.of(0, 10L, 1, 10L, 2, 10L));

        KafkaCli.Run reset = consumerGroups(
                ours.bootstrapServers(),
                "--reset-offsets",
                "--to-earliest",
                "--execute",
                "--group",
                group,
                "--topic",
                topic);

        assertThat(newOffsets(reset, group, topic)).isEqualTo(Map.of("0", "0", "1", "0", "2", "0"));
        List<ConsumerRecord<String, String>> replayed = resume(protocol, group, topic, produced.size());
        assertThat(replayed)
                .extracting(ConsumerRecord::value)
                .containsExactlyInAnyOrderElementsOf(
                        produced.stream().map(ProducerRecord::value).toList());
    }

    @ParameterizedTest(name = "group.protocol={0}")
    @EnumSource(GroupProtocol.class)
    void resetToDatetimeMakesTheGroupResumeFromTheFirstRecordAtOrAfterIt(GroupProtocol protocol) {
        String topic = named("datetime-topic", protocol);
        String group = named("datetime-group", protocol);
        KafkaClients.createTopic(ours.bootstrapServers(), topic, PARTITIONS);
        // Two batches an hour apart by their record timestamps (CreateTime), so no test has to wait.
        Instant firstBatch = Instant.now().truncatedTo(ChronoUnit.SECONDS).minus(2, ChronoUnit.HOURS);
        Instant secondBatch = firstBatch.plus(1, ChronoUnit.HOURS);
        KafkaClients.produce(ours.bootstrapServers(), records(topic, "first", 5, firstBatch.toEpochMilli()));
        List<ProducerRecord<String, String>> second = records(topic, "second", 4, secondBatch.toEpochMilli());
        KafkaClients.produce(ours.bootstrapServers(), second);
        consumeAndCommit(protocol, group, topic, 27, Map.of(0, 9L, 1, 9L, 2, 9L));

        String between = ISO_MILLIS.format(firstBatch.plus(30, ChronoUnit.MINUTES));
        KafkaCli.Run reset = consumerGroups(
                ours.bootstrapServers(),
                "--reset-offsets",
                "--to-datetime",
                between,
                "--execute",
                "--group",
                group,
                "--topic",
                topic);

        assertThat(newOffsets(reset, group, topic)).isEqualTo(Map.of("0", "5", "1", "5", "2", "5"));
        List<ConsumerRecord<String, String>> resumed = resume(protocol, group, topic, second.size());
        assertThat(resumed)
                .extracting(ConsumerRecord::value)
                .containsExactlyInAnyOrderElementsOf(
                        second.stream().map(ProducerRecord::value).toList());
        assertThat(resumed).allSatisfy(record -> assertThat(record.offset()).isGreaterThanOrEqualTo(5));
    }

    /** Partition -> NEW-OFFSET, from the table {@code --reset-offsets} prints, after checking every row's topic. */
    private static Map<String, String> newOffsets(KafkaCli.Run reset, String group, String topic) {
        Map<String, Map<String, String>> rows = rowsBy(reset, group, "PARTITION");
        assertThat(rows.values())
                .as(reset::transcript)
                .allSatisfy(row -> assertThat(row).containsEntry("TOPIC", topic));
        Map<String, String> newOffsets = new TreeMap<>();
        rows.forEach((partition, row) -> newOffsets.put(partition, row.get("NEW-OFFSET")));
        return newOffsets;
    }

    /** A live member as it sees itself: the ids the tool should print for it and the partitions it holds. */
    private record Member(String memberId, String clientId, List<Integer> partitions) {
        static Member of(KafkaConsumer<String, String> consumer, String clientId) {
            return new Member(
                    consumer.groupMetadata().memberId(),
                    clientId,
                    consumer.assignment().stream()
                            .map(TopicPartition::partition)
                            .sorted()
                            .toList());
        }

        /** The tool's spelling of the assignment: {@code topic:0,1}. */
        String assignment(String topic) {
            return topic + ":" + partitions.stream().map(String::valueOf).collect(Collectors.joining(","));
        }
    }

    @ParameterizedTest(name = "{0}, group.protocol={1}")
    @MethodSource("everyBrokerAndProtocol")
    void describeShowsEachLiveMemberItsPartitionsAndTheGroupState(Broker broker, GroupProtocol protocol) {
        String bootstrap = broker.bootstrapServers();
        String topic = named("members-topic", protocol);
        String group = named("members-group", protocol);
        KafkaClients.createTopic(bootstrap, topic, PARTITIONS);
        KafkaClients.produce(bootstrap, records(topic, "v", PER_PARTITION, null));
        Map<Integer, Long> committed = Map.of(0, 4L, 1, 7L, 2, 10L);

        try (KafkaConsumer<String, String> first = KafkaClients.groupMember(bootstrap, group, protocol, "member-a");
                KafkaConsumer<String, String> second =
                        KafkaClients.groupMember(bootstrap, group, protocol, "member-b")) {
            first.subscribe(List.of(topic));
            KafkaClients.pollUntilBalanced(List.of(first), topic, PARTITIONS);
            second.subscribe(List.of(topic));
            KafkaClients.pollUntilBalanced(List.of(first, second), topic, PARTITIONS);
            // Each member commits the offsets of the partitions it holds.
            for (KafkaConsumer<String, String> member : List.of(first, second)) {
                Map<Integer, Long> own = new HashMap<>();
                member.assignment().forEach(tp -> own.put(tp.partition(), committed.get(tp.partition())));
                member.commitSync(offsets(topic, own));
            }
            List<Member> members = List.of(Member.of(first, "member-a"), Member.of(second, "member-b"));

            awaitDescribed(bootstrap, protocol, group, topic, committed, members, List.of(first, second));

            second.close();
            KafkaClients.pollUntilBalanced(List.of(first), topic, PARTITIONS);
            Member alone = Member.of(first, "member-a");
            assertThat(alone.partitions()).hasSize(PARTITIONS);
            awaitMembers(bootstrap, protocol, group, topic, List.of(alone), List.of(first));
        }
    }

    /**
     * Runs the four views side by side until they show the group as its members see it (a member's epoch on the
     * broker can trail its assignment by a heartbeat), polling the members in between so they stay in step:
     * <ul>
     *   <li>{@code --list --type --state}: the group's type and {@code Stable};
     *   <li>{@code --describe}: per partition the committed offset, the log end offset, the lag, and the member that
     *       holds it (member id, host, client id);
     *   <li>{@code --describe --members --verbose}: each member, its partition count and assignment, and (consumer
     *       protocol) its epoch and target assignment: the same as its current ones, at the group's epoch;
     *   <li>{@code --describe --state --verbose}: the coordinator, the assignment strategy, {@code Stable}, two
     *       members, and (consumer protocol) a group epoch equal to the target assignment's.
     * </ul>
     */
    private static void awaitDescribed(
            String bootstrap,
            GroupProtocol protocol,
            String group,
            String topic,
            Map<Integer, Long> committed,
            List<Member> members,
            List<KafkaConsumer<String, String>> consumers) {
        Map<String, List<String>> expectedOffsets = new TreeMap<>();
        for (Member member : members) {
            for (int p : member.partitions()) {
                long offset = committed.get(p);
                expectedOffsets.put(
                        String.valueOf(p),
                        List.of(
                                String.valueOf(offset),
                                String.valueOf(PER_PARTITION),
                                String.valueOf(PER_PARTITION - offset),
                                member.memberId(),
                                HOST,
                                member.clientId()));
            }
        }
        await("the tool showing " + group + " as its members see it")
                .atMost(Duration.ofSeconds(30))
                .pollInSameThread()
                .pollInterval(Duration.ofMillis(1))
                .untilAsserted(() -> {
                    consumers.forEach(consumer -> consumer.poll(Duration.ZERO));
                    List<KafkaCli.Run> runs = KafkaCli.concurrently(
                            () -> consumerGroups(bootstrap, "--list", "--type", "--state"),
                            () -> consumerGroups(bootstrap, "--describe", "--group", group),
                            () -> consumerGroups(bootstrap, "--describe", "--members", "--verbose", "--group", group),
                            () -> consumerGroups(bootstrap, "--describe", "--state", "--verbose", "--group", group));

                    KafkaCli.Run listed = runs.get(0);
                    assertThat(rowsBy(listed, group, "GROUP"))
                            .as(listed::transcript)
                            .hasEntrySatisfying(
                                    group,
                                    row -> assertThat(cells(row, "TYPE", "STATE"))
                                            .isEqualTo(List.of(groupType(protocol), "Stable")));

                    KafkaCli.Run described = runs.get(1);
                    assertThat(offsetRows(described, group, topic))
                            .as(described::transcript)
                            .isEqualTo(expectedOffsets);

                    KafkaCli.Run state = runs.get(3);
                    Map<String, String> groupState =
                            rowsBy(state, group, "GROUP").get(group);
                    assertThat(groupState).as(state::transcript).isNotNull();
                    assertThat(groupState.get("COORDINATOR (ID)"))
                            .as(state::transcript)
                            .startsWith(bootstrap + " ");
                    assertThat(cells(groupState, "ASSIGNMENT-STRATEGY", "STATE", "#MEMBERS"))
                            .as(state::transcript)
                            .isEqualTo(List.of(assignmentStrategy(protocol), "Stable", String.valueOf(members.size())));
                    String epoch = groupState.get("TARGET-ASSIGNMENT-EPOCH");
                    if (protocol == GroupProtocol.CONSUMER) {
                        assertThat(epoch).as(state::transcript).matches("[1-9][0-9]*");
                        assertThat(groupState.get("GROUP-EPOCH"))
                                .as(state::transcript)
                                .isEqualTo(epoch);
                    } else {
                        // Epochs are the consumer protocol's; a classic group has generations, which the tool
                        // does not print.
                        assertThat(cells(groupState, "GROUP-EPOCH", "TARGET-ASSIGNMENT-EPOCH"))
                                .as(state::transcript)
                                .isEqualTo(List.of("-", "-"));
                    }

                    assertMembers(runs.get(2), protocol, group, topic, members, epoch);
                });
    }

    /** {@code --describe --members --verbose} until it shows exactly {@code members}. */
    private static void awaitMembers(
            String bootstrap,
            GroupProtocol protocol,
            String group,
            String topic,
            List<Member> members,
            List<KafkaConsumer<String, String>> consumers) {
        await("the tool showing the members of " + group)
                .atMost(Duration.ofSeconds(30))
                .pollInSameThread()
                .pollInterval(Duration.ofMillis(1))
                .untilAsserted(() -> {
                    consumers.forEach(consumer -> consumer.poll(Duration.ZERO));
                    KafkaCli.Run state =
                            consumerGroups(bootstrap, "--describe", "--state", "--verbose", "--group", group);
                    Map<String, String> groupState =
                            rowsBy(state, group, "GROUP").get(group);
                    assertThat(groupState).as(state::transcript).isNotNull();
                    assertThat(cells(groupState, "STATE", "#MEMBERS"))
                            .as(state::transcript)
                            .isEqualTo(List.of("Stable", String.valueOf(members.size())));
                    KafkaCli.Run described =
                            consumerGroups(bootstrap, "--describe", "--members", "--verbose", "--group", group);
                    assertMembers(
                            described, protocol, group, topic, members, groupState.get("TARGET-ASSIGNMENT-EPOCH"));
                });
    }

    private static void assertMembers(
            KafkaCli.Run described,
            GroupProtocol protocol,
            String group,
            String topic,
            List<Member> members,
            String targetAssignmentEpoch) {
        Map<String, List<String>> expected = new TreeMap<>();
        for (Member member : members) {
            String assignment = member.assignment(topic);
            expected.put(
                    member.memberId(),
                    protocol == GroupProtocol.CONSUMER
                            ? List.of(
                                    HOST,
                                    member.clientId(),
                                    String.valueOf(member.partitions().size()),
                                    targetAssignmentEpoch,
                                    assignment,
                                    targetAssignmentEpoch,
                                    assignment)
                            : List.of(
                                    HOST,
                                    member.clientId(),
                                    String.valueOf(member.partitions().size()),
                                    "-",
                                    assignment,
                                    "-",
                                    "-"));
        }
        Map<String, List<String>> shown = new TreeMap<>();
        rowsBy(described, group, "CONSUMER-ID")
                .forEach((memberId, row) -> shown.put(
                        memberId,
                        cells(
                                row,
                                "HOST",
                                "CLIENT-ID",
                                "#PARTITIONS",
                                "CURRENT-EPOCH",
                                "CURRENT-ASSIGNMENT",
                                "TARGET-EPOCH",
                                "TARGET-ASSIGNMENT")));
        assertThat(shown).as(described::transcript).isEqualTo(expected);
    }
}
