package io.orderflow.lag;

import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;

/**
 * What one reading of a cluster saw, over the Kafka protocol only: its brokers, every partition's first and next
 * offsets, and every consumer group's state, members and committed offsets. Immutable.
 */
public record ClusterView(long atMillis, int brokers, List<PartitionOffsets> partitions, List<Group> groups) {

    /** A partition's log start offset (the oldest record) and log end offset (the offset the next record will get). */
    public record PartitionOffsets(String topic, int partition, long startOffset, long endOffset) {
        public TopicPartition topicPartition() {
            return new TopicPartition(topic, partition);
        }
    }

    /** A member of a group, as DescribeGroups reports it, with the partitions assigned to it ("topic-partition"). */
    public record Member(String memberId, String clientId, String host, List<String> assignment) {}

    /** A consumer group: its state (Stable, Empty, ...), members, and committed offset per partition. */
    public record Group(String group, String state, List<Member> members, Map<TopicPartition, Long> committed) {}
}
