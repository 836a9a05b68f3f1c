package io.orderflow.broker.group;

import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.UUID;

/**
 * A KIP-848 server-side assignor: from the members' subscriptions and the subscribed topics' partitions, the target
 * assignment of every member. The coordinator runs it whenever the group epoch moves (a member joins, leaves or
 * changes its subscription, or a subscribed topic gains partitions or appears). A member names the one it wants with
 * {@code group.remote.assignor}; {@link #named} lists those served.
 */
sealed interface ServerAssignor permits UniformAssignor, RangeAssignor {
    /** The default, as in Kafka. */
    String DEFAULT = UniformAssignor.NAME;

    /** A subscribed topic as the assignor sees it. */
    record TopicShape(UUID id, int partitions) {}

    /**
     * A member as the assignor sees it.
     *
     * @param topics the names of the existing topics it subscribes to
     * @param current its target assignment before this run (for stickiness)
     * @param instanceId its {@code group.instance.id}, or null
     */
    record Subscriber(Set<String> topics, MemberAssignment current, String instanceId) {}

    String name();

    /**
     * The target assignment: every member of {@code members} gets an entry (perhaps empty), and every partition of
     * a topic some member subscribes to goes to exactly one subscriber of that topic.
     */
    Map<String, MemberAssignment> assign(SortedMap<String, Subscriber> members, Map<String, TopicShape> topics);

    /** The assignor called {@code name}, or null when this broker has none of that name. */
    static ServerAssignor named(String name) {
        return switch (name) {
            case UniformAssignor.NAME -> new UniformAssignor();
            case RangeAssignor.NAME -> new RangeAssignor();
            default -> null;
        };
    }

    static String supported() {
        return UniformAssignor.NAME + ", " + RangeAssignor.NAME;
    }
}
