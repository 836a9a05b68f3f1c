package io.orderflow.broker.group;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.HeartbeatResponseData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData.JoinGroupRequestProtocolCollection;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.LeaveGroupRequestData;
import org.apache.kafka.common.message.LeaveGroupRequestData.MemberIdentity;
import org.apache.kafka.common.message.LeaveGroupResponseData;
import org.apache.kafka.common.message.LeaveGroupResponseData.MemberResponse;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.JoinGroupRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The classic membership requests of every group: JoinGroup, SyncGroup, Heartbeat and LeaveGroup, by Kafka's
 * rules step for step (Apache Kafka's {@code GroupMetadataManager}, classic group methods, is the reference).
 * What happens when members do not act (rebalance, sync and session deadlines) is the {@link Rebalancer}'s.
 *
 * <p>A JoinGroup or a follower's SyncGroup may be answered later: its future is parked on the member and
 * completed when the join phase completes, when the leader's assignment arrives, or with an error when the
 * member is removed or fenced. Every parked future is covered by a rebalance, sync or session deadline, so it
 * is completed as long as the coordinator ticks.
 *
 * <p>Group metadata is written to the {@link GroupStore} when the leader's SyncGroup brings the assignment,
 * when a group is created, and when a static member is replaced without a rebalance (the Rebalancer writes it
 * when a group becomes Empty). A write that fails leaves the group as it was, as Kafka does, and fails the
 * request's future (for an assignment: every waiting member's) with the failure itself, whatever it is: this class
 * picks no error code. The handlers' {@code ErrorTable} answers the typed storage failures ({@link GroupStore});
 * anything else is a bug, answered UNKNOWN_SERVER_ERROR and recorded as a fault.
 *
 * <p>Not thread-safe: every method runs under the coordinator's lock.
 */
final class Membership {
    private static final Logger log = LoggerFactory.getLogger(Membership.class);

    /** Pending members (KIP-394) on the whole broker: about 300 bytes each, with its expiry timer. */
    static final int MAX_PENDING_MEMBERS = 10_000;

    private final Map<String, ClassicGroup> groups;
    private final CoordinatorTimer timer;
    private final GroupCoordinatorConfig config;
    private final GroupStore store;
    private final Rebalancer rebalancer;

    Membership(
            Map<String, ClassicGroup> groups,
            CoordinatorTimer timer,
            GroupCoordinatorConfig config,
            GroupStore store,
            Rebalancer rebalancer) {
        this.groups = groups;
        this.timer = timer;
        this.config = config;
        this.store = store;
        this.rebalancer = rebalancer;
    }

    // ---------------------------------------------------------------- JoinGroup

