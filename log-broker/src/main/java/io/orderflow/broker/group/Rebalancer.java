package io.orderflow.broker.group;

import io.orderflow.broker.group.GroupRecord.GroupMetadata;
import io.orderflow.broker.group.GroupRecord.GroupSnapshot;
import io.orderflow.broker.group.GroupRecord.MemberSnapshot;
import io.orderflow.broker.log.LogException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.JoinGroupRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Drives each group's rebalances: starts one (with the initial delay for a new group), completes the join
 * phase when every member has rejoined or the rebalance timeout passes, removes members whose session or sync
 * deadline passes, and hands the assignment (or an error) to members waiting in SyncGroup. These are the
 * transitions between Kafka's group states; the deadlines live in the {@link CoordinatorTimer}, so they fire
 * only when the coordinator ticks.
 *
 * <p>Not thread-safe: every method runs under the coordinator's lock.
 */
final class Rebalancer {
    private static final Logger log = LoggerFactory.getLogger(Rebalancer.class);

    private final Map<String, ClassicGroup> groups;
    private final CoordinatorTimer timer;
    private final GroupCoordinatorConfig config;
    private final Clock clock;
    private final GroupStore store;

    Rebalancer(
            Map<String, ClassicGroup> groups,
            CoordinatorTimer timer,
            GroupCoordinatorConfig config,
            Clock clock,
            GroupStore store) {
        this.groups = groups;
        this.timer = timer;
        this.config = config;
        this.clock = clock;
        this.store = store;
    }

    // ---------------------------------------------------------------- join phase

    static JoinGroupResponseData currentGeneration(ClassicGroup group, String memberId, boolean withMembers) {
        return new JoinGroupResponseData()
                .setMembers(withMembers ? group.joinedMembers() : new ArrayList<>())
                .setMemberId(memberId)
                .setGenerationId(group.generationId())
                .setProtocolName(group.protocolName())
                .setProtocolType(group.protocolType())
                .setLeader(group.leaderId());
    }

    void maybePrepareRebalanceOrCompleteJoin(ClassicGroup group, String reason) {
        if (group.canRebalance()) {
            prepareRebalance(group, reason);
        } else {
            maybeCompleteJoinPhase(group);
        }
    }

    void prepareRebalance(ClassicGroup group, String reason) {
        if (group.isIn(GroupState.COMPLETING_REBALANCE)) {
            // Followers waiting for an assignment that will not come: make them rejoin.
            resetAndPropagateAssignment(group, Errors.REBALANCE_IN_PROGRESS);
        }
        group.clearPendingSyncMembers();
        timer.cancel(syncKey(group.groupId()));

        boolean initial = group.isIn(GroupState.EMPTY);
        if (initial) {
            int delayMs = config.initialRebalanceDelayMs();
            int remainingMs = Math.max(group.rebalanceTimeoutMs() - delayMs, 0);
            scheduleInitialRebalance(group.groupId(), delayMs, remainingMs);
        }
        group.transitionTo(GroupState.PREPARING_REBALANCE, now());
        log.atInfo()
                .addKeyValue("group", group.groupId())
                .addKeyValue("generation", group.generationId())
                .addKeyValue("members", group.size())
                .addKeyValue("reason", reason)
                .log("Preparing to rebalance a group");
        if (!initial) {
            if (group.hasAllMembersJoined()) {
                completeJoinPhase(group);
            } else {
                String groupId = group.groupId();
                timer.schedule(joinKey(groupId), now() + group.rebalanceTimeoutMs(), () -> completeJoinPhase(groupId));
            }
        }
    }

    /**
     * The first rebalance of an empty group waits {@code group.initial.rebalance.delay.ms}, and again while
     * new members keep arriving, but no longer in total than the rebalance timeout.
     */
    private void scheduleInitialRebalance(String groupId, int delayMs, int remainingMs) {
        timer.schedule(joinKey(groupId), now() + delayMs, () -> {
            ClassicGroup group = groups.get(groupId);
            if (group == null) {
                return;
            }
            if (group.newMemberAdded() && remainingMs != 0) {
                group.setNewMemberAdded(false);
                int nextDelayMs = Math.min(config.initialRebalanceDelayMs(), remainingMs);
                scheduleInitialRebalance(groupId, nextDelayMs, Math.max(remainingMs - delayMs, 0));
            } else {
                completeJoinPhase(group);
            }
        });
    }

    /** Completes the join phase unless this is the initial rebalance, still waiting for its delay. */
    void maybeCompleteJoinPhase(ClassicGroup group) {
        if (group.isIn(GroupState.PREPARING_REBALANCE)
                && group.previousState() != GroupState.EMPTY
                && group.hasAllMembersJoined()) {
            completeJoinPhase(group);
        }
    }

    private void completeJoinPhase(String groupId) {
        ClassicGroup group = groups.get(groupId);
        if (group != null) {
            completeJoinPhase(group);
        }
    }

