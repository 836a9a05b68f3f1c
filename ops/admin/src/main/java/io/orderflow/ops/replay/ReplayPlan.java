package io.orderflow.ops.replay;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;

/**
 * What a replay of a consumer group does, worked out before anything changes: every partition of the topics it
 * resets ({@link PartitionRewind}, in topic and partition order), the start as the report names it, and the topics
 * whose committed offsets it leaves as they are (the group's retry topics, by default). Immutable.
 */
public record ReplayPlan(String group, String start, List<PartitionRewind> partitions, List<String> untouchedTopics) {

    public ReplayPlan {
        partitions = List.copyOf(partitions);
        untouchedTopics = List.copyOf(untouchedTopics);
    }

    /** The offset each partition is reset to. */
    public Map<TopicPartition, Long> targets() {
        Map<TopicPartition, Long> targets = new LinkedHashMap<>();
        partitions.forEach(p -> targets.put(p.partition(), p.target()));
        return targets;
    }

    /** The records the group had read and reads again, over every partition. */
    public long reread() {
        return partitions.stream().mapToLong(PartitionRewind::reread).sum();
    }

    /** The records from the targets to the log end offsets, over every partition. */
    public long toRead() {
        return partitions.stream().mapToLong(PartitionRewind::toRead).sum();
    }
}
