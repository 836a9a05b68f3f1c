package io.orderflow.broker.group;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;

/**
 * Kafka's default server-side assignor, {@code uniform}: spreads partitions as evenly as the subscriptions allow and
 * moves as few as it can from one run to the next.
 *
 * <p>It keeps every partition a member held in the previous target and may still hold (it still subscribes to the
 * topic and the partition exists), gives each partition nobody holds to the eligible member with the fewest, and then
 * moves partitions, one at a time, from a member to an eligible member with at least two fewer until no such move is
 * left. Each move lowers the sum of the squared counts, so this ends; when all members subscribe to the same topics
 * the counts then differ by at most one, and a member that joins takes only its share.
 */
final class UniformAssignor implements ServerAssignor {
    static final String NAME = "uniform";

    @Override
    public String name() {
        return NAME;
    }

    private record Partition(String topic, UUID id, int index) {}

    @Override
    public Map<String, MemberAssignment> assign(SortedMap<String, Subscriber> members, Map<String, TopicShape> topics) {
        Map<String, Set<Partition>> owned = new LinkedHashMap<>();
        Set<Partition> taken = new HashSet<>();
        for (Map.Entry<String, Subscriber> m : members.entrySet()) {
            Set<Partition> keep = new TreeSet<>(ORDER);
            Subscriber s = m.getValue();
            for (String topic : s.topics()) {
                TopicShape shape = topics.get(topic);
                if (shape == null) {
                    continue;
                }
                for (int p : s.current().partitions().getOrDefault(shape.id(), new TreeSet<>())) {
                    Partition partition = new Partition(topic, shape.id(), p);
                    if (p < shape.partitions() && taken.add(partition)) {
                        keep.add(partition);
                    }
                }
            }
            owned.put(m.getKey(), keep);
        }
        List<Partition> free = new ArrayList<>();
        new TreeMap<>(topics).forEach((topic, shape) -> {
            for (int p = 0; p < shape.partitions(); p++) {
                Partition partition = new Partition(topic, shape.id(), p);
                if (!taken.contains(partition) && anySubscribes(members, topic)) {
                    free.add(partition);
                }
            }
        });
        for (Partition partition : free) {
            owned.entrySet().stream()
                    .filter(e -> members.get(e.getKey()).topics().contains(partition.topic()))
                    .min(Comparator.comparingInt((Map.Entry<String, Set<Partition>> e) ->
                            e.getValue().size()))
                    .ifPresent(e -> e.getValue().add(partition));
        }
        while (moveOne(members, owned)) {
            // each move narrows the spread; see the class comment
        }
        Map<String, MemberAssignment> out = new LinkedHashMap<>();
        owned.forEach((member, partitions) -> {
            Map<UUID, Set<Integer>> byTopic = new HashMap<>();
            partitions.forEach(
                    p -> byTopic.computeIfAbsent(p.id(), k -> new HashSet<>()).add(p.index()));
            out.put(member, MemberAssignment.of(byTopic));
        });
        return out;
    }

    private static final Comparator<Partition> ORDER =
            Comparator.comparing(Partition::topic).thenComparingInt(Partition::index);

    private static boolean anySubscribes(SortedMap<String, Subscriber> members, String topic) {
        return members.values().stream().anyMatch(s -> s.topics().contains(topic));
    }

    /** Moves one partition from a fuller member to an eligible one with at least two fewer; false when none can. */
    private static boolean moveOne(SortedMap<String, Subscriber> members, Map<String, Set<Partition>> owned) {
        List<String> byCount = new ArrayList<>(owned.keySet());
        byCount.sort(Comparator.comparingInt(m -> owned.get(m).size()));
        for (int from = byCount.size() - 1; from > 0; from--) {
            Set<Partition> source = owned.get(byCount.get(from));
            for (int to = 0; to < from; to++) {
                Set<Partition> target = owned.get(byCount.get(to));
                if (source.size() - target.size() < 2) {
                    break;
                }
                Set<String> eligible = members.get(byCount.get(to)).topics();
                Partition move = source.stream()
                        .filter(p -> eligible.contains(p.topic()))
                        .reduce((a, b) -> b) // the last, so that low partitions stay put
                        .orElse(null);
                if (move != null) {
                    source.remove(move);
                    target.add(move);
                    return true;
                }
            }
        }
        return false;
    }
}
