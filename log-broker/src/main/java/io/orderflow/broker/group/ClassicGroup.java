package io.orderflow.broker.group;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.clients.consumer.internals.ConsumerProtocol;
import org.apache.kafka.common.message.JoinGroupRequestData.JoinGroupRequestProtocol;
import org.apache.kafka.common.message.JoinGroupRequestData.JoinGroupRequestProtocolCollection;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.protocol.types.SchemaException;

/**
 * A classic (JoinGroup/SyncGroup) group: its state, generation, chosen protocol, leader and members, and the
 * bookkeeping of a rebalance in progress: members that have rejoined (they hold a parked JoinGroup), members
 * given an id but not yet joined ({@code MEMBER_ID_REQUIRED}, "pending"), and members that have not yet sent
 * SyncGroup.
 *
 * <p>The rules are Kafka's: a protocol is a candidate only if every member supports it, each member votes for
 * its most preferred candidate and the most votes win; the first member to join leads, and a leader that does
 * not rejoin is replaced by a member that did; a static member keeps its {@code group.instance.id} across
 * member ids.
 *
 * <p>Not thread-safe: guarded by the coordinator's lock.
 */
final class ClassicGroup {
    private final String groupId;
    private GroupState state;
    private GroupState previousState = GroupState.DEAD;
    private long stateTimestampMs;
    private String protocolType;
    private String protocolName;
    private int generationId;
    private String leaderId;
    private final Map<String, GroupMember> members = new LinkedHashMap<>();
    private final Map<String, String> staticMembers = new HashMap<>();
    private final Set<String> pendingJoinMembers = new HashSet<>();
    private final Set<String> pendingSyncMembers = new HashSet<>();
    private final Map<String, Integer> protocolSupport = new HashMap<>();
    private int awaitingJoinCount;
    private boolean newMemberAdded;
    private Optional<Set<String>> subscribedTopics = Optional.empty();

    ClassicGroup(String groupId, GroupState state, long nowMs) {
        this.groupId = groupId;
        this.state = state;
        this.stateTimestampMs = nowMs;
    }

    /** A group as it was persisted: generation, protocol and leader; members are added afterwards. */
    static ClassicGroup restored(
            String groupId,
            GroupState state,
            int generationId,
            String protocolType,
            String protocolName,
            String leaderId,
            long stateTimestampMs) {
        ClassicGroup group = new ClassicGroup(groupId, state, stateTimestampMs);
        group.generationId = generationId;
        group.protocolType = protocolType == null || protocolType.isEmpty() ? null : protocolType;
        group.protocolName = protocolName;
        group.leaderId = leaderId;
        return group;
    }

    String groupId() {
        return groupId;
    }

    GroupState state() {
        return state;
    }

    boolean isIn(GroupState s) {
        return state == s;
    }

    GroupState previousState() {
        return previousState;
    }

    long stateTimestampMs() {
        return stateTimestampMs;
    }

    int generationId() {
        return generationId;
    }

    /** The protocol type ({@code consumer} for Kafka consumers), or null while nobody has joined. */
    String protocolType() {
        return protocolType;
    }

    /** The protocol chosen for this generation (the assignor, e.g. {@code range}), or null. */
    String protocolName() {
        return protocolName;
    }

    String leaderId() {
        return leaderId;
    }

    boolean isLeader(String memberId) {
        return memberId != null && memberId.equals(leaderId);
    }

    boolean usesConsumerProtocol() {
        return ConsumerProtocol.PROTOCOL_TYPE.equals(protocolType);
    }

    void transitionTo(GroupState target, long nowMs) {
        if (!target.validPreviousStates().contains(state)) {
            throw new IllegalStateException("Group " + groupId + " cannot move from " + state + " to " + target
                    + " (only from " + target.validPreviousStates() + ")");
        }
        previousState = state;
        state = target;
        stateTimestampMs = nowMs;
    }

    /** Whether a rebalance may start now (from Empty, CompletingRebalance or Stable). */
    boolean canRebalance() {
        return GroupState.PREPARING_REBALANCE.validPreviousStates().contains(state);
    }

    // ---- members

    boolean hasMember(String memberId) {
        return members.containsKey(memberId);
    }

    GroupMember member(String memberId) {
        return members.get(memberId);
    }

    Collection<GroupMember> members() {
        return members.values();
    }

    int size() {
        return members.size();
    }

    boolean isEmptyOfMembers() {
        return members.isEmpty();
    }

    String staticMemberId(String groupInstanceId) {
        return staticMembers.get(groupInstanceId);
    }

    boolean hasStaticMember(String groupInstanceId) {
        return staticMembers.containsKey(groupInstanceId);
    }

    int staticMemberCount() {
        return staticMembers.size();
    }

