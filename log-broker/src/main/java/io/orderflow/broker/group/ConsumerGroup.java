package io.orderflow.broker.group;

import io.orderflow.broker.group.GroupRecord.ConsumerGroupSnapshot;
import io.orderflow.broker.group.GroupRecord.ConsumerMemberSnapshot;
import io.orderflow.broker.group.GroupRecord.SubscribedTopic;
import io.orderflow.broker.group.ServerAssignor.TopicShape;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * A KIP-848 consumer group: its members, its group epoch (bumped whenever membership, a subscription or a subscribed
 * topic's partitions change), and the target assignment computed at the assignment epoch, towards which each member
 * reconciles at its own pace.
 *
 * <p>States are Kafka's: Empty (no member), Assigning (the target lags the group epoch; never seen from outside
 * here, since the target is computed as the epoch moves), Reconciling (some member has not reached the target yet),
 * Stable.
 *
 * <p>Not thread-safe: guarded by the coordinator's lock.
 */
final class ConsumerGroup {
    /** The group states, with Kafka's names. */
    enum State {
        EMPTY("Empty"),
        ASSIGNING("Assigning"),
        RECONCILING("Reconciling"),
        STABLE("Stable");

        private final String kafkaName;

        State(String kafkaName) {
            this.kafkaName = kafkaName;
        }

        String kafkaName() {
            return kafkaName;
        }
    }

    private final String groupId;
    private int groupEpoch;
    private int assignmentEpoch;
    private String assignorName = ServerAssignor.DEFAULT;
    private final Map<String, ConsumerGroupMember> members = new LinkedHashMap<>();
    private final Map<String, String> staticMembers = new HashMap<>();
    private final Map<String, MemberAssignment> target = new HashMap<>();
    private Map<String, TopicShape> subscribedTopics = Map.of();
    private long stateTimestampMs;
    /** The version of the broker's topics its subscribed topics were last computed against; not persisted. */
    private long topicsVersion = -1;

    ConsumerGroup(String groupId, long nowMs) {
        this.groupId = groupId;
        this.stateTimestampMs = nowMs;
    }

    String groupId() {
        return groupId;
    }

    int groupEpoch() {
        return groupEpoch;
    }

    int assignmentEpoch() {
        return assignmentEpoch;
    }

    String assignorName() {
        return assignorName;
    }

    /** The subscribed topics as of the last assignment: a change in them moves the group epoch. */
    Map<String, TopicShape> subscribedTopics() {
        return subscribedTopics;
    }

    /** When the group last became empty (or was created): offsets of an empty group expire from here. */
    long stateTimestampMs() {
        return stateTimestampMs;
    }

    long topicsVersion() {
        return topicsVersion;
    }

    void setTopicsVersion(long version) {
        this.topicsVersion = version;
    }

    State state() {
        if (members.isEmpty()) {
            return State.EMPTY;
        }
        if (assignmentEpoch < groupEpoch) {
            return State.ASSIGNING;
        }
        boolean reconciled = members.values().stream().allMatch(m -> m.isReconciledTo(assignmentEpoch));
        return reconciled ? State.STABLE : State.RECONCILING;
    }

    boolean isEmpty() {
        return members.isEmpty();
    }

    Collection<ConsumerGroupMember> members() {
        return members.values();
    }

    ConsumerGroupMember member(String memberId) {
        return members.get(memberId);
    }

    ConsumerGroupMember staticMember(String instanceId) {
        String memberId = instanceId == null ? null : staticMembers.get(instanceId);
        return memberId == null ? null : members.get(memberId);
    }

    void put(ConsumerGroupMember member) {
        members.put(member.memberId(), member);
        if (member.instanceId() != null) {
            staticMembers.put(member.instanceId(), member.memberId());
        }
    }

    /** Removes a member and its target; when it was the last, the group is empty from {@code nowMs}. */
    void remove(String memberId, long nowMs) {
        ConsumerGroupMember removed = members.remove(memberId);
        if (removed != null && removed.instanceId() != null) {
            staticMembers.remove(removed.instanceId(), memberId);
        }
        target.remove(memberId);
        if (members.isEmpty()) {
            stateTimestampMs = nowMs;
        }
    }

