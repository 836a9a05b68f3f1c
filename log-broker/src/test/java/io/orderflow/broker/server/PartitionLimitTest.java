package io.orderflow.broker.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.CreateTopicsOptions;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.errors.PolicyViolationException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code max.partitions} bounds the partitions CreateTopics and CreatePartitions may add, as POLICY_VIOLATION. */
class PartitionLimitTest {
    @TempDir
    Path dataDir;

    private TestBroker broker;

    @AfterEach
    void stop() {
        if (broker != null) {
            broker.close();
        }
    }

    @Test
    void topicsAndPartitionsBeyondMaxPartitionsAreAPolicyViolationAndTheRestStays() throws Exception {
        broker = TestBroker.start(dataDir, Map.of("max.partitions", "20", "auto.create.topics.enable", "false"));
        try (Admin admin = broker.admin()) {
            admin.createTopics(List.of(new NewTopic("first", 15, (short) 1)))
                    .all()
                    .get(30, TimeUnit.SECONDS);

            assertThatThrownBy(() -> admin.createTopics(List.of(new NewTopic("second", 6, (short) 1)))
                            .all()
                            .get(30, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class)
                    .cause()
                    .isInstanceOf(PolicyViolationException.class)
                    .hasMessageContaining("max.partitions=20");
            assertThatThrownBy(() -> admin.createTopics(
                                    List.of(new NewTopic("checked", 6, (short) 1)),
                                    new CreateTopicsOptions().validateOnly(true))
                            .all()
                            .get(30, TimeUnit.SECONDS))
                    .cause()
                    .isInstanceOf(PolicyViolationException.class);
            assertThatThrownBy(() -> admin.createPartitions(Map.of("first", NewPartitions.increaseTo(21)))
                            .all()
                            .get(30, TimeUnit.SECONDS))
                    .cause()
                    .isInstanceOf(PolicyViolationException.class);

            admin.createTopics(List.of(new NewTopic("fits", 5, (short) 1)))
                    .all()
                    .get(30, TimeUnit.SECONDS);
            assertThat(admin.describeTopics(List.of("first", "fits"))
                            .allTopicNames()
                            .get(30, TimeUnit.SECONDS)
                            .values())
                    .extracting(topic -> topic.partitions().size())
                    .containsExactlyInAnyOrder(15, 5);
            assertThat(admin.listTopics().names().get(30, TimeUnit.SECONDS)).containsExactlyInAnyOrder("first", "fits");
        }
    }
}
