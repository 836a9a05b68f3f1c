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
import java.util.UUID;

/**
 * Kafka's server-side {@code range} assignor: for each topic, its subscribers in a fixed order (instance id, else
 * member id) take consecutive ranges of partitions, the first ones one more when the count does not divide evenly.
 * Topics with as many partitions and the same subscribers are therefore co-partitioned: a member gets the same
 * partition numbers of each, which joins by key rely on.
 */
final class RangeAssignor implements ServerAssignor {
    static final String NAME = "range";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public Map<String, MemberAssignment> assign(SortedMap<String, Subscriber> members, Map<String, TopicShape> topics) {
        Map<String, Map<UUID, Set<Integer>>> out = new LinkedHashMap<>();
        members.keySet().forEach(m -> out.put(m, new HashMap<>()));
        topics.forEach((topic, shape) -> {
            List<String> subscribers = new ArrayList<>();
            members.forEach((id, s) -> {
                if (s.topics().contains(topic)) {
                    subscribers.add(id);
                }
            });
            if (subscribers.isEmpty()) {
                return;
            }
            subscribers.sort(Comparator.comparing((String id) -> orderKey(id, members.get(id))));
            int each = shape.partitions() / subscribers.size();
            int extra = shape.partitions() % subscribers.size();
            int next = 0;
            for (int i = 0; i < subscribers.size(); i++) {
                int count = each + (i < extra ? 1 : 0);
                Set<Integer> range = new HashSet<>();
                for (int p = next; p < next + count; p++) {
                    range.add(p);
                }
                next += count;
                out.get(subscribers.get(i)).put(shape.id(), range);
            }
        });
        Map<String, MemberAssignment> result = new LinkedHashMap<>();
        out.forEach((m, a) -> result.put(m, MemberAssignment.of(a)));
        return result;
    }

    private static String orderKey(String memberId, Subscriber s) {
        return s.instanceId() != null ? "0" + s.instanceId() : "1" + memberId;
    }
}