    /** A static member's new incarnation takes the old one's place and target. */
    void replace(ConsumerGroupMember old, ConsumerGroupMember replacement) {
        MemberAssignment oldTarget = target.remove(old.memberId());
        members.remove(old.memberId());
        put(replacement);
        if (oldTarget != null) {
            target.put(replacement.memberId(), oldTarget);
        }
    }

    MemberAssignment target(String memberId) {
        return target.getOrDefault(memberId, MemberAssignment.EMPTY);
    }

    /** A new group epoch with its target assignment, computed by {@code assignor} over {@code topics}. */
    void setTarget(
            int epoch, String assignor, Map<String, TopicShape> topics, Map<String, MemberAssignment> assignment) {
        this.groupEpoch = epoch;
        this.assignmentEpoch = epoch;
        this.assignorName = assignor;
        this.subscribedTopics = Map.copyOf(topics);
        target.clear();
        target.putAll(assignment);
    }

    /** The group as it is persisted: its own record and one per member. */
    record Image(ConsumerGroupSnapshot group, Map<String, ConsumerMemberSnapshot> members) {}

    Image image() {
        List<SubscribedTopic> topics = new ArrayList<>();
        new java.util.TreeMap<>(subscribedTopics)
                .forEach((name, shape) -> topics.add(new SubscribedTopic(name, shape)));
        Map<String, ConsumerMemberSnapshot> snapshots = new LinkedHashMap<>();
        for (ConsumerGroupMember m : members.values()) {
            snapshots.put(
                    m.memberId(),
                    new ConsumerMemberSnapshot(
                            m.memberId(),
                            m.instanceId(),
                            m.rackId(),
                            m.clientId(),
                            m.clientHost(),
                            m.rebalanceTimeoutMs(),
                            m.subscribedTopicNames(),
                            m.subscribedTopicRegex(),
                            m.serverAssignor(),
                            m.memberEpoch(),
                            m.previousMemberEpoch(),
                            m.state(),
                            m.assigned(),
                            m.pendingRevocation(),
                            target(m.memberId())));
        }
        return new Image(
                new ConsumerGroupSnapshot(groupEpoch, assignmentEpoch, assignorName, stateTimestampMs, topics),
                snapshots);
    }

    /** A group as {@link #image()} persisted it. */
    static ConsumerGroup restored(String groupId, Image image) {
        ConsumerGroupSnapshot s = image.group();
        ConsumerGroup group = new ConsumerGroup(groupId, s.stateTimestampMs());
        group.groupEpoch = s.groupEpoch();
        group.assignmentEpoch = s.assignmentEpoch();
        group.assignorName = s.assignor();
        Map<String, TopicShape> topics = new HashMap<>();
        s.topics().forEach(t -> topics.put(t.name(), t.shape()));
        group.subscribedTopics = Map.copyOf(topics);
        for (ConsumerMemberSnapshot ms : image.members().values()) {
            ConsumerGroupMember m = new ConsumerGroupMember(ms.memberId());
            m.setInstanceId(ms.instanceId());
            m.setRackId(ms.rackId());
            m.setClient(ms.clientId(), ms.clientHost());
            m.setRebalanceTimeoutMs(ms.rebalanceTimeoutMs());
            m.setSubscription(ms.topicNames(), ms.topicRegex());
            m.setServerAssignor(ms.assignor());
            m.setEpochs(ms.memberEpoch(), ms.previousMemberEpoch());
            m.setReconciliation(ms.state(), ms.assigned(), ms.pendingRevocation());
            group.put(m);
            group.target.put(ms.memberId(), ms.target());
        }
        return group;
    }

    /**
     * The epoch of the member other than {@code except} that holds the partition (assigned or still to revoke), or -1
     * when it is free: a member may take a partition of its target only once nobody else holds it.
     */
    int ownerEpoch(UUID topic, int partition, String except) {
        for (ConsumerGroupMember m : members.values()) {
            if (!m.memberId().equals(except)
                    && (m.assigned().contains(topic, partition)
                            || m.pendingRevocation().contains(topic, partition))) {
                return m.memberEpoch();
            }
        }
        return -1;
    }

    /** Whether some member consumes {@code topic}, which protects its offsets from OffsetDelete and expiry. */
    boolean isSubscribedTo(String topic) {
        return subscribedTopics.containsKey(topic)
                || members.values().stream()
                        .anyMatch(m -> m.subscribedTopicNames().contains(topic));
    }
}
