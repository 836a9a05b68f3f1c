package io.orderflow.lag;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.GroupListing;
import org.apache.kafka.clients.admin.ListConsumerGroupOffsetsSpec;
import org.apache.kafka.clients.admin.ListGroupsOptions;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * Reads a {@link ClusterView} with the Admin API, as {@code kafka-consumer-groups} and kafka_exporter do: Metadata
 * (brokers, topics and partitions, internal topics left out), ListOffsets (earliest and latest of every partition),
 * ListGroups (consumer groups), DescribeGroups (state and members) and OffsetFetch (committed offsets). A broker that
 * speaks the Kafka protocol is all it needs: ours or an Apache Kafka cluster.
 *
 * <p>Thread-safety: one reading at a time (the monitor's thread); the Admin client is the caller's.
 */
public final class ClusterReader {

    private final Admin admin;
    private final Clock clock;
    private final Duration timeout;

    public ClusterReader(Admin admin, Clock clock, Duration timeout) {
        this.admin = admin;
        this.clock = clock;
        this.timeout = timeout;
    }

    public ClusterView read() throws InterruptedException, ExecutionException, TimeoutException {
        long at = clock.millis();
        int brokers = get(admin.describeCluster().nodes()).size();
        List<String> topics = new ArrayList<>(get(admin.listTopics().names()));
        topics.sort(Comparator.naturalOrder());
        Map<String, TopicDescription> described =
                get(admin.describeTopics(topics).allTopicNames());
        List<TopicPartition> partitions = new ArrayList<>();
        for (String topic : topics) {
            described.get(topic).partitions().forEach(p -> partitions.add(new TopicPartition(topic, p.partition())));
        }
        Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> earliest =
                offsets(partitions, OffsetSpec.earliest());
        Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> latest = offsets(partitions, OffsetSpec.latest());
        List<ClusterView.PartitionOffsets> offsets = partitions.stream()
                .map(p -> new ClusterView.PartitionOffsets(
                        p.topic(),
                        p.partition(),
                        earliest.get(p).offset(),
                        latest.get(p).offset()))
                .toList();

        List<String> groupIds = get(
                        admin.listGroups(ListGroupsOptions.forConsumerGroups()).all())
                .stream()
                .map(GroupListing::groupId)
                .sorted()
                .toList();
        List<ClusterView.Group> groups = new ArrayList<>();
        if (!groupIds.isEmpty()) {
            Map<String, ConsumerGroupDescription> descriptions =
                    get(admin.describeConsumerGroups(groupIds).all());
            Map<String, ListConsumerGroupOffsetsSpec> specs = new HashMap<>();
            groupIds.forEach(g -> specs.put(g, new ListConsumerGroupOffsetsSpec()));
            Map<String, Map<TopicPartition, OffsetAndMetadata>> committed =
                    get(admin.listConsumerGroupOffsets(specs).all());
            for (String groupId : groupIds) {
                ConsumerGroupDescription description = descriptions.get(groupId);
                List<ClusterView.Member> members = description.members().stream()
                        .map(m -> new ClusterView.Member(
                                m.consumerId(),
                                m.clientId(),
                                m.host(),
                                m.assignment().topicPartitions().stream()
                                        .map(TopicPartition::toString)
                                        .sorted()
                                        .toList()))
                        .toList();
                Map<TopicPartition, Long> positions = new HashMap<>();
                committed.getOrDefault(groupId, Map.of()).forEach((partition, offset) -> {
                    if (offset != null) {
                        positions.put(partition, offset.offset());
                    }
                });
                groups.add(new ClusterView.Group(
                        groupId, description.groupState().toString(), members, Map.copyOf(positions)));
            }
        }
        return new ClusterView(at, brokers, offsets, List.copyOf(groups));
    }

    private Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> offsets(
            List<TopicPartition> partitions, OffsetSpec spec)
            throws InterruptedException, ExecutionException, TimeoutException {
        if (partitions.isEmpty()) {
            return Map.of();
        }
        Map<TopicPartition, OffsetSpec> request = new HashMap<>();
        partitions.forEach(p -> request.put(p, spec));
        return get(admin.listOffsets(request).all());
    }

    private <T> T get(org.apache.kafka.common.KafkaFuture<T> future)
            throws InterruptedException, ExecutionException, TimeoutException {
        return future.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }
}
