package io.orderflow.broker.group;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.function.BiPredicate;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.ConsumerGroupDescribeResponseData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatResponseData;

/**
 * A set of partitions named by topic id and partition index, as KIP-848 assigns them: a member's current
 * assignment, its partitions pending revocation, or its target. Immutable; topics and partitions are kept sorted so
 * that equal sets print and encode alike.
 */
record MemberAssignment(Map<UUID, SortedSet<Integer>> partitions) {
    static final MemberAssignment EMPTY = new MemberAssignment(Map.of());

    MemberAssignment {
        TreeMap<UUID, SortedSet<Integer>> copy = new TreeMap<>();
        partitions.forEach((topic, ps) -> {
            if (!ps.isEmpty()) {
                copy.put(topic, Collections.unmodifiableSortedSet(new TreeSet<>(ps)));
            }
        });
        partitions = Collections.unmodifiableSortedMap(copy);
    }

    static MemberAssignment of(Map<UUID, ? extends Set<Integer>> partitions) {
        Map<UUID, SortedSet<Integer>> sorted = new TreeMap<>();
        partitions.forEach((t, ps) -> sorted.put(t, new TreeSet<>(ps)));
        return new MemberAssignment(sorted);
    }

    /** What a member says it owns; null (unchanged since its last heartbeat) stays null. */
    static MemberAssignment fromRequest(List<ConsumerGroupHeartbeatRequestData.TopicPartitions> owned) {
        if (owned == null) {
            return null;
        }
        Map<UUID, SortedSet<Integer>> out = new TreeMap<>();
        for (ConsumerGroupHeartbeatRequestData.TopicPartitions tp : owned) {
            out.computeIfAbsent(toJava(tp.topicId()), t -> new TreeSet<>()).addAll(tp.partitions());
        }
        return new MemberAssignment(out);
    }

    boolean isEmpty() {
        return partitions.isEmpty();
    }

    int size() {
        return partitions.values().stream().mapToInt(Set::size).sum();
    }

    boolean contains(UUID topic, int partition) {
        SortedSet<Integer> ps = partitions.get(topic);
        return ps != null && ps.contains(partition);
    }

    /** Whether every partition of this set is also in {@code other}. */
    boolean isSubsetOf(MemberAssignment other) {
        return partitions.entrySet().stream()
                .allMatch(e -> e.getValue().stream().allMatch(p -> other.contains(e.getKey(), p)));
    }

    boolean overlaps(MemberAssignment other) {
        return partitions.entrySet().stream()
                .anyMatch(e -> e.getValue().stream().anyMatch(p -> other.contains(e.getKey(), p)));
    }

    MemberAssignment intersect(MemberAssignment other) {
        return filter((t, p) -> other.contains(t, p));
    }

    MemberAssignment minus(MemberAssignment other) {
        return filter((t, p) -> !other.contains(t, p));
    }

    MemberAssignment union(MemberAssignment other) {
        Map<UUID, SortedSet<Integer>> out = new TreeMap<>();
        for (MemberAssignment a : List.of(this, other)) {
            a.partitions.forEach(
                    (t, ps) -> out.computeIfAbsent(t, k -> new TreeSet<>()).addAll(ps));
        }
        return new MemberAssignment(out);
    }

    MemberAssignment filter(BiPredicate<UUID, Integer> keep) {
        Map<UUID, SortedSet<Integer>> out = new TreeMap<>();
        partitions.forEach((t, ps) -> ps.stream()
                .filter(p -> keep.test(t, p))
                .forEach(p -> out.computeIfAbsent(t, k -> new TreeSet<>()).add(p)));
        return new MemberAssignment(out);
    }

    List<ConsumerGroupHeartbeatResponseData.TopicPartitions> toHeartbeat() {
        List<ConsumerGroupHeartbeatResponseData.TopicPartitions> out = new ArrayList<>();
        partitions.forEach((t, ps) -> out.add(new ConsumerGroupHeartbeatResponseData.TopicPartitions()
                .setTopicId(toKafka(t))
                .setPartitions(new ArrayList<>(ps))));
        return out;
    }

    /** For ConsumerGroupDescribe, which names each topic too; a topic deleted meanwhile is left out, as in Kafka. */
    ConsumerGroupDescribeResponseData.Assignment toDescribe(Map<UUID, String> topicNames) {
        List<ConsumerGroupDescribeResponseData.TopicPartitions> out = new ArrayList<>();
        partitions.forEach((t, ps) -> {
            if (topicNames.containsKey(t)) {
                out.add(new ConsumerGroupDescribeResponseData.TopicPartitions()
                        .setTopicId(toKafka(t))
                        .setTopicName(topicNames.get(t))
                        .setPartitions(new ArrayList<>(ps)));
            }
        });
        return new ConsumerGroupDescribeResponseData.Assignment().setTopicPartitions(out);
    }

    static Uuid toKafka(UUID id) {
        return new Uuid(id.getMostSignificantBits(), id.getLeastSignificantBits());
    }

    static UUID toJava(Uuid id) {
        return new UUID(id.getMostSignificantBits(), id.getLeastSignificantBits());
    }

    @Override
    public String toString() {
        return partitions.toString();
    }
}
