package io.orderflow.testing;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/** A consumer group's committed offsets, moved as an operator moves them to replay. */
public final class ConsumerGroupOffsets {

    private ConsumerGroupOffsets() {}

    /**
     * What {@code kafka-consumer-groups --reset-offsets --to-earliest --topic TOPIC --execute} does, through the Admin
     * API: every partition of {@code topic} back to its log start. The group must have no members.
     */
    public static void resetToEarliest(String bootstrapServers, String group, String topic)
            throws InterruptedException, ExecutionException, TimeoutException {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers))) {
            Map<TopicPartition, OffsetSpec> earliest = new HashMap<>();
            admin.describeTopics(java.util.List.of(topic))
                    .allTopicNames()
                    .get(30, TimeUnit.SECONDS)
                    .get(topic)
                    .partitions()
                    .forEach(p -> earliest.put(new TopicPartition(topic, p.partition()), OffsetSpec.earliest()));
            Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
            admin.listOffsets(earliest)
                    .all()
                    .get(30, TimeUnit.SECONDS)
                    .forEach((partition, info) -> offsets.put(partition, new OffsetAndMetadata(info.offset())));
            admin.alterConsumerGroupOffsets(group, offsets).all().get(30, TimeUnit.SECONDS);
        }
    }
}
