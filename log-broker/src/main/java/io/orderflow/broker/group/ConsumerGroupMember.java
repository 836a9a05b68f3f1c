package io.orderflow.broker.group;

import java.util.List;

/**
 * A member of a KIP-848 consumer group, as the coordinator knows it: what it told the coordinator in its heartbeats
 * (subscription, assignor, rebalance timeout, instance and rack ids) and where it stands in reconciling its
 * assignment with the group's target: its member epoch, the partitions it may use ({@code assigned}) and those it
 * must give up first ({@code pendingRevocation}).
 *
 * <p>Epoch rules, Kafka's: a member's epoch reaches the group's assignment epoch once it holds no partition the
 * target takes from it; while it still owns partitions to revoke it keeps its old epoch; {@code previousMemberEpoch}
 * lets a member whose heartbeat response was lost come back with the epoch before.
 *
 * <p>Not thread-safe: guarded by the coordinator's lock.
 */
final class ConsumerGroupMember {
    /** The epoch a member sends to leave for good. */
    static final int LEAVE_EPOCH = -1;
    /** The epoch a static member sends when it leaves intending to come back with the same instance id. */
    static final int STATIC_LEAVE_EPOCH = -2;

    /** Where a member is in reconciling its assignment with the target (Kafka's {@code MemberState}). */
    enum State {
        /** Holds exactly its target's partitions that were free, at the assignment epoch. */
        STABLE,
        /** Must first revoke partitions the target gives to others; keeps its old epoch meanwhile. */
        UNREVOKED_PARTITIONS,
        /** At the assignment epoch, waiting for partitions other members still have to revoke. */
        UNRELEASED_PARTITIONS
    }

    private final String memberId;
    private String instanceId;
    private String rackId;
    private String clientId;
    private String clientHost;
    private int rebalanceTimeoutMs;
    private List<String> subscribedTopicNames = List.of();
    private String subscribedTopicRegex;
    private String serverAssignor;
    private int memberEpoch;
    private int previousMemberEpoch;
    private State state = State.STABLE;
    private MemberAssignment assigned = MemberAssignment.EMPTY;
    private MemberAssignment pendingRevocation = MemberAssignment.EMPTY;

    ConsumerGroupMember(String memberId) {
        this.memberId = memberId;
    }

    /** A copy under a new member id: a static member that rejoins replaces its old incarnation. */
    ConsumerGroupMember replacedBy(String newMemberId) {
        ConsumerGroupMember m = new ConsumerGroupMember(newMemberId);
        m.instanceId = instanceId;
        m.rackId = rackId;
        m.clientId = clientId;
        m.clientHost = clientHost;
        m.rebalanceTimeoutMs = rebalanceTimeoutMs;
        m.subscribedTopicNames = subscribedTopicNames;
        m.subscribedTopicRegex = subscribedTopicRegex;
        m.serverAssignor = serverAssignor;
        m.state = state;
        m.assigned = assigned;
        m.pendingRevocation = pendingRevocation;
        return m;
    }

    String memberId() {
        return memberId;
    }

    String instanceId() {
        return instanceId;
    }

    String rackId() {
        return rackId;
    }

    String clientId() {
        return clientId;
    }

    String clientHost() {
        return clientHost;
    }

    int rebalanceTimeoutMs() {
        return rebalanceTimeoutMs;
    }

    List<String> subscribedTopicNames() {
        return subscribedTopicNames;
    }

    String subscribedTopicRegex() {
        return subscribedTopicRegex;
    }

    String serverAssignor() {
        return serverAssignor;
    }

    int memberEpoch() {
        return memberEpoch;
    }

    int previousMemberEpoch() {
        return previousMemberEpoch;
    }

    State state() {
        return state;
    }

    MemberAssignment assigned() {
        return assigned;
    }

    MemberAssignment pendingRevocation() {
        return pendingRevocation;
    }

    /** Whether it is at {@code epoch} holding all of its target. */
    boolean isReconciledTo(int epoch) {
        return state == State.STABLE && memberEpoch == epoch;
    }

    void setClient(String clientId, String clientHost) {
        this.clientId = clientId;
        this.clientHost = clientHost;
    }

    void setInstanceId(String instanceId) {
        this.instanceId = instanceId;
    }

    void setRackId(String rackId) {
        this.rackId = rackId;
    }

    void setRebalanceTimeoutMs(int rebalanceTimeoutMs) {
        this.rebalanceTimeoutMs = rebalanceTimeoutMs;
    }

    void setSubscription(List<String> topicNames, String topicRegex) {
        this.subscribedTopicNames = List.copyOf(topicNames);
        this.subscribedTopicRegex = topicRegex;
    }

    void setServerAssignor(String serverAssignor) {
        this.serverAssignor = serverAssignor;
    }

    /** Moves to {@code epoch}, remembering the epoch before (unless it stays the same). */
    void setMemberEpoch(int epoch) {
        if (epoch != memberEpoch) {
            previousMemberEpoch = memberEpoch;
            memberEpoch = epoch;
        }
    }

    /** Sets both epochs, as a restored or replacing member needs. */
    void setEpochs(int epoch, int previousEpoch) {
        this.memberEpoch = epoch;
        this.previousMemberEpoch = previousEpoch;
    }

    void setReconciliation(State state, MemberAssignment assigned, MemberAssignment pendingRevocation) {
        this.state = state;
        this.assigned = assigned;
        this.pendingRevocation = pendingRevocation;
    }

    @Override
    public String toString() {
        return "ConsumerGroupMember[" + memberId + " epoch " + memberEpoch + " " + state + " assigned " + assigned
                + " revoking " + pendingRevocation + "]";
    }
}