    void join(
            JoinGroupRequestData request,
            short version,
            String clientId,
            String clientHost,
            CompletableFuture<JoinGroupResponseData> future) {
        String groupId = request.groupId();
        String memberId = request.memberId();
        boolean unknownMember = memberId.equals(JoinGroupRequest.UNKNOWN_MEMBER_ID);
        ClassicGroup group = groups.get(groupId);
        boolean isNewGroup = group == null;
        if (isNewGroup) {
            if (!unknownMember) {
                future.complete(joinError(memberId, Errors.UNKNOWN_MEMBER_ID));
                return;
            }
            if (groups.size() >= config.maxGroups()) {
                log.atWarn()
                        .addKeyValue("group", groupId)
                        .addKeyValue("groupMaxCount", config.maxGroups())
                        .log("Refusing a new group: group.max.count reached");
                future.complete(joinError(JoinGroupRequest.UNKNOWN_MEMBER_ID, Errors.GROUP_MAX_SIZE_REACHED));
                return;
            }
            group = new ClassicGroup(groupId, GroupState.EMPTY, rebalancer.now());
            groups.put(groupId, group);
        }
        // A new group's answer waits for the group's record: a member told MEMBER_ID_REQUIRED by a group that
        // could not be stored would rejoin into UNKNOWN_MEMBER_ID and start over, never learning why.
        CompletableFuture<JoinGroupResponseData> answer = isNewGroup ? new CompletableFuture<>() : future;
        boolean wroteRecords;
        if (!acceptJoiningMember(group, memberId)) {
            group.remove(memberId);
            timer.cancel(Rebalancer.heartbeatKey(groupId, memberId));
            answer.complete(joinError(JoinGroupRequest.UNKNOWN_MEMBER_ID, Errors.GROUP_MAX_SIZE_REACHED));
            wroteRecords = false;
        } else if (unknownMember) {
            wroteRecords = joinNewMember(request, version, clientId, clientHost, group, answer);
        } else {
            wroteRecords = joinExistingMember(request, clientId, clientHost, group, answer);
        }
        if (isNewGroup && !wroteRecords) {
            // Persist the group's existence now, so that a restart does not forget a group being formed.
            try {
                store.append(List.of(Rebalancer.groupRecord(group, Map.of())));
            } catch (RuntimeException e) {
                // Whatever failed, nothing was written: undo, and fail the request with it (see the class comment).
                log.atWarn()
                        .addKeyValue("group", groupId)
                        .addKeyValue("error", e.toString())
                        .log("Cannot write the metadata of a new group; dropping it");
                future.completeExceptionally(e);
                rebalancer.dropGroup(group);
                return;
            }
        }
        if (answer != future) {
            answer.whenComplete((response, failure) -> {
                if (failure != null) {
                    future.completeExceptionally(failure);
                } else {
                    future.complete(response);
                }
            });
        }
    }

    /** New members' ids handed out and not yet used, in every group. */
    private int pendingMembers() {
        int pending = 0;
        for (ClassicGroup group : groups.values()) {
            pending += group.pendingMemberCount();
        }
        return pending;
    }

    private boolean acceptJoiningMember(ClassicGroup group, String memberId) {
        return switch (group.state()) {
            case EMPTY, DEAD -> true;
            // The parked count, not the size: the size may exceed a lowered limit, and this way the last
            // members to rejoin are the ones turned away.
            case PREPARING_REBALANCE ->
                (group.hasMember(memberId) && group.member(memberId).isAwaitingJoin())
                        || group.awaitingJoinCount() < config.maxGroupSize();
            case COMPLETING_REBALANCE, STABLE -> group.hasMember(memberId) || group.size() < config.maxGroupSize();
        };
    }

    /** @return whether records were written */
    private boolean joinNewMember(
            JoinGroupRequestData request,
            short version,
            String clientId,
            String clientHost,
            ClassicGroup group,
            CompletableFuture<JoinGroupResponseData> future) {
        if (group.isIn(GroupState.DEAD)) {
            future.complete(joinError(JoinGroupRequest.UNKNOWN_MEMBER_ID, Errors.COORDINATOR_NOT_AVAILABLE));
            return false;
        }
        if (!group.supportsProtocols(request.protocolType(), request.protocols())) {
            future.complete(joinError(JoinGroupRequest.UNKNOWN_MEMBER_ID, Errors.INCONSISTENT_GROUP_PROTOCOL));
            return false;
        }
        String instanceId = request.groupInstanceId();
        String newMemberId = ClassicGroup.newMemberId(clientId, instanceId);
        if (instanceId != null) {
            String existing = group.staticMemberId(instanceId);
            if (existing != null) {
                log.atInfo()
                        .addKeyValue("group", group.groupId())
                        .addKeyValue("groupInstanceId", instanceId)
                        .addKeyValue("state", group.state())
                        .addKeyValue("memberId", newMemberId)
                        .addKeyValue("replacedMemberId", existing)
                        .log("Static member rejoins with an unknown member id; the new id replaces the old");
                return replaceStaticMember(request, version, group, existing, newMemberId, future);
            }
            addMemberAndRebalance(request, clientId, clientHost, group, newMemberId, future);
            return false;
        }
        if (JoinGroupRequest.requiresKnownMemberId(version)) {
            // KIP-394: hand out the id first, count the member as pending until it rejoins with it. Ids handed
            // out and never used stay pending for the session timeout the request chose: bounded by group.max.size
            // in a group and by MAX_PENDING_MEMBERS on the broker (a client rejoins at once, so few are pending).
            if (group.pendingMemberCount() >= config.maxGroupSize() || pendingMembers() >= MAX_PENDING_MEMBERS) {
                future.complete(joinError(JoinGroupRequest.UNKNOWN_MEMBER_ID, Errors.GROUP_MAX_SIZE_REACHED));
                return false;
            }
            group.addPendingMember(newMemberId);
            rebalancer.scheduleHeartbeatExpiry(group, newMemberId, request.sessionTimeoutMs());
            future.complete(joinError(newMemberId, Errors.MEMBER_ID_REQUIRED));
            return false;
        }
        addMemberAndRebalance(request, clientId, clientHost, group, newMemberId, future);
        return false;
    }