    /**
     * Ends the join phase: dynamic members that did not rejoin are removed (static ones stay), the next
     * generation starts, and every parked JoinGroup is answered, the leader's with the members' metadata.
     */
    private void completeJoinPhase(ClassicGroup group) {
        String groupId = group.groupId();
        timer.cancel(joinKey(groupId));
        if (!group.isIn(GroupState.PREPARING_REBALANCE)) {
            return;
        }
        for (GroupMember failed : group.notYetRejoined()) {
            if (!failed.isStatic()) {
                removeMember(group, failed.memberId());
            }
        }
        if (!group.maybeElectNewJoinedLeader() && !group.isEmptyOfMembers()) {
            // Nobody rejoined: wait another rebalance timeout, while session expiry removes the silent ones.
            log.atWarn()
                    .addKeyValue("group", groupId)
                    .addKeyValue("generation", group.generationId())
                    .log("Group could not complete its rebalance because no member rejoined");
            timer.schedule(joinKey(groupId), now() + group.rebalanceTimeoutMs(), () -> completeJoinPhase(groupId));
            return;
        }
        group.initNextGeneration(now());
        if (group.isIn(GroupState.EMPTY)) {
            log.atInfo()
                    .addKeyValue("group", groupId)
                    .addKeyValue("generation", group.generationId())
                    .log("Group is now empty");
            try {
                store.append(List.of(groupRecord(group, Map.of())));
            } catch (LogException e) {
                // Harmless if lost: after a restart the group comes back with its previous generation, whose
                // members must rejoin or time out anyway.
                log.atWarn()
                        .addKeyValue("group", groupId)
                        .addKeyValue("error", e.getMessage())
                        .log("Cannot write the metadata of an empty group");
            } catch (RuntimeException e) {
                // A bug, not the storage's trouble. No answer depends on this write (as in Kafka, which only logs
                // it), and it may run from a timer: log it with its stack trace and go on, since losing the
                // record is harmless as said above.
                log.atError()
                        .setCause(e)
                        .addKeyValue("group", groupId)
                        .log("Writing the metadata of an empty group failed inside the broker");
            }
            return;
        }
        log.atInfo()
                .addKeyValue("group", groupId)
                .addKeyValue("generation", group.generationId())
                .addKeyValue("members", group.size())
                .addKeyValue("protocol", group.protocolName())
                .log("Group rebalanced");
        for (GroupMember member : group.members()) {
            boolean isLeader = group.isLeader(member.memberId());
            group.completeJoin(member, currentGeneration(group, member.memberId(), isLeader));
            scheduleHeartbeatExpiry(group, member.memberId(), member.sessionTimeoutMs());
            member.setNew(false);
            group.addPendingSyncMember(member.memberId());
        }
        int generation = group.generationId();
        timer.schedule(
                syncKey(groupId), now() + group.rebalanceTimeoutMs(), () -> expirePendingSync(groupId, generation));
    }

    /** Members that got their JoinGroup answer but never sent SyncGroup are removed, and the group rebalances. */
    private void expirePendingSync(String groupId, int generation) {
        ClassicGroup group = groups.get(groupId);
        if (group == null || group.generationId() != generation) {
            return;
        }
        if ((group.isIn(GroupState.COMPLETING_REBALANCE) || group.isIn(GroupState.STABLE))
                && !group.hasReceivedSyncFromAllMembers()) {
            Set<String> silent = group.pendingSyncMembers();
            for (String memberId : silent) {
                removeMember(group, memberId);
            }
            prepareRebalance(group, "members " + silent + " did not send SyncGroup in time");
        }
    }

    // ---------------------------------------------------------------- sync phase

    void removePendingSyncMember(ClassicGroup group, String memberId) {
        group.removePendingSyncMember(memberId);
        boolean syncPhase = group.isIn(GroupState.COMPLETING_REBALANCE) || group.isIn(GroupState.STABLE);
        if (!syncPhase || group.hasReceivedSyncFromAllMembers()) {
            timer.cancel(syncKey(group.groupId()));
        }
    }

    void resetAndPropagateAssignment(ClassicGroup group, Errors error) {
        for (GroupMember m : group.members()) {
            m.setAssignment(GroupMember.NO_ASSIGNMENT);
        }
        propagateAssignment(group, error);
    }

    /**
     * The assignment could not be stored: every member waiting for it fails with {@code failure} (the handlers'
     * {@code ErrorTable} gives the code), and none keeps an assignment.
     */
    void resetAndFailAssignment(ClassicGroup group, Throwable failure) {
        for (GroupMember m : group.members()) {
            m.setAssignment(GroupMember.NO_ASSIGNMENT);
            if (group.failSync(m, failure)) {
                scheduleHeartbeatExpiry(group, m.memberId(), m.sessionTimeoutMs());
            }
        }
    }

    void propagateAssignment(ClassicGroup group, Errors error) {
        boolean ok = error == Errors.NONE;
        for (GroupMember m : group.members()) {
            SyncGroupResponseData response = new SyncGroupResponseData()
                    .setProtocolType(ok ? group.protocolType() : null)
                    .setProtocolName(ok ? group.protocolName() : null)
                    .setAssignment(m.assignment())
                    .setErrorCode(error.code());
            if (group.completeSync(m, response)) {
                // A session that expired while the member waited was ignored; give it a fresh deadline.
                scheduleHeartbeatExpiry(group, m.memberId(), m.sessionTimeoutMs());
            }
        }
    }

