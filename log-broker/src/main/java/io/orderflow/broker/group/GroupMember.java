package io.orderflow.broker.group;

import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.DescribeGroupsResponseData.DescribedGroupMember;
import org.apache.kafka.common.message.JoinGroupRequestData.JoinGroupRequestProtocol;
import org.apache.kafka.common.message.JoinGroupRequestData.JoinGroupRequestProtocolCollection;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.SyncGroupResponseData;

/**
 * One member of a classic group: who it is (member id, optional {@code group.instance.id} of a static
 * member), the protocols it supports with their metadata, its timeouts, its current assignment, and the
 * JoinGroup or SyncGroup response it is waiting for, if any.
 *
 * <p>Not thread-safe: guarded by the coordinator's lock, like its {@link ClassicGroup}.
 */
final class GroupMember {
    static final byte[] NO_ASSIGNMENT = new byte[0];

    private final String memberId;
    private final String groupInstanceId;
    private final String clientId;
    private final String clientHost;
    private final String protocolType;
    private int rebalanceTimeoutMs;
    private int sessionTimeoutMs;
    private JoinGroupRequestProtocolCollection protocols;
    private byte[] assignment;
    private CompletableFuture<JoinGroupResponseData> awaitingJoin;
    private CompletableFuture<SyncGroupResponseData> awaitingSync;
    private boolean isNew;

    GroupMember(
            String memberId,
            String groupInstanceId,
            String clientId,
            String clientHost,
            int rebalanceTimeoutMs,
            int sessionTimeoutMs,
            String protocolType,
            JoinGroupRequestProtocolCollection protocols,
            byte[] assignment) {
        this.memberId = memberId;
        this.groupInstanceId = groupInstanceId;
        this.clientId = clientId;
        this.clientHost = clientHost;
        this.rebalanceTimeoutMs = rebalanceTimeoutMs;
        this.sessionTimeoutMs = sessionTimeoutMs;
        this.protocolType = protocolType;
        this.protocols = protocols;
        this.assignment = assignment;
    }

    /** The same member under a new member id: what a restarted static member becomes. */
    GroupMember withMemberId(String newMemberId) {
        return new GroupMember(
                newMemberId,
                groupInstanceId,
                clientId,
                clientHost,
                rebalanceTimeoutMs,
                sessionTimeoutMs,
                protocolType,
                protocols,
                assignment);
    }

    String memberId() {
        return memberId;
    }

    /** The static member's {@code group.instance.id}, or null for a dynamic member. */
    String groupInstanceId() {
        return groupInstanceId;
    }

    boolean isStatic() {
        return groupInstanceId != null;
    }

    String clientId() {
        return clientId;
    }

    String clientHost() {
        return clientHost;
    }

    String protocolType() {
        return protocolType;
    }

    int rebalanceTimeoutMs() {
        return rebalanceTimeoutMs;
    }

    int sessionTimeoutMs() {
        return sessionTimeoutMs;
    }

    JoinGroupRequestProtocolCollection protocols() {
        return protocols;
    }

    byte[] assignment() {
        return assignment;
    }

    void setAssignment(byte[] assignment) {
        this.assignment = assignment;
    }

    void update(JoinGroupRequestProtocolCollection protocols, int rebalanceTimeoutMs, int sessionTimeoutMs) {
        this.protocols = protocols;
        this.rebalanceTimeoutMs = rebalanceTimeoutMs;
        this.sessionTimeoutMs = sessionTimeoutMs;
    }

    /** The metadata this member sent for {@code protocol}. */
    byte[] metadata(String protocol) {
        JoinGroupRequestProtocol p = protocols.find(protocol);
        if (p == null) {
            throw new IllegalStateException("Member " + memberId + " does not support protocol " + protocol);
        }
        return p.metadata();
    }

    /** Same protocols, in the same order, with the same metadata: a rejoin that changes nothing. */
    boolean matches(JoinGroupRequestProtocolCollection other) {
        return protocols.equals(other);
    }

    /** This member's vote: the first of its protocols, in its order of preference, that all members support. */
    String vote(Set<String> candidates) {
        for (JoinGroupRequestProtocol p : protocols) {
            if (candidates.contains(p.name())) {
                return p.name();
            }
        }
        throw new IllegalStateException("Member " + memberId + " supports none of " + candidates);
    }

    CompletableFuture<JoinGroupResponseData> awaitingJoin() {
        return awaitingJoin;
    }

    void setAwaitingJoin(CompletableFuture<JoinGroupResponseData> future) {
        this.awaitingJoin = future;
    }

    boolean isAwaitingJoin() {
        return awaitingJoin != null;
    }

    CompletableFuture<SyncGroupResponseData> awaitingSync() {
        return awaitingSync;
    }

    void setAwaitingSync(CompletableFuture<SyncGroupResponseData> future) {
        this.awaitingSync = future;
    }

    boolean isAwaitingSync() {
        return awaitingSync != null;
    }

    /** True from a new member's first JoinGroup until the join phase it joined completes. */
    boolean isNew() {
        return isNew;
    }

    void setNew(boolean isNew) {
        this.isNew = isNew;
    }

    /**
     * Whether an expired session timer should spare this member: a member parked in JoinGroup or SyncGroup
     * cannot heartbeat, so it counts as alive, except a new member, whose join may be abandoned.
     */
    boolean hasSatisfiedHeartbeat() {
        return !isNew && (isAwaitingJoin() || isAwaitingSync());
    }

    DescribedGroupMember describe(String protocol) {
        return new DescribedGroupMember()
                .setMemberId(memberId)
                .setGroupInstanceId(groupInstanceId)
                .setClientId(clientId)
                .setClientHost(clientHost)
                .setMemberMetadata(protocol == null ? new byte[0] : metadata(protocol))
                .setMemberAssignment(assignment);
    }

    @Override
    public String toString() {
        return "GroupMember(" + memberId + (groupInstanceId == null ? "" : ", instance " + groupInstanceId) + ")";
    }
}