    /** @return whether records were written */
    private boolean joinExistingMember(
            JoinGroupRequestData request,
            String clientId,
            String clientHost,
            ClassicGroup group,
            CompletableFuture<JoinGroupResponseData> future) {
        String memberId = request.memberId();
        if (group.isIn(GroupState.DEAD)) {
            future.complete(joinError(memberId, Errors.COORDINATOR_NOT_AVAILABLE));
            return false;
        }
        if (!group.supportsProtocols(request.protocolType(), request.protocols())) {
            future.complete(joinError(memberId, Errors.INCONSISTENT_GROUP_PROTOCOL));
            return false;
        }
        if (group.isPendingMember(memberId)) {
            if (request.groupInstanceId() != null) {
                future.complete(joinError(memberId, Errors.INVALID_REQUEST));
                return false;
            }
            addMemberAndRebalance(request, clientId, clientHost, group, memberId, future);
            return false;
        }
        Errors error = group.validateMember(memberId, request.groupInstanceId());
        if (error != Errors.NONE) {
            future.complete(joinError(memberId, error));
            return false;
        }
        GroupMember member = group.member(memberId);
        switch (group.state()) {
            case PREPARING_REBALANCE -> updateMemberAndRebalance(request, group, member, future);
            case COMPLETING_REBALANCE -> {
                if (member.matches(request.protocols())) {
                    // The member lost our JoinGroup response; send it again.
                    future.complete(Rebalancer.currentGeneration(group, memberId, group.isLeader(memberId)));
                } else {
                    updateMemberAndRebalance(request, group, member, future);
                }
            }
            case STABLE -> {
                if (group.isLeader(memberId) || !member.matches(request.protocols())) {
                    // The leader rejoins to trigger a rebalance (e.g. topic metadata changed), or metadata changed.
                    updateMemberAndRebalance(request, group, member, future);
                } else {
                    future.complete(Rebalancer.currentGeneration(group, memberId, false));
                }
            }
            case EMPTY, DEAD -> future.complete(joinError(memberId, Errors.UNKNOWN_MEMBER_ID));
        }
        return false;
    }

    private void addMemberAndRebalance(
            JoinGroupRequestData request,
            String clientId,
            String clientHost,
            ClassicGroup group,
            String memberId,
            CompletableFuture<JoinGroupResponseData> future) {
        GroupMember member = new GroupMember(
                memberId,
                request.groupInstanceId(),
                clientId,
                clientHost,
                request.rebalanceTimeoutMs(),
                request.sessionTimeoutMs(),
                request.protocolType(),
                request.protocols(),
                GroupMember.NO_ASSIGNMENT);
        member.setNew(true);
        if (group.isIn(GroupState.PREPARING_REBALANCE) && group.previousState() == GroupState.EMPTY) {
            group.setNewMemberAdded(true);
        }
        group.add(member, future);
        // A new member cannot heartbeat while parked, and a client that gave up would leave a defunct member,
        // so new members get a join deadline of their own.
        rebalancer.scheduleHeartbeatExpiry(group, memberId, config.newMemberJoinTimeoutMs());
        rebalancer.maybePrepareRebalanceOrCompleteJoin(group, "new member " + memberId + " joined");
    }

