package io.orderflow.broker.group;

import io.orderflow.broker.group.GroupRecord.ConsumerGroupMetadata;
import io.orderflow.broker.group.GroupRecord.ConsumerGroupSnapshot;
import io.orderflow.broker.group.GroupRecord.ConsumerMember;
import io.orderflow.broker.group.GroupRecord.ConsumerMemberSnapshot;
import io.orderflow.broker.group.GroupRecord.GroupMetadata;
import io.orderflow.broker.group.GroupRecord.GroupSnapshot;
import io.orderflow.broker.group.GroupRecord.MemberSnapshot;
import io.orderflow.broker.group.GroupRecord.OffsetCommit;
import io.orderflow.broker.log.PartitionLog;
import io.orderflow.broker.log.Topic;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.ConsumerGroupDescribeResponseData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatResponseData;
import org.apache.kafka.common.message.DeleteGroupsResponseData.DeletableGroupResultCollection;
import org.apache.kafka.common.message.DescribeGroupsResponseData.DescribedGroup;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.HeartbeatResponseData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData.JoinGroupRequestProtocol;
import org.apache.kafka.common.message.JoinGroupRequestData.JoinGroupRequestProtocolCollection;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.LeaveGroupRequestData;
import org.apache.kafka.common.message.LeaveGroupResponseData;
import org.apache.kafka.common.message.ListGroupsRequestData;
import org.apache.kafka.common.message.ListGroupsResponseData;
import org.apache.kafka.common.message.ListGroupsResponseData.ListedGroup;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.message.OffsetDeleteRequestData;
import org.apache.kafka.common.message.OffsetDeleteResponseData;
import org.apache.kafka.common.message.OffsetFetchRequestData.OffsetFetchRequestGroup;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponseGroup;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData;
import org.apache.kafka.common.message.TxnOffsetCommitResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The group coordinator: classic group membership (JoinGroup, SyncGroup, Heartbeat, LeaveGroup: {@link
 * Membership}, with the {@link Rebalancer} driving rebalances and timeouts), KIP-848 consumer groups
 * (ConsumerGroupHeartbeat, ConsumerGroupDescribe: {@link ConsumerMembership}), committed offsets (OffsetCommit,
 * OffsetFetch, OffsetDelete: {@link OffsetRequests}) shared by both kinds, and group administration (ListGroups,
 * DescribeGroups, DeleteGroups). This broker is a single node, so it coordinates every group.
 *
 * <p><b>Two protocols, one namespace.</b> A group id names either a classic group or a consumer group. An empty group
 * converts to the other protocol when a member of that protocol joins it (its committed offsets stay), as Kafka
 * allows; a group with members refuses the other protocol's members: a JoinGroup gets INCONSISTENT_GROUP_PROTOCOL, a
 * ConsumerGroupHeartbeat GROUP_ID_NOT_FOUND. Kafka can also migrate a group with members online; this broker
 * cannot.
 *
 * <p><b>A state machine.</b> Each operation takes request data and the time of the injected clock, changes
 * the groups, writes the records to persist to the {@link GroupStore}, and answers with response data.
 * Timeouts are deadlines on that clock which only {@link #tick()} fires, so tests move a manual clock
 * instead of sleeping. States are Kafka's: Empty, PreparingRebalance, CompletingRebalance, Stable, Dead
 * ({@link GroupState}).
 *
 * <p><b>Responses wait.</b> Every method returns a future. A JoinGroup is answered when the rebalance's join
 * phase completes, a follower's SyncGroup when the leader's assignment arrives; all are answered only once
 * the records written before them are durable, so no client acts on a state a crash could take back. Each
 * parked request is covered by a rebalance, sync or session deadline; the caller still bounds its wait (see
 * {@link #maxParkedWaitMs}).
 *
 * <p><b>Failures.</b> A write that fails is not applied, and the request's future fails with the failure itself:
 * this package picks no error code for it. The {@link GroupStore} types the storage's failures, naming the groups,
 * the partition and the offset, and the handlers' {@code ErrorTable} answers each (a failing disk:
 * KAFKA_STORAGE_ERROR; a closed coordinator: NOT_COORDINATOR); anything else is a bug, which the broker answers
 * UNKNOWN_SERVER_ERROR and records as a fault. If instead the fsync after a write fails, the request fails the
 * same way but the change stays in memory (Kafka would roll it back): the offsets log is then failing anyway. A
 * method never throws; every failure arrives through its future.
 *
 * <p><b>What is persisted</b> (in {@code __consumer_offsets}, compacted): every committed offset with its
 * metadata, and each group's metadata when a generation gets its assignment, when the group becomes Empty,
 * when it is created and when a static member is replaced; tombstones for deleted offsets and groups. Not
 * persisted: rebalances in progress, pending members, session deadlines.
 *
 * <p><b>After a crash or restart</b> the log is replayed: offsets come back exactly as last acknowledged;
 * each group comes back as of its last persisted metadata. As in Kafka, a group persisted with members comes
 * back Stable with those members and assignments, each with a fresh session timeout: consumers that keep
 * heartbeating carry on without a rebalance, the others are expired and the group rebalances. A rebalance
 * that was in progress is forgotten; its members' rejoin starts a new one.
 *
 * <p><b>Wiring.</b> Open the log with {@link GroupStore#openLog}, construct the coordinator (it replays the
 * log before returning), call {@link #tick()} every 100 ms or so, give the log the same housekeeping as the
 * other partitions ({@code PartitionLog.tick()}, {@code LogCleaner.clean}), and {@link #close()} the
 * coordinator before closing the log.
 *
 * <p><b>Thread-safety.</b> Thread-safe: one lock guards every group, taken for the (short, non-blocking)
 * duration of each operation and tick; nothing waits while holding it, and the storage layer never calls
 * back into it. Parked requests wait outside the lock on their futures.
 */
public final class GroupCoordinator {
    private static final Logger log = LoggerFactory.getLogger(GroupCoordinator.class);
    /** Kafka clients allow a JoinGroup this much longer than the rebalance timeout; so do our waits. */
    private static final int WAIT_SLACK_MS = 5000;

    private final ReentrantLock lock = new ReentrantLock();
    private final Map<String, ClassicGroup> groups = new HashMap<>();
    private final Map<String, ConsumerGroup> consumerGroups = new HashMap<>();
    private final PendingTransactionalOffsets pending = new PendingTransactionalOffsets();
    private final CommittedOffsets offsets = new CommittedOffsets(pending);
    private final CoordinatorTimer timer = new CoordinatorTimer();
    private final GroupCoordinatorConfig config;
    private final Clock clock;
    private final GroupStore store;
    private final Rebalancer rebalancer;
    private final Membership membership;
    private final OffsetRequests offsetRequests;
    private final ConsumerMembership consumerMembership;
    private long nextOffsetExpiryMs;
    private boolean closed;

    /**
     * Replays {@code offsetsLog} (see {@link GroupStore#openLog}) and starts coordinating.
     *
     * @param offsetsLog the {@code __consumer_offsets} partition; the caller keeps ticking, compacting and
     *     finally closing it
     */
    public GroupCoordinator(PartitionLog offsetsLog, GroupCoordinatorConfig config, Clock clock) {
        this(offsetsLog, config, clock, List::of);
    }

    /**
     * Replays {@code offsetsLog} and starts coordinating.
     *
     * @param topics the broker's topics, which KIP-848 groups subscribe to and the coordinator assigns
     */
    public GroupCoordinator(
            PartitionLog offsetsLog,
            GroupCoordinatorConfig config,
            Clock clock,
            java.util.function.Supplier<Collection<Topic>> topics) {
        this.config = config;
        this.clock = clock;
        this.store = new GroupStore(offsetsLog, clock);
        this.rebalancer = new Rebalancer(groups, timer, config, clock, store);
        this.membership = new Membership(groups, timer, config, store, rebalancer);
        this.consumerMembership = new ConsumerMembership(consumerGroups, timer, config, store, topics, clock);
        this.offsetRequests = new OffsetRequests(
                groups, consumerGroups, consumerMembership, offsets, pending, rebalancer, store, config, clock);
        this.nextOffsetExpiryMs = clock.millis() + config.offsetsRetentionCheckIntervalMs();
        load();
    }

    public GroupCoordinatorConfig config() {
        return config;
    }

    // ---------------------------------------------------------------- membership

    /**
     * JoinGroup. The future completes when the member is in the next generation (or is refused); for a new
     * group's first rebalance that is after {@code group.initial.rebalance.delay.ms} and a tick.
     *
     * @param clientId and {@code clientHost} name the member in DescribeGroups and its generated member id
     */
    public CompletableFuture<JoinGroupResponseData> joinGroup(
            JoinGroupRequestData request, short version, String clientId, String clientHost) {
        if (request.groupId() == null || request.groupId().isEmpty()) {
            return done(Membership.joinError(request.memberId(), Errors.INVALID_GROUP_ID));
        }
        if (request.sessionTimeoutMs() < config.minSessionTimeoutMs()
                || request.sessionTimeoutMs() > config.maxSessionTimeoutMs()) {
            return done(Membership.joinError(request.memberId(), Errors.INVALID_SESSION_TIMEOUT));
        }
        CompletableFuture<JoinGroupResponseData> parked = new CompletableFuture<>();
        parkLocked(parked, () -> {
            ConsumerGroup consumerGroup = consumerGroups.get(request.groupId());
            if (closed) {
                parked.complete(Membership.joinError(request.memberId(), Errors.NOT_COORDINATOR));
            } else if (consumerGroup != null && !consumerGroup.isEmpty()) {
                parked.complete(Membership.joinError(request.memberId(), Errors.INCONSISTENT_GROUP_PROTOCOL));
            } else {
                if (consumerGroup != null) {
                    consumerMembership.drop(consumerGroup); // an empty consumer group converts to classic
                }
                membership.join(request, version, clientId, clientHost, parked);
            }
        });
        return parked.thenCompose(r -> durable(r, group(request.groupId())));
    }

    /** SyncGroup. A follower's future completes when the leader's assignment arrives (or the rebalance fails). */
    public CompletableFuture<SyncGroupResponseData> syncGroup(SyncGroupRequestData request) {
        if (request.groupId() == null || request.groupId().isEmpty()) {
            return done(Membership.syncError(Errors.INVALID_GROUP_ID));
        }
        CompletableFuture<SyncGroupResponseData> parked = new CompletableFuture<>();
        parkLocked(parked, () -> {
            if (closed) {
                parked.complete(Membership.syncError(Errors.NOT_COORDINATOR));
            } else {
                membership.sync(request, parked);
            }
        });
        return parked.thenCompose(r -> durable(r, group(request.groupId())));
    }

    public CompletableFuture<HeartbeatResponseData> heartbeat(HeartbeatRequestData request) {
        if (request.groupId() == null || request.groupId().isEmpty()) {
            return done(new HeartbeatResponseData().setErrorCode(Errors.INVALID_GROUP_ID.code()));
        }
        return answer(group(request.groupId()), () -> membership.heartbeat(request));
    }

    /** LeaveGroup, in its v3+ shape (one or more members); use {@code LeaveGroupRequest.normalizedData()}. */
    public CompletableFuture<LeaveGroupResponseData> leaveGroup(LeaveGroupRequestData request) {
        if (request.groupId() == null || request.groupId().isEmpty()) {
            return done(new LeaveGroupResponseData().setErrorCode(Errors.INVALID_GROUP_ID.code()));
        }
        return answer(group(request.groupId()), () -> membership.leave(request));
    }

    /**
     * ConsumerGroupHeartbeat (KIP-848): joins, heartbeats in, reconciles or leaves a consumer group; answers once the
     * group's change is durable. An empty classic group of this id becomes a consumer group; one with members refuses.
     *
     * @param clientId and {@code clientHost} name the member in ConsumerGroupDescribe
     */
    public CompletableFuture<ConsumerGroupHeartbeatResponseData> consumerGroupHeartbeat(
            ConsumerGroupHeartbeatRequestData request, short version, String clientId, String clientHost) {
        return answer(group(request.groupId()), () -> {
            if (closed) {
                return new ConsumerGroupHeartbeatResponseData().setErrorCode(Errors.NOT_COORDINATOR.code());
            }
            ClassicGroup classic = groups.get(request.groupId());
            if (classic != null && !classic.isIn(GroupState.EMPTY)) {
                return new ConsumerGroupHeartbeatResponseData()
                        .setErrorCode(Errors.GROUP_ID_NOT_FOUND.code())
                        .setErrorMessage("Group " + request.groupId() + " is not a consumer group.");
            }
            ConsumerGroupHeartbeatResponseData response =
                    consumerMembership.heartbeat(request, version, clientId, clientHost);
            if (classic != null && consumerGroups.containsKey(request.groupId())) {
                rebalancer.dropGroup(classic); // converted: the consumer group's record replaced the classic one
            }
            return response;
        });
    }

    /**
     * ConsumerGroupDescribe (KIP-848): each consumer group with its epochs, assignor and members, their assignments
     * and targets. A classic or unknown group answers GROUP_ID_NOT_FOUND, on which admin clients ask DescribeGroups.
     */
    public CompletableFuture<List<ConsumerGroupDescribeResponseData.DescribedGroup>> consumerGroupDescribe(
            List<String> groupIds) {
        return answer(groupIds, () -> {
            List<ConsumerGroupDescribeResponseData.DescribedGroup> out = new ArrayList<>();
            for (String groupId : groupIds) {
                ClassicGroup classic = groupId == null ? null : groups.get(groupId);
                if (groupId == null || groupId.isEmpty()) {
                    out.add(new ConsumerGroupDescribeResponseData.DescribedGroup()
                            .setGroupId(groupId)
                            .setErrorCode(Errors.INVALID_GROUP_ID.code()));
                } else if (classic != null && !consumerGroups.containsKey(groupId)) {
                    out.add(new ConsumerGroupDescribeResponseData.DescribedGroup()
                            .setGroupId(groupId)
                            .setErrorCode(Errors.GROUP_ID_NOT_FOUND.code())
                            .setErrorMessage("Group " + groupId + " is not a consumer group."));
                } else {
                    out.add(consumerMembership.describe(groupId));
                }
            }
            return out;
        });
    }

    /**
     * The longest a caller should wait for a parked JoinGroup or SyncGroup of {@code groupId}: the longest
     * rebalance timeout involved (or the initial delay), plus the slack Kafka clients allow and the time to
     * make the outcome durable. Coordinator deadlines answer parked requests well before; this bound only
     * matters if ticking stops.
     */
    public long maxParkedWaitMs(String groupId, int rebalanceTimeoutMs) {
        int groupTimeoutMs = locked(() -> {
            ClassicGroup group = groups.get(groupId);
            return group == null ? 0 : group.rebalanceTimeoutMs();
        });
        long longest = Math.max(Math.max(rebalanceTimeoutMs, groupTimeoutMs), config.initialRebalanceDelayMs());
        return longest + WAIT_SLACK_MS + config.offsetCommitTimeoutMs();
    }

    // ---------------------------------------------------------------- offsets

    /**
     * OffsetCommit, with topics named (a handler resolves v10 topic ids first). Answers once the offsets are
     * durable.
     */
    public CompletableFuture<OffsetCommitResponseData> commitOffsets(OffsetCommitRequestData request, short version) {
        return answer(group(request.groupId()), () -> offsetRequests.commit(request, version));
    }

    /** OffsetFetch for one group; {@code topics == null} asks for all of its offsets. */
    public CompletableFuture<OffsetFetchResponseGroup> fetchOffsets(OffsetFetchRequestGroup request) {
        return fetchOffsets(request, false);
    }

    /**
     * OffsetFetch for one group; with {@code requireStable} (KIP-447), a partition with offsets pending in an open
     * transaction answers UNSTABLE_OFFSET_COMMIT, and the consumer asks again.
     */
    public CompletableFuture<OffsetFetchResponseGroup> fetchOffsets(
            OffsetFetchRequestGroup request, boolean requireStable) {
        if (request.groupId() == null) {
            return done(new OffsetFetchResponseGroup()
                    .setGroupId(request.groupId())
                    .setErrorCode(Errors.INVALID_GROUP_ID.code()));
        }
        return answer(group(request.groupId()), () -> offsetRequests.fetch(request, requireStable));
    }

    /**
     * TxnOffsetCommit, with topics named: the offsets are written as the producer's transactional records and count
     * once its transaction commits. Answers once they are durable. The caller (the transaction coordinator's side of
     * the request) has checked that the producer's transaction is open and holds this group's offsets.
     */
    public CompletableFuture<TxnOffsetCommitResponseData> commitTransactionalOffsets(
            TxnOffsetCommitRequestData request) {
        return answer(group(request.groupId()), () -> offsetRequests.commitTransactional(request));
    }

    /**
     * Ends a producer's transaction in {@code __consumer_offsets}: writes its marker, and its pending offsets count
     * ({@code commit}) or vanish. Completes once the marker is durable.
     */
    public CompletableFuture<Void> endTransaction(long producerId, short producerEpoch, boolean commit) {
        return answer(List.of(), () -> {
            offsetRequests.endTransaction(producerId, producerEpoch, commit);
            return null;
        });
    }

    /** OffsetDelete: removes a group's offsets of topics its members do not consume. */
    public CompletableFuture<OffsetDeleteResponseData> deleteOffsets(OffsetDeleteRequestData request) {
        if (request.groupId() == null || request.groupId().isEmpty()) {
            return done(new OffsetDeleteResponseData().setErrorCode(Errors.INVALID_GROUP_ID.code()));
        }
        return answer(group(request.groupId()), () -> offsetRequests.delete(request));
    }

    /** Every group's committed offsets, for metrics (lag = log end offset - committed offset). */
    public Map<String, Map<TopicPartition, Long>> committedOffsets() {
        return locked(offsets::snapshot);
    }

    // ---------------------------------------------------------------- administration

    /**
     * ListGroups. {@code statesFilter} (v4+) matches state names case-insensitively; {@code typesFilter}
     * (v5+) matches {@code classic} and {@code consumer} (KIP-848).
     */
    public CompletableFuture<ListGroupsResponseData> listGroups(ListGroupsRequestData request) {
        Set<String> states = request.statesFilter().stream()
                .map(s -> s.trim().toLowerCase(Locale.ROOT))
                .collect(Collectors.toSet());
        Set<String> types = request.typesFilter().stream()
                .map(s -> s.trim().toLowerCase(Locale.ROOT))
                .collect(Collectors.toSet());
        boolean classic = types.isEmpty() || types.contains("classic");
        boolean consumer = types.isEmpty() || types.contains("consumer");
        return answer(List.of(), () -> {
            List<ListedGroup> listed = new ArrayList<>();
            if (classic) {
                groups.values().stream()
                        .filter(g -> states.isEmpty()
                                || states.contains(g.state().kafkaName().toLowerCase(Locale.ROOT)))
                        .sorted(java.util.Comparator.comparing(ClassicGroup::groupId))
                        .forEach(g -> listed.add(new ListedGroup()
                                .setGroupId(g.groupId())
                                .setProtocolType(g.protocolType() == null ? "" : g.protocolType())
                                .setGroupState(g.state().kafkaName())
                                .setGroupType("classic")));
            }
            if (consumer) {
                consumerGroups.values().stream()
                        .filter(g -> states.isEmpty()
                                || states.contains(g.state().kafkaName().toLowerCase(Locale.ROOT)))
                        .sorted(java.util.Comparator.comparing(ConsumerGroup::groupId))
                        .forEach(g -> listed.add(new ListedGroup()
                                .setGroupId(g.groupId())
                                .setProtocolType(
                                        org.apache.kafka.clients.consumer.internals.ConsumerProtocol.PROTOCOL_TYPE)
                                .setGroupState(g.state().kafkaName())
                                .setGroupType("consumer")));
            }
            return new ListGroupsResponseData().setGroups(listed);
        });
    }

    /**
     * DescribeGroups: state, protocol type, protocol and members with their assignments; member metadata
     * only when Stable. An unknown group is described as Dead, without an error, as Kafka does.
     */
    public CompletableFuture<List<DescribedGroup>> describeGroups(List<String> groupIds) {
        return describeGroups(groupIds, (short) 6);
    }

    /**
     * DescribeGroups as asked with {@code version}: a KIP-848 consumer group is described as Dead, and from v6 (KIP-1043)
     * with GROUP_ID_NOT_FOUND and a message saying it is not a classic group, as Kafka does.
     */
    public CompletableFuture<List<DescribedGroup>> describeGroups(List<String> groupIds, short version) {
        return answer(groupIds, () -> {
            List<DescribedGroup> out = new ArrayList<>();
            for (String groupId : groupIds) {
                out.add(describe(groupId, version));
            }
            return out;
        });
    }

    private DescribedGroup describe(String groupId, short version) {
        DescribedGroup d = new DescribedGroup().setGroupId(groupId);
        if (groupId == null || groupId.isEmpty()) {
            return d.setErrorCode(Errors.INVALID_GROUP_ID.code());
        }
        if (consumerGroups.containsKey(groupId)) {
            d.setGroupState(GroupState.DEAD.kafkaName()).setProtocolType("").setProtocolData("");
            return version >= 6
                    ? d.setErrorCode(Errors.GROUP_ID_NOT_FOUND.code())
                            .setErrorMessage("Group " + groupId + " is not a classic group.")
                    : d;
        }
        ClassicGroup group = groups.get(groupId);
        if (group == null) {
            return d.setGroupState(GroupState.DEAD.kafkaName())
                    .setProtocolType("")
                    .setProtocolData("");
        }
        boolean stable = group.isIn(GroupState.STABLE);
        d.setGroupState(group.state().kafkaName())
                .setProtocolType(group.protocolType() == null ? "" : group.protocolType())
                .setProtocolData(stable ? group.protocolName() : "");
        for (GroupMember m : group.members()) {
            d.members().add(m.describe(stable ? group.protocolName() : null));
        }
        return d;
    }

    /** DeleteGroups: each group must be Empty (or unknown: GROUP_ID_NOT_FOUND); its offsets go with it. */
    public CompletableFuture<DeletableGroupResultCollection> deleteGroups(List<String> groupIds) {
        return answer(groupIds, () -> offsetRequests.deleteGroups(groupIds));
    }

    /** A group's state, or empty when the coordinator does not know the group; for metrics and tests. */
    public Optional<GroupState> groupState(String groupId) {
        return locked(() -> Optional.ofNullable(groups.get(groupId)).map(ClassicGroup::state));
    }

    // ---------------------------------------------------------------- time

    /**
     * Fires every deadline that has passed on the clock (session expiry, rebalance and sync timeouts, the
     * initial rebalance delay) and, every {@code offsets.retention.check.interval.ms}, expires old offsets
     * and empty groups. The broker calls it often (every 100 ms is plenty); tests call it after moving time.
     */
    public void tick() {
        locked(() -> {
            long now = clock.millis();
            timer.runDue(now);
            if (now >= nextOffsetExpiryMs) {
                nextOffsetExpiryMs = now + config.offsetsRetentionCheckIntervalMs();
                offsetRequests.expire(now);
            }
        });
    }

    /**
     * Stops coordinating, for a broker shutdown: every parked JoinGroup and SyncGroup, and any that arrives
     * later, is answered NOT_COORDINATOR, so clients look for the coordinator again instead of waiting out
     * their timeouts. Call it before closing the offsets log. Nothing is written: members rejoin or resume
     * after the restart (see the class comment).
     */
    public void close() {
        locked(() -> {
            closed = true;
            store.close();
            for (ClassicGroup group : groups.values()) {
                for (GroupMember m : group.members()) {
                    group.completeJoin(m, Membership.joinError(m.memberId(), Errors.NOT_COORDINATOR));
                    group.completeSync(m, Membership.syncError(Errors.NOT_COORDINATOR));
                }
            }
        });
    }

    // ---------------------------------------------------------------- start-up

    /** KIP-848 groups as the replay finds them: each group's own record and its members' records, by id. */
    private final Map<String, ConsumerGroupSnapshot> replayedConsumerGroups = new HashMap<>();

    private final Map<String, Map<String, ConsumerMemberSnapshot>> replayedMembers = new HashMap<>();

    private void load() {
        locked(() -> {
            store.replay(new GroupStore.ReplaySink() {
                @Override
                public void record(GroupRecord record, long producerId, long writtenAt) {
                    if (producerId >= 0 && record instanceof OffsetCommit c) {
                        pending.add(producerId, List.of(c), writtenAt);
                    } else {
                        replay(record, writtenAt);
                    }
                }

                @Override
                public void marker(long producerId, boolean commit) {
                    offsets.endTransaction(producerId, commit);
                }
            });
            replayedConsumerGroups.forEach((groupId, snapshot) -> consumerGroups.put(
                    groupId,
                    ConsumerGroup.restored(
                            groupId,
                            new ConsumerGroup.Image(snapshot, replayedMembers.getOrDefault(groupId, Map.of())))));
            replayedConsumerGroups.clear();
            replayedMembers.clear();
            long now = clock.millis();
            for (String groupId : offsets.groupIds()) {
                if (!consumerGroups.containsKey(groupId)) {
                    groups.computeIfAbsent(groupId, id -> new ClassicGroup(id, GroupState.EMPTY, now));
                }
            }
            for (ConsumerGroup group : List.copyOf(consumerGroups.values())) {
                consumerMembership.restore(group);
            }
            for (ClassicGroup group : List.copyOf(groups.values())) {
                group.refreshSubscribedTopics();
                rebalancer.restore(group);
            }
            log.atInfo()
                    .addKeyValue("groups", groups.size())
                    .addKeyValue("consumerGroups", consumerGroups.size())
                    .addKeyValue("groupsWithOffsets", offsets.groupIds().size())
                    .log("Loaded the consumer groups");
        });
    }

    private void replay(GroupRecord record, long writtenAt) {
        switch (record) {
            case OffsetCommit c -> offsets.apply(c, writtenAt);
            case GroupMetadata g
            when g.value() == null -> {
                groups.remove(g.groupId());
                replayedConsumerGroups.remove(g.groupId());
            }
            case GroupMetadata g -> {
                groups.put(g.groupId(), restored(g.groupId(), g.value()));
                replayedConsumerGroups.remove(g.groupId());
            }
            case ConsumerGroupMetadata g -> {
                replayedConsumerGroups.put(g.groupId(), g.value());
                groups.remove(g.groupId());
            }
            case ConsumerMember m
            when m.value() == null -> {
                Map<String, ConsumerMemberSnapshot> members = replayedMembers.get(m.groupId());
                if (members != null) {
                    members.remove(m.memberId());
                }
            }
            case ConsumerMember m ->
                replayedMembers
                        .computeIfAbsent(m.groupId(), id -> new java.util.LinkedHashMap<>())
                        .put(m.memberId(), m.value());
        }
    }

    private static ClassicGroup restored(String groupId, GroupSnapshot s) {
        boolean hasMembers = !s.members().isEmpty() && s.protocolName() != null;
        ClassicGroup group = ClassicGroup.restored(
                groupId,
                hasMembers ? GroupState.STABLE : GroupState.EMPTY,
                s.generationId(),
                s.protocolType(),
                hasMembers ? s.protocolName() : null,
                hasMembers ? s.leaderId() : null,
                s.stateTimestampMs());
        if (hasMembers) {
            for (MemberSnapshot m : s.members()) {
                JoinGroupRequestProtocolCollection protocols = new JoinGroupRequestProtocolCollection();
                protocols.add(new JoinGroupRequestProtocol()
                        .setName(s.protocolName())
                        .setMetadata(m.subscription() == null ? new byte[0] : m.subscription()));
                group.add(
                        new GroupMember(
                                m.memberId(),
                                m.groupInstanceId(),
                                m.clientId(),
                                m.clientHost(),
                                m.rebalanceTimeoutMs(),
                                m.sessionTimeoutMs(),
                                s.protocolType(),
                                protocols,
                                m.assignment() == null ? GroupMember.NO_ASSIGNMENT : m.assignment()),
                        null);
            }
        }
        return group;
    }

    // ---------------------------------------------------------------- plumbing

    /**
     * Runs {@code operation} under the lock and answers with its response once everything written so far is
     * durable. Whatever the operation throws, or a failed fsync, fails the answer instead (see the class comment).
     */
    private <T> CompletableFuture<T> answer(List<String> groupIds, Supplier<T> operation) {
        T response;
        try {
            response = locked(operation);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        return durable(response, groupIds);
    }

    /** Runs {@code action} under the lock; what it throws fails {@code parked}, the request's future. */
    private void parkLocked(CompletableFuture<?> parked, Runnable action) {
        try {
            locked(action);
        } catch (RuntimeException e) {
            parked.completeExceptionally(e);
        }
    }

    /** {@code response} once everything written so far is durable; a failed fsync fails it. */
    private <T> CompletableFuture<T> durable(T response, List<String> groupIds) {
        return store.awaitAllDurable(groupIds).thenApply(v -> response);
    }

    /** A request's one group id, as a list that (unlike {@code List.of}) takes a null from a malformed request. */
    private static List<String> group(String groupId) {
        return Collections.singletonList(groupId);
    }

    private static <T> CompletableFuture<T> done(T response) {
        return CompletableFuture.completedFuture(response);
    }

    private void locked(Runnable action) {
        lock.lock();
        try {
            action.run();
        } finally {
            lock.unlock();
        }
    }

    private <T> T locked(Supplier<T> action) {
        lock.lock();
        try {
            return action.get();
        } finally {
            lock.unlock();
        }
    }
}