    /** Adds a member; {@code joinFuture}, when not null, is its parked JoinGroup. */
    void add(GroupMember member, CompletableFuture<JoinGroupResponseData> joinFuture) {
        if (member.isStatic()) {
            if (staticMembers.containsKey(member.groupInstanceId())) {
                throw new IllegalStateException("Static member " + member.groupInstanceId() + " is already in group "
                        + groupId + " as " + staticMembers.get(member.groupInstanceId()));
            }
            staticMembers.put(member.groupInstanceId(), member.memberId());
        }
        if (members.isEmpty()) {
            protocolType = member.protocolType();
        }
        if (leaderId == null) {
            leaderId = member.memberId();
        }
        members.put(member.memberId(), member);
        countProtocols(member, 1);
        member.setAwaitingJoin(joinFuture);
        if (joinFuture != null) {
            awaitingJoinCount++;
        }
        pendingJoinMembers.remove(member.memberId());
    }

    /** Removes a member (or a pending one); a removed leader is replaced by the first remaining member. */
    void remove(String memberId) {
        GroupMember removed = members.remove(memberId);
        if (removed != null) {
            countProtocols(removed, -1);
            if (removed.isAwaitingJoin()) {
                awaitingJoinCount--;
            }
            if (removed.isStatic()) {
                staticMembers.remove(removed.groupInstanceId());
            }
        }
        if (isLeader(memberId)) {
            leaderId = members.isEmpty() ? null : members.keySet().iterator().next();
        }
        pendingJoinMembers.remove(memberId);
        pendingSyncMembers.remove(memberId);
    }

    /**
     * Gives a static member a new member id, keeping its protocols, timeouts and assignment. Whoever is still
     * parked under the old id is answered {@code FENCED_INSTANCE_ID}: it is a stale duplicate.
     */
    GroupMember replaceStaticMember(String groupInstanceId, String oldMemberId, String newMemberId) {
        GroupMember old = members.remove(oldMemberId);
        if (old == null) {
            throw new IllegalStateException("Cannot replace unknown member " + oldMemberId + " of group " + groupId);
        }
        completeJoin(
                old,
                new JoinGroupResponseData()
                        .setMemberId(oldMemberId)
                        .setProtocolName(null)
                        .setProtocolType(null)
                        .setLeader("")
                        .setErrorCode(Errors.FENCED_INSTANCE_ID.code()));
        completeSync(
                old,
                new SyncGroupResponseData().setAssignment(new byte[0]).setErrorCode(Errors.FENCED_INSTANCE_ID.code()));
        GroupMember replacement = old.withMemberId(newMemberId);
        members.put(newMemberId, replacement);
        if (isLeader(oldMemberId)) {
            leaderId = newMemberId;
        }
        staticMembers.put(groupInstanceId, newMemberId);
        return replacement;
    }

    /** Changes a member's protocols and timeouts, and parks (or un-parks, with null) its JoinGroup. */
    void updateMember(
            GroupMember member,
            JoinGroupRequestProtocolCollection protocols,
            int rebalanceTimeoutMs,
            int sessionTimeoutMs,
            CompletableFuture<JoinGroupResponseData> joinFuture) {
        countProtocols(member, -1);
        member.update(protocols, rebalanceTimeoutMs, sessionTimeoutMs);
        countProtocols(member, 1);
        if (joinFuture != null && !member.isAwaitingJoin()) {
            awaitingJoinCount++;
        } else if (joinFuture == null && member.isAwaitingJoin()) {
            awaitingJoinCount--;
        }
        member.setAwaitingJoin(joinFuture);
    }

    // ---- the join phase

    boolean isPendingMember(String memberId) {
        return pendingJoinMembers.contains(memberId);
    }

    void addPendingMember(String memberId) {
        if (members.containsKey(memberId)) {
            throw new IllegalStateException("Member " + memberId + " of group " + groupId + " is not pending");
        }
        pendingJoinMembers.add(memberId);
    }

    int pendingMemberCount() {
        return pendingJoinMembers.size();
    }

    int awaitingJoinCount() {
        return awaitingJoinCount;
    }

    /** Every member has a parked JoinGroup and no given-out member id is still to join. */
    boolean hasAllMembersJoined() {
        return members.size() == awaitingJoinCount && pendingJoinMembers.isEmpty();
    }

    List<GroupMember> notYetRejoined() {
        return members.values().stream().filter(m -> !m.isAwaitingJoin()).toList();
    }

    boolean newMemberAdded() {
        return newMemberAdded;
    }

    void setNewMemberAdded(boolean value) {
        this.newMemberAdded = value;
    }

