package io.orderflow.broker.handler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.orderflow.broker.server.TestBroker;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.CreatePartitionsOptions;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InvalidPartitionsException;
import org.apache.kafka.common.errors.InvalidReplicaAssignmentException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** CreatePartitions through the stock admin client, over TCP. */
class CreatePartitionsHandlerTest {
    @TempDir
    Path dataDir;

    private TestBroker broker;
    private Admin admin;

    @BeforeEach
    void start() throws Exception {
        broker = TestBroker.start(dataDir);
        admin = broker.admin();
        broker.createTopic("orders", 1, Map.of());
    }

    @AfterEach
    void stop() {
        admin.close();
        broker.close();
    }

    @Test
    void growsTheTopicAndTheProducerWritesToTheNewPartition() throws Exception {
        admin.createPartitions(Map.of("orders", NewPartitions.increaseTo(3)))
                .all()
                .get(30, TimeUnit.SECONDS);

        assertThat(partitionCount()).isEqualTo(3);
        RecordMetadata written;
        try (KafkaProducer<String, String> producer = broker.producer()) {
            written = producer.send(new ProducerRecord<>("orders", 2, "k", "in the new partition"))
                    .get(30, TimeUnit.SECONDS);
        }
        assertThat(written.partition()).isEqualTo(2);
        assertThat(written.offset()).isZero();
        try (KafkaConsumer<String, String> consumer = broker.consumer()) {
            consumer.assign(List.of(new TopicPartition("orders", 2)));
            List<String> values = new ArrayList<>();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (values.isEmpty() && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                    values.add(r.value());
                }
            }
            assertThat(values).containsExactly("in the new partition");
        }
    }

    @Test
    void validateOnlyChecksButAddsNothing() throws Exception {
        admin.createPartitions(
                        Map.of("orders", NewPartitions.increaseTo(4)), new CreatePartitionsOptions().validateOnly(true))
                .all()
                .get(30, TimeUnit.SECONDS);

        assertThat(partitionCount()).isEqualTo(1);
        assertThatThrownBy(() -> admin.createPartitions(
                                Map.of("orders", NewPartitions.increaseTo(1)),
                                new CreatePartitionsOptions().validateOnly(true))
                        .all()
                        .get(30, TimeUnit.SECONDS))
                .hasCauseInstanceOf(InvalidPartitionsException.class);
    }

    @Test
    void refusesShrinkingAssignmentsAndUnknownTopics() throws Exception {
        broker.createTopic("wide", 3, Map.of());

        assertThatThrownBy(() -> admin.createPartitions(Map.of("wide", NewPartitions.increaseTo(2)))
                        .all()
                        .get(30, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .hasCauseInstanceOf(InvalidPartitionsException.class)
                .hasMessageContaining("has 3 partitions");
        assertThatThrownBy(() -> admin.createPartitions(
                                Map.of("orders", NewPartitions.increaseTo(2, List.of(List.of(1)))))
                        .all()
                        .get(30, TimeUnit.SECONDS))
                .hasCauseInstanceOf(InvalidReplicaAssignmentException.class);
        assertThatThrownBy(() -> admin.createPartitions(Map.of("missing", NewPartitions.increaseTo(2)))
                        .all()
                        .get(30, TimeUnit.SECONDS))
                .hasCauseInstanceOf(UnknownTopicOrPartitionException.class);
        assertThat(partitionCount()).isEqualTo(1);
    }

    private int partitionCount() throws Exception {
        return admin.describeTopics(List.of("orders"))
                .allTopicNames()
                .get(30, TimeUnit.SECONDS)
                .get("orders")
                .partitions()
                .size();
    }
}