    private void updateMemberAndRebalance(
            JoinGroupRequestData request,
            ClassicGroup group,
            GroupMember member,
            CompletableFuture<JoinGroupResponseData> future) {
        group.updateMember(
                member, request.protocols(), request.rebalanceTimeoutMs(), request.sessionTimeoutMs(), future);
        rebalancer.maybePrepareRebalanceOrCompleteJoin(group, "member " + member.memberId() + " rejoined");
    }

    /**
     * KIP-345: a static member restarted with a new member id takes over its old identity. In a Stable group
     * whose chosen protocol would not change, it keeps its assignment and no rebalance happens.
     *
     * @return whether records were written
     */
    private boolean replaceStaticMember(
            JoinGroupRequestData request,
            short version,
            ClassicGroup group,
            String oldMemberId,
            String newMemberId,
            CompletableFuture<JoinGroupResponseData> future) {
        String instanceId = request.groupInstanceId();
        String previousLeader = group.leaderId();
        GroupMember member = group.replaceStaticMember(instanceId, oldMemberId, newMemberId);
        rebalancer.scheduleHeartbeatExpiry(group, newMemberId, member.sessionTimeoutMs());
        int oldRebalanceTimeoutMs = member.rebalanceTimeoutMs();
        int oldSessionTimeoutMs = member.sessionTimeoutMs();
        JoinGroupRequestProtocolCollection oldProtocols = member.protocols();
        group.updateMember(
                member, request.protocols(), request.rebalanceTimeoutMs(), request.sessionTimeoutMs(), future);

        switch (group.state()) {
            case STABLE -> {
                if (!group.selectProtocol().equals(group.protocolName())) {
                    rebalancer.maybePrepareRebalanceOrCompleteJoin(
                            group, "static member " + instanceId + " changed protocols");
                    return false;
                }
                try {
                    store.append(List.of(Rebalancer.groupRecord(group, Map.of())));
                } catch (RuntimeException e) {
                    log.atWarn()
                            .addKeyValue("group", group.groupId())
                            .addKeyValue("groupInstanceId", instanceId)
                            .addKeyValue("memberId", newMemberId)
                            .addKeyValue("keptMemberId", oldMemberId)
                            .addKeyValue("error", e.toString())
                            .log("Cannot persist a static member's new id; it keeps its old one");
                    group.updateMember(member, oldProtocols, oldRebalanceTimeoutMs, oldSessionTimeoutMs, null);
                    timer.cancel(Rebalancer.heartbeatKey(group.groupId(), newMemberId));
                    GroupMember restored = group.replaceStaticMember(instanceId, newMemberId, oldMemberId);
                    rebalancer.scheduleHeartbeatExpiry(group, oldMemberId, restored.sessionTimeoutMs());
                    future.completeExceptionally(e);
                    return false;
                }
                if (JoinGroupRequest.supportsSkippingAssignment(version)) {
                    // The leader gets the members but must not compute a new assignment (KIP-814).
                    boolean isLeader = group.isLeader(newMemberId);
                    group.completeJoin(
                            member,
                            Rebalancer.currentGeneration(group, newMemberId, isLeader)
                                    .setSkipAssignment(isLeader));
                } else {
                    // Older clients: name the old leader id, so that this member does not think it leads.
                    group.completeJoin(
                            member,
                            Rebalancer.currentGeneration(group, newMemberId, false)
                                    .setLeader(previousLeader));
                }
                return true;
            }
            case COMPLETING_REBALANCE -> {
                // The leader may already be assigning to the old member id: rebalance so the new id gets a share.
                rebalancer.prepareRebalance(
                        group, "static member " + instanceId + " rejoined during CompletingRebalance");
                return false;
            }
            case PREPARING_REBALANCE -> {
                rebalancer.maybeCompleteJoinPhase(group);
                return false;
            }
            default ->
                throw new IllegalStateException("Group " + group.groupId() + " in state " + group.state()
                        + " cannot hold static member " + instanceId);
        }
    }

    static JoinGroupResponseData joinError(String memberId, Errors error) {
        return new JoinGroupResponseData()
                .setMemberId(memberId)
                .setGenerationId(JoinGroupRequest.UNKNOWN_GENERATION_ID)
                .setProtocolName(null)
                .setProtocolType(null)
                .setLeader(JoinGroupRequest.UNKNOWN_MEMBER_ID)
                .setErrorCode(error.code());
    }