    /**
     * At the end of the join phase: if the leader did not rejoin, makes a member that did the leader.
     *
     * @return false when no member rejoined (or there is no leader), so the generation cannot advance
     */
    boolean maybeElectNewJoinedLeader() {
        if (leaderId == null) {
            return false;
        }
        if (members.get(leaderId).isAwaitingJoin()) {
            return true;
        }
        for (GroupMember m : members.values()) {
            if (m.isAwaitingJoin()) {
                leaderId = m.memberId();
                return true;
            }
        }
        return false;
    }

    /** Starts the next generation: picks the protocol and moves to CompletingRebalance, or Empty if nobody is left. */
    void initNextGeneration(long nowMs) {
        generationId++;
        if (!members.isEmpty()) {
            protocolName = selectProtocol();
            subscribedTopics = computeSubscribedTopics();
            transitionTo(GroupState.COMPLETING_REBALANCE, nowMs);
        } else {
            protocolName = null;
            subscribedTopics = computeSubscribedTopics();
            transitionTo(GroupState.EMPTY, nowMs);
        }
        pendingSyncMembers.clear();
    }

    /** The protocol all members support that most members prefer. */
    String selectProtocol() {
        if (members.isEmpty()) {
            throw new IllegalStateException("Cannot select a protocol for empty group " + groupId);
        }
        Set<String> candidates = new HashSet<>();
        protocolSupport.forEach((name, count) -> {
            if (count == members.size()) {
                candidates.add(name);
            }
        });
        Map<String, Integer> votes = new LinkedHashMap<>();
        for (GroupMember m : members.values()) {
            votes.merge(m.vote(candidates), 1, Integer::sum);
        }
        String best = null;
        int bestVotes = -1;
        for (Map.Entry<String, Integer> e : votes.entrySet()) {
            if (e.getValue() > bestVotes) {
                best = e.getKey();
                bestVotes = e.getValue();
            }
        }
        return best;
    }

    /**
     * Whether a member of {@code type} supporting {@code protocols} may join: an empty group takes any
     * non-empty type and protocol list; otherwise the type must match and one protocol be supported by all.
     */
    boolean supportsProtocols(String type, JoinGroupRequestProtocolCollection protocols) {
        if (state == GroupState.EMPTY) {
            return type != null && !type.isEmpty() && !protocols.isEmpty();
        }
        if (protocolType == null || !protocolType.equals(type)) {
            return false;
        }
        for (JoinGroupRequestProtocol p : protocols) {
            if (protocolSupport.getOrDefault(p.name(), 0) == members.size()) {
                return true;
            }
        }
        return false;
    }

    private void countProtocols(GroupMember member, int delta) {
        for (JoinGroupRequestProtocol p : member.protocols()) {
            protocolSupport.merge(p.name(), delta, Integer::sum);
        }
    }

    // ---- the sync phase

    void addPendingSyncMember(String memberId) {
        pendingSyncMembers.add(memberId);
    }

    void removePendingSyncMember(String memberId) {
        pendingSyncMembers.remove(memberId);
    }

    boolean hasReceivedSyncFromAllMembers() {
        return pendingSyncMembers.isEmpty();
    }

    Set<String> pendingSyncMembers() {
        return Set.copyOf(pendingSyncMembers);
    }

    void clearPendingSyncMembers() {
        pendingSyncMembers.clear();
    }

    // ---- parked responses

    boolean completeJoin(GroupMember member, JoinGroupResponseData response) {
        if (!member.isAwaitingJoin()) {
            return false;
        }
        member.awaitingJoin().complete(response);
        member.setAwaitingJoin(null);
        awaitingJoinCount--;
        return true;
    }

    boolean completeSync(GroupMember member, SyncGroupResponseData response) {
        if (!member.isAwaitingSync()) {
            return false;
        }
        member.awaitingSync().complete(response);
        member.setAwaitingSync(null);
        return true;
    }

    /** Fails the member's parked SyncGroup with {@code failure}, if it has one; see {@link #completeSync}. */
    boolean failSync(GroupMember member, Throwable failure) {
        if (!member.isAwaitingSync()) {
            return false;
        }
        member.awaitingSync().completeExceptionally(failure);
        member.setAwaitingSync(null);
        return true;
    }

    /** The member list the leader receives in its JoinGroup response: ids and metadata for the chosen protocol. */
    List<JoinGroupResponseData.JoinGroupResponseMember> joinedMembers() {
        List<JoinGroupResponseData.JoinGroupResponseMember> out = new ArrayList<>(members.size());
        for (GroupMember m : members.values()) {
            out.add(new JoinGroupResponseData.JoinGroupResponseMember()
                    .setMemberId(m.memberId())
                    .setGroupInstanceId(m.groupInstanceId())
                    .setMetadata(m.metadata(protocolName)));
        }
        return out;
    }

    // ---- validation shared by SyncGroup, Heartbeat, LeaveGroup and OffsetCommit

