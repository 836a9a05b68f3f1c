package io.orderflow.broker.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LogDirectoryTest {
    @TempDir
    Path dataDir;

    private final ExecutorService flusher = Executors.newSingleThreadExecutor();
    private LogDirectory logs;

    @AfterEach
    void close() {
        if (logs != null) {
            logs.close();
        }
        flusher.shutdown();
    }

    private LogDirectory open() {
        logs = LogDirectory.open(dataDir, LogConfig.defaults(), new ManualClock(0), LogFiles.real(), flusher);
        return logs;
    }

    @Test
    void deletionByIdLeavesARecreatedNamesakeAlone() {
        LogDirectory logs = open();
        UUID first = logs.createTopic("orders", 1, Map.of()).id();
        logs.deleteTopic("orders");
        Topic second = logs.createTopic("orders", 2, Map.of());

        assertThatThrownBy(() -> logs.deleteTopic(first))
                .isInstanceOfSatisfying(
                        TopicException.class,
                        e -> assertThat(e.reason()).isEqualTo(TopicException.Reason.UNKNOWN_TOPIC_ID));
        assertThat(logs.topic("orders")).contains(second);

        assertThat(logs.deleteTopic(second.id())).isEqualTo(second);
        assertThat(logs.topic("orders")).isEmpty();
        assertThat(logs.partition("orders", 1)).isEmpty();
    }

    @Test
    void aPartitionThatCannotBeOpenedClosesTheOnesOpenedBeforeIt() throws Exception {
        open().createTopic("orders", 2, Map.of());
        logs.close();
        logs = null;
        Path second = dataDir.resolve("orders-1");
        try (var files = Files.list(second)) {
            for (Path file : files.toList()) {
                Files.delete(file);
            }
        }
        Files.delete(second);
        Files.writeString(second, "a file where the partition's directory should be");

        assertThatThrownBy(this::open).isInstanceOf(LogStorageException.class);

        assertThat(dataDir.resolve("orders-0").resolve("clean-shutdown"))
                .as("the partition opened first was closed again")
                .exists();
    }

    @Test
    void checkingPartitionGrowthChangesNothing() {
        LogDirectory logs = open();
        logs.createTopic("orders", 2, Map.of());

        assertThat(logs.checkAddPartitions("orders", 3).partitions()).isEqualTo(2);
        assertThat(logs.partition("orders", 2)).isEmpty();
        assertThatThrownBy(() -> logs.checkAddPartitions("orders", 2))
                .isInstanceOfSatisfying(
                        TopicException.class,
                        e -> assertThat(e.reason()).isEqualTo(TopicException.Reason.INVALID_PARTITIONS));
    }

    @org.junit.jupiter.api.Test
    void refusesMorePartitionsThanTheCapInOneRequest(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) {
        try (LogDirectory logs = LogDirectory.open(
                dir, LogConfig.defaults(), java.time.Clock.systemUTC(), LogFiles.real(), Runnable::run)) {
            org.assertj.core.api.Assertions.assertThatThrownBy(
                            () -> logs.createTopic("huge", Integer.MAX_VALUE, java.util.Map.of()))
                    .isInstanceOf(TopicException.class)
                    .hasMessageContaining("1 to " + LogDirectory.MAX_PARTITIONS_PER_TOPIC);
            logs.createTopic("small", 1, java.util.Map.of());
            org.assertj.core.api.Assertions.assertThatThrownBy(
                            () -> logs.addPartitions("small", LogDirectory.MAX_PARTITIONS_PER_TOPIC + 1))
                    .isInstanceOf(TopicException.class);
            org.assertj.core.api.Assertions.assertThat(logs.partitions()).hasSize(1);
        }
    }
}