    // ---------------------------------------------------------------- SyncGroup

    void sync(SyncGroupRequestData request, CompletableFuture<SyncGroupResponseData> future) {
        ClassicGroup group = groups.get(request.groupId());
        if (group == null || group.isIn(GroupState.EMPTY)) {
            future.complete(syncError(Errors.UNKNOWN_MEMBER_ID));
            return;
        }
        Errors error = validateSync(group, request);
        if (error != Errors.NONE) {
            future.complete(syncError(error));
            return;
        }
        String memberId = request.memberId();
        switch (group.state()) {
            case PREPARING_REBALANCE -> future.complete(syncError(Errors.REBALANCE_IN_PROGRESS));
            case COMPLETING_REBALANCE -> {
                group.member(memberId).setAwaitingSync(future);
                rebalancer.removePendingSyncMember(group, memberId);
                if (group.isLeader(memberId)) {
                    applyLeaderAssignment(group, request);
                }
            }
            case STABLE -> {
                rebalancer.removePendingSyncMember(group, memberId);
                future.complete(new SyncGroupResponseData()
                        .setProtocolType(group.protocolType())
                        .setProtocolName(group.protocolName())
                        .setAssignment(group.member(memberId).assignment()));
            }
            case EMPTY, DEAD -> future.complete(syncError(Errors.UNKNOWN_MEMBER_ID));
        }
    }

    private Errors validateSync(ClassicGroup group, SyncGroupRequestData request) {
        if (group.isIn(GroupState.DEAD)) {
            return Errors.COORDINATOR_NOT_AVAILABLE;
        }
        Errors error = group.validateMember(request.memberId(), request.groupInstanceId());
        if (error != Errors.NONE) {
            return error;
        }
        if (request.generationId() != group.generationId()) {
            return Errors.ILLEGAL_GENERATION;
        }
        if (inconsistent(request.protocolType(), group.protocolType())
                || inconsistent(request.protocolName(), group.protocolName())) {
            return Errors.INCONSISTENT_GROUP_PROTOCOL;
        }
        return Errors.NONE;
    }

    private static boolean inconsistent(String requested, String actual) {
        return requested != null && actual != null && !requested.equals(actual);
    }

    /** The leader's assignment: persisted first; then every member gets its share and the group is Stable. */
    private void applyLeaderAssignment(ClassicGroup group, SyncGroupRequestData request) {
        Map<String, byte[]> assignment = new HashMap<>();
        request.assignments().forEach(a -> assignment.put(a.memberId(), a.assignment()));
        for (GroupMember m : group.members()) {
            assignment.putIfAbsent(m.memberId(), GroupMember.NO_ASSIGNMENT);
        }
        log.atInfo()
                .addKeyValue("group", group.groupId())
                .addKeyValue("generation", group.generationId())
                .addKeyValue("leaderId", request.memberId())
                .addKeyValue("members", group.size())
                .addKeyValue("staticMembers", group.staticMemberCount())
                .log("Group leader sent the assignment");
        try {
            store.append(List.of(Rebalancer.groupRecord(group, assignment)));
        } catch (RuntimeException e) {
            log.atWarn()
                    .addKeyValue("group", group.groupId())
                    .addKeyValue("generation", group.generationId())
                    .addKeyValue("error", e.toString())
                    .log("Cannot write a group's assignment");
            rebalancer.resetAndFailAssignment(group, e);
            rebalancer.maybePrepareRebalanceOrCompleteJoin(group, "the assignment could not be stored: " + e);
            return;
        }
        for (GroupMember m : group.members()) {
            m.setAssignment(assignment.get(m.memberId()));
        }
        rebalancer.propagateAssignment(group, Errors.NONE);
        group.transitionTo(GroupState.STABLE, rebalancer.now());
    }

    static SyncGroupResponseData syncError(Errors error) {
        return new SyncGroupResponseData().setAssignment(new byte[0]).setErrorCode(error.code());
    }