    /** Keeps a member alive: an accepted OffsetCommit counts as a heartbeat in Stable and PreparingRebalance. */
    void touch(ClassicGroup group, String memberId) {
        GroupMember member = group.member(memberId);
        if (member != null) {
            scheduleHeartbeatExpiry(group, memberId, member.sessionTimeoutMs());
        }
    }

    // ---------------------------------------------------------------- session expiry

    void scheduleHeartbeatExpiry(ClassicGroup group, String memberId, long timeoutMs) {
        String groupId = group.groupId();
        timer.schedule(heartbeatKey(groupId, memberId), now() + timeoutMs, () -> expireSession(groupId, memberId));
    }

    private void expireSession(String groupId, String memberId) {
        ClassicGroup group = groups.get(groupId);
        if (group == null || group.isIn(GroupState.DEAD)) {
            return;
        }
        if (group.isPendingMember(memberId)) {
            log.atInfo()
                    .addKeyValue("group", groupId)
                    .addKeyValue("memberId", memberId)
                    .log("Pending member did not rejoin in time; removing it");
            group.remove(memberId);
            maybeCompleteJoinAfterRemoval(group);
            return;
        }
        GroupMember member = group.member(memberId);
        if (member == null || member.hasSatisfiedHeartbeat()) {
            return;
        }
        log.atInfo()
                .addKeyValue("group", groupId)
                .addKeyValue("memberId", memberId)
                .log("Member's session expired; removing it");
        removeMember(group, memberId);
        if (group.isIn(GroupState.STABLE) || group.isIn(GroupState.COMPLETING_REBALANCE)) {
            maybePrepareRebalanceOrCompleteJoin(group, "session of " + memberId + " expired");
        } else {
            maybeCompleteJoinAfterRemoval(group);
        }
    }

    private void maybeCompleteJoinAfterRemoval(ClassicGroup group) {
        if (group.isIn(GroupState.PREPARING_REBALANCE) && group.hasAllMembersJoined()) {
            completeJoinPhase(group);
        }
    }

    /**
     * Removes a member, answering its parked requests with UNKNOWN_MEMBER_ID so that a client still alive
     * rejoins, and forgets its session deadline.
     */
    void removeMember(ClassicGroup group, String memberId) {
        GroupMember member = group.member(memberId);
        timer.cancel(heartbeatKey(group.groupId(), memberId));
        if (member != null) {
            group.completeJoin(
                    member, Membership.joinError(JoinGroupRequest.UNKNOWN_MEMBER_ID, Errors.UNKNOWN_MEMBER_ID));
            group.completeSync(member, Membership.syncError(Errors.UNKNOWN_MEMBER_ID));
        }
        group.remove(memberId);
    }

    // ---------------------------------------------------------------- groups as a whole

    /** Restores a group from the log: members come back as they were, with a fresh session each. */
    void restore(ClassicGroup group) {
        groups.put(group.groupId(), group);
        for (GroupMember m : group.members()) {
            scheduleHeartbeatExpiry(group, m.memberId(), m.sessionTimeoutMs());
        }
    }

    /** Forgets a group (deleted, expired, or its creation failed): Dead, no timers, parked requests answered. */
    void dropGroup(ClassicGroup group) {
        for (GroupMember m : List.copyOf(group.members())) {
            removeMember(group, m.memberId());
        }
        timer.cancel(joinKey(group.groupId()));
        timer.cancel(syncKey(group.groupId()));
        group.transitionTo(GroupState.DEAD, now());
        groups.remove(group.groupId(), group);
    }

    /** The group's metadata record, with {@code assignment} overriding the members' current assignments. */
    static GroupMetadata groupRecord(ClassicGroup group, Map<String, byte[]> assignment) {
        List<MemberSnapshot> members = new ArrayList<>();
        String protocol = group.protocolName();
        for (GroupMember m : group.members()) {
            members.add(new MemberSnapshot(
                    m.memberId(),
                    m.groupInstanceId(),
                    m.clientId(),
                    m.clientHost(),
                    m.rebalanceTimeoutMs(),
                    m.sessionTimeoutMs(),
                    protocol == null ? null : m.metadata(protocol),
                    assignment.getOrDefault(m.memberId(), m.assignment())));
        }
        return new GroupMetadata(
                group.groupId(),
                new GroupSnapshot(
                        group.protocolType() == null ? "" : group.protocolType(),
                        group.generationId(),
                        protocol,
                        group.leaderId(),
                        group.stateTimestampMs(),
                        members));
    }

    long now() {
        return clock.millis();
    }

    static String joinKey(String groupId) {
        return "join:" + groupId;
    }

    static String syncKey(String groupId) {
        return "sync:" + groupId;
    }

    static String heartbeatKey(String groupId, String memberId) {
        return "heartbeat:" + groupId.length() + ":" + groupId + memberId;
    }
}
