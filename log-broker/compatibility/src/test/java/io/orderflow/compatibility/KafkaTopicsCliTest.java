package io.orderflow.compatibility;

import static io.orderflow.compatibility.KafkaCli.Tool.TOPICS;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code kafka-topics.sh} (kafka-tools 4.4.0) against our broker: create, list, describe, alter, delete. */
class KafkaTopicsCliTest {
    private static final Pattern PARTITION_LINE = Pattern.compile(
            "\\tTopic: (\\S+)\\tPartition: (\\d+)\\tLeader: (-?\\d+)" + "\\tReplicas: ([\\d,]*)\\tIsr: ([\\d,]*)");

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

    private static KafkaCli.Run topics(String... args) {
        return KafkaCli.runAgainst(broker.bootstrapServers(), TOPICS, args);
    }

    @Test
    void createdTopicIsListedAndDescribedWithItsPartitionsLeaderAndConfigOverride() {
        KafkaCli.Run created = topics(
                        "--create",
                        "--topic",
                        "orders-cli",
                        "--partitions",
                        "3",
                        "--replication-factor",
                        "1",
                        "--config",
                        "retention.ms=3600000")
                .succeeded();
        assertThat(created.stdout()).contains("Created topic orders-cli.");

        assertThat(topics("--list").succeeded().stdoutLines()).contains("orders-cli");

        KafkaCli.Run described = topics("--describe", "--topic", "orders-cli").succeeded();
        String summary = described.stdoutLines().getFirst();
        assertThat(summary)
                .startsWith("Topic: orders-cli\tTopicId: ")
                .contains("\tPartitionCount: 3\t", "\tReplicationFactor: 1\t")
                .endsWith("\tConfigs: retention.ms=3600000");
        assertThat(leadersByPartition(described)).isEqualTo(Map.of(0, 1, 1, 1, 2, 1));
        assertThat(described.stdout()).contains("\tReplicas: 1\tIsr: 1");
    }

    @Test
    void alterPartitionsGrowsTheTopicAndTheNewPartitionHasALeader() {
        topics("--create", "--topic", "grows", "--partitions", "3").succeeded();

        topics("--alter", "--topic", "grows", "--partitions", "4").succeeded();

        KafkaCli.Run described = topics("--describe", "--topic", "grows").succeeded();
        assertThat(described.stdoutLines().getFirst()).contains("\tPartitionCount: 4\t");
        assertThat(leadersByPartition(described)).isEqualTo(Map.of(0, 1, 1, 1, 2, 1, 3, 1));
    }

    @Test
    void creatingAnExistingTopicFailsWithTopicExists() {
        topics("--create", "--topic", "twice", "--partitions", "1").succeeded();

        KafkaCli.Run again = topics("--create", "--topic", "twice", "--partitions", "1");

        assertThat(again.exitCode()).isEqualTo(1);
        assertThat(again.stdout() + again.stderr()).contains("Topic twice already exists");
        assertThat(topics("--create", "--topic", "twice", "--partitions", "1", "--if-not-exists")
                        .exitCode())
                .isZero();
    }

    @Test
    void deletedTopicIsNoLongerListed() {
        topics("--create", "--topic", "short-lived", "--partitions", "2").succeeded();
        assertThat(topics("--list").succeeded().stdoutLines()).contains("short-lived");

        topics("--delete", "--topic", "short-lived").succeeded();

        assertThat(topics("--list").succeeded().stdoutLines()).doesNotContain("short-lived");
    }

    /** Partition to leader, from the per-partition lines of {@code --describe}. */
    private static Map<Integer, Integer> leadersByPartition(KafkaCli.Run described) {
        Map<Integer, Integer> leaders = new TreeMap<>();
        List<String> lines = described.stdoutLines();
        for (String line : lines.subList(1, lines.size())) {
            Matcher m = PARTITION_LINE.matcher(line);
            assertThat(m.lookingAt())
                    .as("partition line %s of\n%s", line, described.stdout())
                    .isTrue();
            leaders.put(Integer.parseInt(m.group(2)), Integer.parseInt(m.group(3)));
        }
        return leaders;
    }
}