    // ---------------------------------------------------------------- Heartbeat

    HeartbeatResponseData heartbeat(HeartbeatRequestData request) {
        ClassicGroup group = groups.get(request.groupId());
        Errors error;
        if (group == null) {
            error = Errors.UNKNOWN_MEMBER_ID;
        } else if (group.isIn(GroupState.DEAD)) {
            error = Errors.COORDINATOR_NOT_AVAILABLE;
        } else {
            error = group.validateMember(request.memberId(), request.groupInstanceId());
            if (error == Errors.NONE && request.generationId() != group.generationId()) {
                error = Errors.ILLEGAL_GENERATION;
            }
            if (error == Errors.NONE) {
                error = switch (group.state()) {
                    case EMPTY -> Errors.UNKNOWN_MEMBER_ID;
                    case PREPARING_REBALANCE -> Errors.REBALANCE_IN_PROGRESS;
                    default -> Errors.NONE;
                };
                if (!group.isIn(GroupState.EMPTY)) {
                    GroupMember member = group.member(request.memberId());
                    rebalancer.scheduleHeartbeatExpiry(group, member.memberId(), member.sessionTimeoutMs());
                }
            }
        }
        return new HeartbeatResponseData().setErrorCode(error.code());
    }

    // ---------------------------------------------------------------- LeaveGroup

    LeaveGroupResponseData leave(LeaveGroupRequestData request) {
        ClassicGroup group = groups.get(request.groupId());
        List<MemberResponse> responses = new ArrayList<>();
        if (group == null) {
            for (MemberIdentity m : request.members()) {
                responses.add(memberResponse(m, Errors.UNKNOWN_MEMBER_ID));
            }
            return new LeaveGroupResponseData().setMembers(responses);
        }
        if (group.isIn(GroupState.DEAD)) {
            return new LeaveGroupResponseData().setErrorCode(Errors.COORDINATOR_NOT_AVAILABLE.code());
        }
        boolean anyLeft = false;
        for (MemberIdentity m : request.members()) {
            Errors error;
            if (m.memberId().equals(JoinGroupRequest.UNKNOWN_MEMBER_ID)) {
                // Administrative removal by group.instance.id (kafka-consumer-groups --delete ... / Admin API).
                if (m.groupInstanceId() != null && group.hasStaticMember(m.groupInstanceId())) {
                    rebalancer.removeMember(group, group.staticMemberId(m.groupInstanceId()));
                    error = Errors.NONE;
                } else {
                    error = Errors.UNKNOWN_MEMBER_ID;
                }
            } else if (group.isPendingMember(m.memberId())) {
                group.remove(m.memberId());
                timer.cancel(Rebalancer.heartbeatKey(group.groupId(), m.memberId()));
                error = Errors.NONE;
            } else {
                error = group.validateMember(m.memberId(), m.groupInstanceId());
                if (error == Errors.NONE) {
                    rebalancer.removeMember(group, m.memberId());
                }
            }
            anyLeft |= error == Errors.NONE;
            responses.add(memberResponse(m, error));
            log.atInfo()
                    .addKeyValue("group", group.groupId())
                    .addKeyValue("memberId", m.memberId())
                    .addKeyValue("groupInstanceId", m.groupInstanceId())
                    .addKeyValue("result", error)
                    .addKeyValue("reason", m.reason())
                    .log("Member leaves a group");
        }
        if (anyLeft) {
            switch (group.state()) {
                case STABLE, COMPLETING_REBALANCE ->
                    rebalancer.maybePrepareRebalanceOrCompleteJoin(group, "members left");
                case PREPARING_REBALANCE -> rebalancer.maybeCompleteJoinPhase(group);
                default -> {}
            }
        }
        return new LeaveGroupResponseData().setMembers(responses);
    }

    private static MemberResponse memberResponse(MemberIdentity m, Errors error) {
        return new MemberResponse()
                .setMemberId(m.memberId())
                .setGroupInstanceId(m.groupInstanceId())
                .setErrorCode(error.code());
    }
}