    /**
     * Checks that {@code memberId} is a member and, for a static member, still the current incarnation of its
     * {@code group.instance.id}.
     *
     * @return NONE, UNKNOWN_MEMBER_ID or FENCED_INSTANCE_ID
     */
    Errors validateMember(String memberId, String groupInstanceId) {
        if (groupInstanceId != null) {
            String current = staticMembers.get(groupInstanceId);
            if (current == null) {
                return Errors.UNKNOWN_MEMBER_ID;
            }
            if (!current.equals(memberId)) {
                return Errors.FENCED_INSTANCE_ID;
            }
        }
        return members.containsKey(memberId) ? Errors.NONE : Errors.UNKNOWN_MEMBER_ID;
    }

    /**
     * Kafka's OffsetCommit rules for a classic group: generation -1 with no member is a "simple" commit,
     * accepted only while the group is Empty; otherwise the member must be current, in this generation, and
     * the group not waiting for its assignment.
     */
    /**
     * TxnOffsetCommit's check, Kafka's: as {@link #validateOffsetCommit}, except that a producer that names no member
     * and no generation (the producer-only {@code sendOffsetsToTransaction(offsets, groupId)}) may commit for any
     * group, and a rebalance under way does not refuse it.
     */
    Errors validateTransactionalOffsetCommit(String memberId, String groupInstanceId, int generation) {
        if (state != GroupState.DEAD && generation < 0 && memberId.isEmpty() && groupInstanceId == null) {
            return Errors.NONE;
        }
        Errors error = validateOffsetCommit(memberId, groupInstanceId, generation);
        return error == Errors.REBALANCE_IN_PROGRESS ? Errors.NONE : error;
    }

    Errors validateOffsetCommit(String memberId, String groupInstanceId, int generation) {
        if (state == GroupState.DEAD) {
            return Errors.COORDINATOR_NOT_AVAILABLE;
        }
        if (generation < 0 && state == GroupState.EMPTY) {
            return Errors.NONE;
        }
        if (generation >= 0 || !memberId.isEmpty() || groupInstanceId != null) {
            Errors memberError = validateMember(memberId, groupInstanceId);
            if (memberError != Errors.NONE) {
                return memberError;
            }
            if (generation != generationId) {
                return Errors.ILLEGAL_GENERATION;
            }
        } else if (state != GroupState.EMPTY) {
            return Errors.UNKNOWN_MEMBER_ID;
        }
        return state == GroupState.COMPLETING_REBALANCE ? Errors.REBALANCE_IN_PROGRESS : Errors.NONE;
    }

    // ---- subscriptions (OffsetDelete, offset expiry)

    /**
     * Whether the group's members consume {@code topic}. When the subscriptions are unknown (not the consumer
     * protocol, or unreadable), a consumer-protocol group counts as subscribed to everything, as in Kafka.
     */
    boolean isSubscribedTo(String topic) {
        return subscribedTopics.map(t -> t.contains(topic)).orElse(usesConsumerProtocol());
    }

    void refreshSubscribedTopics() {
        subscribedTopics = computeSubscribedTopics();
    }

    private Optional<Set<String>> computeSubscribedTopics() {
        if (!usesConsumerProtocol()) {
            return Optional.empty();
        }
        if (members.isEmpty()) {
            return Optional.of(Set.of());
        }
        if (protocolName == null) {
            return Optional.empty();
        }
        try {
            Set<String> topics = new HashSet<>();
            for (GroupMember m : members.values()) {
                // Version 0 of the subscription is a prefix of every later version.
                ByteBuffer buffer = ByteBuffer.wrap(m.metadata(protocolName));
                ConsumerProtocol.deserializeVersion(buffer);
                topics.addAll(ConsumerProtocol.deserializeConsumerProtocolSubscription(buffer, (short) 0)
                        .topics());
            }
            return Optional.of(topics);
        } catch (SchemaException | java.nio.BufferUnderflowException e) {
            return Optional.empty();
        }
    }

    /** A fresh member id: {@code <group.instance.id or client.id>-<UUID>}, as Kafka makes them. */
    static String newMemberId(String clientId, String groupInstanceId) {
        return (groupInstanceId != null ? groupInstanceId : clientId) + "-" + UUID.randomUUID();
    }

    /** The largest rebalance timeout of the members: how long the join and sync phases may take. */
    int rebalanceTimeoutMs() {
        int max = 0;
        for (GroupMember m : members.values()) {
            max = Math.max(max, m.rebalanceTimeoutMs());
        }
        return max;
    }

    @Override
    public String toString() {
        return "ClassicGroup(" + groupId + ", " + state + ", generation " + generationId + ", " + members.size()
                + " members)";
    }
}
