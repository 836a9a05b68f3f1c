package io.orderflow.compatibility;

import static io.orderflow.compatibility.KafkaCli.Tool.CONSOLE_CONSUMER;
import static io.orderflow.compatibility.KafkaCli.Tool.CONSOLE_PRODUCER;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.GroupProtocol;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.GroupType;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@code kafka-console-producer.sh} writes keyed lines and {@code kafka-console-consumer.sh} reads them back,
 * both from kafka-tools 4.4.0, against our broker.
 *
 * <p>The options are the 4.4.0 spellings: {@code --reader-property} and {@code --formatter-property} replace the
 * deprecated {@code --property}, which still works but prints a deprecation notice to stdout.
 */
class ConsoleProducerConsumerTest {
    private static final int LINES = 60;
    private static final int KEYS = 6;

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

    /** {@code customer-K:line-I} for I in 0..LINES-1, K = I % KEYS: every key has several lines, in order. */
    private static List<String> keyedLines() {
        return IntStream.range(0, LINES)
                .mapToObj(i -> "customer-" + (i % KEYS) + ":line-" + i)
                .toList();
    }

    private static void produceWithConsoleProducer(String topic, List<String> lines) {
        KafkaCli.run(
                        CONSOLE_PRODUCER,
                        String.join("\n", lines) + "\n",
                        Duration.ofSeconds(60),
                        "--bootstrap-server",
                        broker.bootstrapServers(),
                        "--topic",
                        topic,
                        "--reader-property",
                        "parse.key=true",
                        "--reader-property",
                        "key.separator=:")
                .succeeded();
    }

    /** The console consumer's lines that are records ({@code key:value}), without its notices. */
    private static List<String> records(KafkaCli.Run consumed) {
        return consumed.stdoutLines().stream()
                .filter(line -> line.startsWith("customer-"))
                .toList();
    }

    /**
     * The console consumer subscribes in a group of its own, once per group protocol ({@code --command-property
     * group.protocol=...}), reads every line and commits; the group it leaves behind has the type of that protocol.
     */
    @ParameterizedTest(name = "group.protocol={0}")
    @EnumSource(GroupProtocol.class)
    void consoleConsumerInAGroupReadsBackEveryKeyedLineInPerKeyOrder(GroupProtocol protocol) throws Exception {
        String name = "console-group-" + protocol.name().toLowerCase(Locale.ROOT);
        KafkaClients.createTopic(broker.bootstrapServers(), name, 3);
        produceWithConsoleProducer(name, keyedLines());

        KafkaCli.Run consumed = KafkaCli.run(
                        CONSOLE_CONSUMER,
                        "",
                        Duration.ofSeconds(60),
                        "--bootstrap-server",
                        broker.bootstrapServers(),
                        "--topic",
                        name,
                        "--group",
                        name,
                        "--command-property",
                        "group.protocol=" + protocol.name().toLowerCase(Locale.ROOT),
                        "--from-beginning",
                        "--max-messages",
                        String.valueOf(LINES),
                        "--timeout-ms",
                        "30000",
                        "--formatter-property",
                        "print.key=true",
                        "--formatter-property",
                        "key.separator=:")
                .succeeded();

        List<String> received = records(consumed);
        assertThat(received).as(consumed::transcript).containsExactlyInAnyOrderElementsOf(keyedLines());
        assertThat(byKey(received)).isEqualTo(byKey(keyedLines()));
        assertThat(consumed.stderr()).contains("Processed a total of " + LINES + " messages");
        try (Admin admin =
                Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()))) {
            ConsumerGroupDescription group =
                    admin.describeConsumerGroups(List.of(name)).all().get().get(name);
            assertThat(group.type())
                    .isEqualTo(protocol == GroupProtocol.CONSUMER ? GroupType.CONSUMER : GroupType.CLASSIC);
            assertThat(group.groupState()).isEqualTo(GroupState.EMPTY);
            long committed =
                    admin.listConsumerGroupOffsets(name).partitionsToOffsetAndMetadata().get().values().stream()
                            .mapToLong(OffsetAndMetadata::offset)
                            .sum();
            assertThat(committed)
                    .as("offsets committed by the console consumer")
                    .isEqualTo(LINES);
        }
    }

    @Test
    void consoleConsumerAssignedToEachPartitionReadsItFromTheBeginning() throws Exception {
        KafkaClients.createTopic(broker.bootstrapServers(), "console-assigned", 3);
        produceWithConsoleProducer("console-assigned", keyedLines());

        Map<Integer, Long> endOffsets = endOffsets("console-assigned", 3);
        assertThat(endOffsets.values().stream().mapToLong(Long::longValue).sum())
                .isEqualTo(LINES);
        List<String> received = new ArrayList<>();
        for (int partition = 0; partition < 3; partition++) {
            if (endOffsets.get(partition) == 0) {
                continue;
            }
            KafkaCli.Run consumed = KafkaCli.run(
                            CONSOLE_CONSUMER,
                            "",
                            Duration.ofSeconds(60),
                            "--bootstrap-server",
                            broker.bootstrapServers(),
                            "--topic",
                            "console-assigned",
                            "--partition",
                            String.valueOf(partition),
                            "--from-beginning",
                            "--max-messages",
                            String.valueOf(endOffsets.get(partition)),
                            "--timeout-ms",
                            "30000",
                            "--formatter-property",
                            "print.key=true",
                            "--formatter-property",
                            "key.separator=:")
                    .succeeded();
            List<String> fromPartition = records(consumed);
            assertThat(fromPartition)
                    .as(consumed::transcript)
                    .hasSize(endOffsets.get(partition).intValue());
            received.addAll(fromPartition);
        }

        assertThat(received).containsExactlyInAnyOrderElementsOf(keyedLines());
        // The default partitioner put each key in one partition, so reading partition by partition keeps the
        // order of every key's lines.
        assertThat(byKey(received)).isEqualTo(byKey(keyedLines()));
    }

    private static Map<String, List<String>> byKey(List<String> lines) {
        return lines.stream()
                .collect(Collectors.groupingBy(
                        line -> line.substring(0, line.indexOf(':')),
                        LinkedHashMap::new,
                        Collectors.mapping(line -> line.substring(line.indexOf(':') + 1), Collectors.toList())));
    }

    private static Map<Integer, Long> endOffsets(String topic, int partitions) throws Exception {
        try (Admin admin =
                Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()))) {
            Map<TopicPartition, OffsetSpec> latest = new LinkedHashMap<>();
            for (int p = 0; p < partitions; p++) {
                latest.put(new TopicPartition(topic, p), OffsetSpec.latest());
            }
            Map<Integer, Long> ends = new LinkedHashMap<>();
            admin.listOffsets(latest).all().get().forEach((tp, info) -> ends.put(tp.partition(), info.offset()));
            return ends;
        }
    }
}
