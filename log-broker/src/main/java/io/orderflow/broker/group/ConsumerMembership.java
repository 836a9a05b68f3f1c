package io.orderflow.broker.group;

import com.google.re2j.Pattern;
import com.google.re2j.PatternSyntaxException;
import io.orderflow.broker.group.ConsumerGroup.Image;
import io.orderflow.broker.group.ConsumerGroupMember.State;
import io.orderflow.broker.group.GroupRecord.ConsumerGroupMetadata;
import io.orderflow.broker.group.GroupRecord.ConsumerMember;
import io.orderflow.broker.group.ServerAssignor.Subscriber;
import io.orderflow.broker.group.ServerAssignor.TopicShape;
import io.orderflow.broker.log.LogException;
import io.orderflow.broker.log.Topic;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.UUID;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.apache.kafka.common.message.ConsumerGroupDescribeResponseData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The KIP-848 consumer group protocol: ConsumerGroupHeartbeat and ConsumerGroupDescribe, by the rules of Apache
 * Kafka's group coordinator ({@code GroupMetadataManager} and {@code CurrentAssignmentBuilder} are the reference).
 *
 * <p><b>One heartbeat, three steps.</b> (1) The member is created or updated from what the heartbeat carries (null
 * fields mean "unchanged"). (2) If that changed a subscription, added or removed a member, or a subscribed topic
 * changed its partitions, the group epoch moves and the {@link ServerAssignor} computes a new target assignment at
 * once. (3) The member reconciles with its target: it keeps what the target keeps, must revoke what the target gives
 * to others (keeping its epoch until it has, {@link State#UNREVOKED_PARTITIONS}), and gets the partitions of its
 * target nobody else still holds; once nothing is left to revoke its epoch becomes the assignment epoch. The response
 * carries the assignment when it changed, or when the member asked for everything (joining, or a full heartbeat).
 *
 * <p><b>Epochs fence zombies.</b> A heartbeat with an epoch ahead of the member's, or behind it other than the one
 * epoch a lost response explains, is answered FENCED_MEMBER_EPOCH; the client then gives up its partitions and
 * rejoins with epoch 0. OffsetCommit and OffsetFetch check the epoch too ({@link #validateOffsetRequest}).
 *
 * <p><b>Timeouts.</b> A member that stops heartbeating for {@code group.consumer.session.timeout.ms}, or does not
 * revoke within its rebalance timeout, is removed, and the group epoch moves. A static member ({@code
 * group.instance.id}) that leaves with epoch -2 keeps its partitions until then, so that a restart within the
 * session timeout moves nothing.
 *
 * <p><b>Persistence.</b> Every change is written before the answer goes out: the group's own record ({@link
 * ConsumerGroupMetadata}) when its epochs or subscribed topics move, and a record per member that changed ({@link
 * ConsumerMember}; a tombstone for one that left), so a heartbeat writes one small record, not the group. If the write
 * fails the group is put back as it was, timers included, and the request fails with the storage's error. After a
 * restart members carry on with their epochs and assignments; each gets a fresh session timeout.
 *
 * <p><b>Regular expressions</b> are RE/2 ({@code com.google.re2j}, as in Kafka): linear in the topic name, so no pattern
 * can hold the coordinator's lock for long. The subscribed topics are computed again only when a subscription or a
 * topic changed, not on every heartbeat.
 *
 * <p>Not thread-safe: every method runs under the coordinator's lock.
 */
final class ConsumerMembership {
    private static final Logger log = LoggerFactory.getLogger(ConsumerMembership.class);

    private final Map<String, ConsumerGroup> groups;
    private final CoordinatorTimer timer;
    private final GroupCoordinatorConfig config;
    private final GroupStore store;
    private final Supplier<Collection<Topic>> topics;
    private final Clock clock;
    /** Compiled subscriptions, by regex; bounded, least recently used out. */
    private final Map<String, Pattern> patterns = new java.util.LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Pattern> eldest) {
            return size() > 1000;
        }
    };
    /** The topics as last seen, and a version that moves whenever they change. */
    private Map<String, TopicShape> knownTopics = Map.of();

    private long topicsVersion;

    ConsumerMembership(
            Map<String, ConsumerGroup> groups,
            CoordinatorTimer timer,
            GroupCoordinatorConfig config,
            GroupStore store,
            Supplier<Collection<Topic>> topics,
            Clock clock) {
        this.clock = clock;
        this.groups = groups;
        this.timer = timer;
        this.config = config;
        this.store = store;
        this.topics = topics;
    }

    /** A refused request: the protocol's error and a message naming what was wrong. */
    static final class Refusal extends RuntimeException {
        private final Errors error;

        Refusal(Errors error, String message) {
            super(message, null, false, false);
            this.error = error;
        }

        Errors error() {
            return error;
        }
    }

    // ---------------------------------------------------------------- ConsumerGroupHeartbeat

    /**
     * One heartbeat. The caller has checked that no classic group of this id has members (and dropped an empty
     * one: a group converts between protocols when empty).
     */
    ConsumerGroupHeartbeatResponseData heartbeat(
            ConsumerGroupHeartbeatRequestData request, short version, String clientId, String clientHost) {
        long now = clock.millis();
        try {
            validate(request, version);
            if (request.memberEpoch() == ConsumerGroupMember.LEAVE_EPOCH
                    || request.memberEpoch() == ConsumerGroupMember.STATIC_LEAVE_EPOCH) {
                return leave(request, now);
            }
            return heartbeatOrJoin(request, clientId, clientHost, now);
        } catch (Refusal r) {
            return new ConsumerGroupHeartbeatResponseData()
                    .setErrorCode(r.error().code())
                    .setErrorMessage(r.getMessage());
        }
    }

    private void validate(ConsumerGroupHeartbeatRequestData r, short version) {
        requireNonEmpty(r.groupId(), "GroupId");
        requireNonEmpty(r.instanceId(), "InstanceId");
        requireNonEmpty(r.rackId(), "RackId");
        int epoch = r.memberEpoch();
        if (version >= 1 || epoch != 0) {
            if (r.memberId() == null || r.memberId().isEmpty()) {
                throw new Refusal(Errors.INVALID_REQUEST, "MemberId can't be empty.");
            }
        }
        if (epoch == 0) {
            if (r.rebalanceTimeoutMs() == -1) {
                throw new Refusal(Errors.INVALID_REQUEST, "RebalanceTimeoutMs must be provided in first request.");
            }
            if (r.topicPartitions() == null || !r.topicPartitions().isEmpty()) {
                throw new Refusal(Errors.INVALID_REQUEST, "TopicPartitions must be empty when (re-)joining.");
            }
            if (r.subscribedTopicNames() == null && r.subscribedTopicRegex() == null) {
                throw new Refusal(
                        Errors.INVALID_REQUEST,
                        "Either SubscribedTopicNames or SubscribedTopicRegex must be non-null when (re-)joining.");
            }
        } else if (epoch == ConsumerGroupMember.STATIC_LEAVE_EPOCH && r.instanceId() == null) {
            throw new Refusal(Errors.INVALID_REQUEST, "InstanceId can't be null.");
        } else if (epoch < ConsumerGroupMember.STATIC_LEAVE_EPOCH) {
            throw new Refusal(Errors.INVALID_REQUEST, "MemberEpoch is invalid.");
        }
        if (r.rebalanceTimeoutMs() < -1) {
            throw new Refusal(Errors.INVALID_REQUEST, "RebalanceTimeoutMs must not be negative.");
        }
        if (r.serverAssignor() != null && ServerAssignor.named(r.serverAssignor()) == null) {
            throw new Refusal(
                    Errors.UNSUPPORTED_ASSIGNOR,
                    "ServerAssignor " + r.serverAssignor() + " is not supported. Supported assignors: "
                            + ServerAssignor.supported() + ".");
        }
        if (r.subscribedTopicRegex() != null) {
            compile(r.subscribedTopicRegex());
        }
    }

    private static void requireNonEmpty(String value, String field) {
        if (value != null && value.isEmpty()) {
            throw new Refusal(Errors.INVALID_REQUEST, field + " can't be empty.");
        }
    }

    private Pattern compile(String regex) {
        Pattern cached = patterns.get(regex);
        if (cached != null) {
            return cached;
        }
        try {
            Pattern compiled = Pattern.compile(regex);
            patterns.put(regex, compiled);
            return compiled;
        } catch (PatternSyntaxException e) {
            throw new Refusal(
                    Errors.INVALID_REGULAR_EXPRESSION,
                    "SubscribedTopicRegex " + regex + " is invalid: " + e.getDescription());
        }
    }

    private ConsumerGroupHeartbeatResponseData heartbeatOrJoin(
            ConsumerGroupHeartbeatRequestData request, String clientId, String clientHost, long now) {
        String groupId = request.groupId();
        boolean joining = request.memberEpoch() == 0;
        ConsumerGroup group = groups.get(groupId);
        if (group == null) {
            if (!joining) {
                throw new Refusal(Errors.GROUP_ID_NOT_FOUND, "Group " + groupId + " not found.");
            }
            if (groups.size() >= config.maxGroups()) {
                throw new Refusal(Errors.GROUP_MAX_SIZE_REACHED, "The broker has reached its limit of groups.");
            }
            group = new ConsumerGroup(groupId, now);
        }
        Image before = groups.containsKey(groupId) ? group.image() : null;
        String memberId = request.memberId() == null || request.memberId().isEmpty()
                ? UUID.randomUUID().toString()
                : request.memberId();
        MemberAssignment owned = MemberAssignment.fromRequest(request.topicPartitions());
        ConsumerGroupMember member = joining
                ? joiningMember(group, memberId, request.instanceId(), now)
                : existingMember(group, memberId, request.instanceId(), request.memberEpoch(), owned);
        MemberAssignment assignedBefore = member.assigned();
        boolean subscriptionChanged = update(member, request, clientId, clientHost);
        boolean isNew = group.member(member.memberId()) != member;
        group.put(member);
        groups.put(groupId, group);

        Map<String, Topic> view = topicView();
        if (isNew || subscriptionChanged || group.topicsVersion() != topicsVersion) {
            Map<String, TopicShape> subscribed = subscribedTopics(group, view);
            if (isNew || subscriptionChanged || !subscribed.equals(group.subscribedTopics())) {
                assign(group, view, subscribed);
            }
            group.setTopicsVersion(topicsVersion);
        }
        reconcile(group, member, owned);
        scheduleSession(group, member.memberId());
        persistOrRollBack(group, before);
        boolean full = joining
                || (request.rebalanceTimeoutMs() != -1
                        && (request.subscribedTopicNames() != null || request.subscribedTopicRegex() != null)
                        && request.topicPartitions() != null);
        ConsumerGroupHeartbeatResponseData response = new ConsumerGroupHeartbeatResponseData()
                .setMemberId(member.memberId())
                .setMemberEpoch(member.memberEpoch())
                .setHeartbeatIntervalMs(config.consumerHeartbeatIntervalMs());
        if (full || !assignedBefore.equals(member.assigned())) {
            response.setAssignment(new ConsumerGroupHeartbeatResponseData.Assignment()
                    .setTopicPartitions(member.assigned().toHeartbeat()));
        }
        return response;
    }

    /** The member joining with epoch 0: new, a static member's new incarnation, or a member starting over. */
    private ConsumerGroupMember joiningMember(ConsumerGroup group, String memberId, String instanceId, long now) {
        ConsumerGroupMember existing = group.member(memberId);
        if (instanceId != null) {
            ConsumerGroupMember incumbent = group.staticMember(instanceId);
            if (incumbent != null && !incumbent.memberId().equals(memberId)) {
                if (incumbent.memberEpoch() != ConsumerGroupMember.STATIC_LEAVE_EPOCH) {
                    throw new Refusal(
                            Errors.UNRELEASED_INSTANCE_ID,
                            "Static member " + incumbent.memberId() + " with instance id " + instanceId
                                    + " is still in the group; it must leave first.");
                }
                ConsumerGroupMember replacement = incumbent.replacedBy(memberId);
                replacement.setEpochs(0, 0);
                timer.cancel(sessionKey(group.groupId(), incumbent.memberId()));
                timer.cancel(revocationKey(group.groupId(), incumbent.memberId()));
                group.replace(incumbent, replacement);
                log.atInfo()
                        .addKeyValue("group", group.groupId())
                        .addKeyValue("instanceId", instanceId)
                        .addKeyValue("member", memberId)
                        .addKeyValue("replaces", incumbent.memberId())
                        .log("Static member rejoined");
                return replacement;
            }
        }
        if (existing != null) {
            // The client starts over (it was fenced, or gave up): it owns nothing now, whatever we thought.
            existing.setEpochs(0, 0);
            existing.setReconciliation(State.STABLE, MemberAssignment.EMPTY, MemberAssignment.EMPTY);
            return existing;
        }
        if (group.members().size() >= config.maxGroupSize()) {
            throw new Refusal(
                    Errors.GROUP_MAX_SIZE_REACHED,
                    "The consumer group has reached its maximum size of " + config.maxGroupSize() + " members.");
        }
        ConsumerGroupMember member = new ConsumerGroupMember(memberId);
        member.setInstanceId(instanceId);
        return member;
    }

    private ConsumerGroupMember existingMember(
            ConsumerGroup group, String memberId, String instanceId, int epoch, MemberAssignment owned) {
        ConsumerGroupMember member;
        if (instanceId != null) {
            member = group.staticMember(instanceId);
            if (member == null) {
                throw new Refusal(Errors.UNKNOWN_MEMBER_ID, "Instance id " + instanceId + " is unknown.");
            }
            if (!member.memberId().equals(memberId)) {
                throw new Refusal(
                        Errors.FENCED_INSTANCE_ID,
                        "Static member " + memberId + " with instance id " + instanceId + " was replaced by member "
                                + member.memberId() + ".");
            }
        } else {
            member = group.member(memberId);
            if (member == null) {
                throw new Refusal(
                        Errors.UNKNOWN_MEMBER_ID,
                        "Member " + memberId + " is not a member of group " + group.groupId() + ".");
            }
        }
        if (epoch > member.memberEpoch()) {
            throw new Refusal(Errors.FENCED_MEMBER_EPOCH, fenced(epoch, member, "greater"));
        }
        if (epoch < member.memberEpoch()
                && (epoch != member.previousMemberEpoch() || owned == null || !owned.isSubsetOf(member.assigned()))) {
            throw new Refusal(Errors.FENCED_MEMBER_EPOCH, fenced(epoch, member, "smaller"));
        }
        return member;
    }

    private static String fenced(int epoch, ConsumerGroupMember member, String which) {
        return "The consumer group member has a " + which + " member epoch (" + epoch
                + ") than the one known by the group coordinator (" + member.memberEpoch()
                + "). The member must abandon all its partitions and rejoin.";
    }

    /** Applies the heartbeat's non-null fields; true when the subscription or the chosen assignor changed. */
    private static boolean update(
            ConsumerGroupMember member, ConsumerGroupHeartbeatRequestData r, String clientId, String clientHost) {
        member.setClient(clientId, clientHost);
        if (r.instanceId() != null) {
            member.setInstanceId(r.instanceId());
        }
        if (r.rackId() != null) {
            member.setRackId(r.rackId());
        }
        if (r.rebalanceTimeoutMs() != -1) {
            member.setRebalanceTimeoutMs(r.rebalanceTimeoutMs());
        }
        boolean changed = false;
        List<String> names = r.subscribedTopicNames() == null
                ? member.subscribedTopicNames()
                : r.subscribedTopicNames().stream().distinct().sorted().toList();
        String regex = r.subscribedTopicRegex() == null ? member.subscribedTopicRegex() : r.subscribedTopicRegex();
        if (r.subscribedTopicRegex() != null && regex.isEmpty()) {
            regex = null; // an empty regex clears a pattern subscription
        }
        if (!names.equals(member.subscribedTopicNames())
                || !java.util.Objects.equals(regex, member.subscribedTopicRegex())) {
            member.setSubscription(names, regex);
            changed = true;
        }
        if (r.serverAssignor() != null && !r.serverAssignor().equals(member.serverAssignor())) {
            member.setServerAssignor(r.serverAssignor());
            changed = true;
        }
        return changed;
    }

    // ---------------------------------------------------------------- leaving and fencing

    private ConsumerGroupHeartbeatResponseData leave(ConsumerGroupHeartbeatRequestData request, long now) {
        ConsumerGroup group = groups.get(request.groupId());
        if (group == null) {
            throw new Refusal(Errors.GROUP_ID_NOT_FOUND, "Group " + request.groupId() + " not found.");
        }
        ConsumerGroupMember member = request.instanceId() != null
                ? group.staticMember(request.instanceId())
                : group.member(request.memberId());
        if (member == null) {
            throw new Refusal(
                    Errors.UNKNOWN_MEMBER_ID,
                    "Member " + request.memberId() + " is not a member of group " + group.groupId() + ".");
        }
        if (request.instanceId() != null && !member.memberId().equals(request.memberId())) {
            throw new Refusal(
                    Errors.FENCED_INSTANCE_ID,
                    "Static member " + request.memberId() + " with instance id " + request.instanceId()
                            + " was replaced by member " + member.memberId() + ".");
        }
        Image before = group.image();
        if (request.memberEpoch() == ConsumerGroupMember.STATIC_LEAVE_EPOCH) {
            // It keeps its partitions for its session timeout, so that a restart moves nothing; those it was revoking
            // are free at once (it stopped using them), as in Kafka.
            member.setMemberEpoch(ConsumerGroupMember.STATIC_LEAVE_EPOCH);
            member.setReconciliation(member.state(), member.assigned(), MemberAssignment.EMPTY);
            timer.cancel(revocationKey(group.groupId(), member.memberId()));
        } else {
            removeMembers(group, List.of(member.memberId()), now);
        }
        persistOrRollBack(group, before);
        log.atInfo()
                .addKeyValue("group", group.groupId())
                .addKeyValue("member", member.memberId())
                .addKeyValue("static", request.memberEpoch() == ConsumerGroupMember.STATIC_LEAVE_EPOCH)
                .log("Member left the consumer group");
        return new ConsumerGroupHeartbeatResponseData()
                .setMemberId(member.memberId())
                .setMemberEpoch(request.memberEpoch())
                .setHeartbeatIntervalMs(0);
    }

    /** Removes members (left, expired or fenced); the group epoch moves and a new target is computed. */
    private void removeMembers(ConsumerGroup group, List<String> memberIds, long now) {
        for (String memberId : memberIds) {
            group.remove(memberId, now);
            timer.cancel(sessionKey(group.groupId(), memberId));
            timer.cancel(revocationKey(group.groupId(), memberId));
        }
        Map<String, Topic> view = topicView();
        assign(group, view, subscribedTopics(group, view));
        group.setTopicsVersion(topicsVersion);
    }

    /** Fences a member the timers found late: removes it and writes the group, or leaves it for the next try. */
    private void fence(String groupId, String memberId, String why) {
        long now = clock.millis();
        ConsumerGroup group = groups.get(groupId);
        if (group == null || group.member(memberId) == null) {
            return;
        }
        Image before = group.image();
        removeMembers(group, List.of(memberId), now);
        try {
            persist(group, before);
        } catch (RuntimeException e) {
            rollBack(group, before);
            // Keep the member for now and try again shortly, as the offsets expiry does with failed writes; a bug (not
            // the storage's trouble) is logged with its stack trace, and must not stop the other timers of this tick.
            timer.schedule(sessionKey(groupId, memberId), now + 1000, () -> fence(groupId, memberId, why));
            if (e instanceof LogException) {
                log.atWarn()
                        .addKeyValue("error", e.getMessage())
                        .log("Cannot fence a consumer group member; will retry");
            } else {
                log.atError().setCause(e).log("Fencing a consumer group member failed; will retry");
            }
            return;
        }
        log.atInfo()
                .addKeyValue("group", groupId)
                .addKeyValue("member", memberId)
                .addKeyValue("reason", why)
                .log("Fenced a consumer group member");
    }

    private void scheduleSession(ConsumerGroup group, String memberId) {
        String groupId = group.groupId();
        long deadline = clock.millis() + config.consumerSessionTimeoutMs();
        timer.schedule(sessionKey(groupId, memberId), deadline, () -> fence(groupId, memberId, "session timeout"));
    }

    // ---------------------------------------------------------------- assignment and reconciliation

    /** The broker's topics by name, moving {@link #topicsVersion} when they differ from the last look. */
    private Map<String, Topic> topicView() {
        Map<String, Topic> byName = new HashMap<>();
        Map<String, TopicShape> shapes = new HashMap<>();
        for (Topic t : topics.get()) {
            byName.put(t.name(), t);
            shapes.put(t.name(), new TopicShape(t.id(), t.partitions()));
        }
        if (!shapes.equals(knownTopics)) {
            knownTopics = shapes;
            topicsVersion++;
        }
        return byName;
    }

    /** The existing topics the group subscribes to, by name or by regex; internal topics never match a regex. */
    private Map<String, TopicShape> subscribedTopics(ConsumerGroup group, Map<String, Topic> view) {
        Map<String, TopicShape> out = new TreeMap<>();
        for (ConsumerGroupMember m : group.members()) {
            for (String name : memberTopics(m, view)) {
                Topic t = view.get(name);
                out.put(name, new TopicShape(t.id(), t.partitions()));
            }
        }
        return out;
    }

    private static final Set<String> INTERNAL_TOPICS = Set.of("__consumer_offsets", "__transaction_state");

    private Set<String> memberTopics(ConsumerGroupMember m, Map<String, Topic> view) {
        Set<String> names = new HashSet<>();
        for (String name : m.subscribedTopicNames()) {
            if (view.containsKey(name)) {
                names.add(name);
            }
        }
        if (m.subscribedTopicRegex() != null) {
            Pattern p = compile(m.subscribedTopicRegex());
            view.keySet().stream()
                    .filter(n -> !INTERNAL_TOPICS.contains(n) && p.matches(n))
                    .forEach(names::add);
        }
        return names;
    }

    /** Moves the group epoch and computes the target assignment for it. */
    private void assign(ConsumerGroup group, Map<String, Topic> view, Map<String, TopicShape> subscribed) {
        SortedMap<String, Subscriber> subscribers = new TreeMap<>();
        for (ConsumerGroupMember m : group.members()) {
            subscribers.put(
                    m.memberId(), new Subscriber(memberTopics(m, view), group.target(m.memberId()), m.instanceId()));
        }
        ServerAssignor assignor = ServerAssignor.named(preferredAssignor(group));
        Map<String, MemberAssignment> target = assignor.assign(subscribers, subscribed);
        group.setTarget(group.groupEpoch() + 1, assignor.name(), subscribed, target);
        log.atInfo()
                .addKeyValue("group", group.groupId())
                .addKeyValue("epoch", group.groupEpoch())
                .addKeyValue("members", group.members().size())
                .addKeyValue("assignor", assignor.name())
                .log("Computed the consumer group's target assignment");
    }

    /** The assignor most members ask for (ties by name), else the default, as Kafka picks it. */
    private static String preferredAssignor(ConsumerGroup group) {
        Map<String, Long> votes = group.members().stream()
                .filter(m -> m.serverAssignor() != null)
                .collect(Collectors.groupingBy(
                        ConsumerGroupMember::serverAssignor, TreeMap::new, Collectors.counting()));
        return votes.entrySet().stream()
                .max(Map.Entry.<String, Long>comparingByValue()
                        .thenComparing(Map.Entry.comparingByKey(java.util.Comparator.reverseOrder())))
                .map(Map.Entry::getKey)
                .orElse(ServerAssignor.DEFAULT);
    }

    /**
     * Kafka's {@code CurrentAssignmentBuilder}: brings the member one step closer to its target. {@code owned} is
     * what the member says it owns, or null when it did not say (then it is assumed to still own what it had).
     */
    private void reconcile(ConsumerGroup group, ConsumerGroupMember member, MemberAssignment owned) {
        int targetEpoch = group.assignmentEpoch();
        State stateBefore = member.state();
        int epochBefore = member.memberEpoch();
        MemberAssignment revokingBefore = member.pendingRevocation();
        switch (member.state()) {
            case STABLE -> {
                if (member.memberEpoch() != targetEpoch) {
                    next(group, member, owned, member.memberEpoch());
                }
            }
            case UNREVOKED_PARTITIONS -> {
                if (!ownsAny(owned, member.pendingRevocation())) {
                    next(group, member, owned, member.memberEpoch() + 1);
                }
            }
            case UNRELEASED_PARTITIONS -> next(group, member, owned, member.memberEpoch());
        }
        if (member.state() != State.UNREVOKED_PARTITIONS) {
            timer.cancel(revocationKey(group.groupId(), member.memberId()));
        } else if (stateBefore != State.UNREVOKED_PARTITIONS
                || epochBefore != member.memberEpoch()
                || !revokingBefore.equals(member.pendingRevocation())) {
            scheduleRevocation(group, member); // each new revocation gets its full rebalance timeout
        }
    }

    /** Fences the member unless it has revoked by its rebalance timeout: still revoking, at the same epoch. */
    private void scheduleRevocation(ConsumerGroup group, ConsumerGroupMember member) {
        String groupId = group.groupId();
        String memberId = member.memberId();
        int epoch = member.memberEpoch();
        timer.schedule(revocationKey(groupId, memberId), clock.millis() + member.rebalanceTimeoutMs(), () -> {
            ConsumerGroup g = groups.get(groupId);
            ConsumerGroupMember m = g == null ? null : g.member(memberId);
            if (m != null && m.state() == State.UNREVOKED_PARTITIONS && m.memberEpoch() == epoch) {
                fence(groupId, memberId, "revocation timeout");
            }
        });
    }

    private static boolean ownsAny(MemberAssignment owned, MemberAssignment partitions) {
        return owned == null || owned.overlaps(partitions);
    }

    private static void next(ConsumerGroup group, ConsumerGroupMember member, MemberAssignment owned, int epoch) {
        int targetEpoch = group.assignmentEpoch();
        MemberAssignment target = group.target(member.memberId());
        MemberAssignment kept = member.assigned().intersect(target);
        MemberAssignment revoke = member.assigned().minus(target);
        MemberAssignment wanted = target.minus(kept);
        MemberAssignment free = wanted.filter((t, p) -> group.ownerEpoch(t, p, member.memberId()) == -1);
        boolean unreleased = free.size() < wanted.size();
        if (!revoke.isEmpty() && ownsAny(owned, revoke)) {
            member.setMemberEpoch(epoch);
            member.setReconciliation(State.UNREVOKED_PARTITIONS, kept, revoke);
        } else {
            member.setMemberEpoch(targetEpoch);
            member.setReconciliation(
                    unreleased ? State.UNRELEASED_PARTITIONS : State.STABLE, kept.union(free), MemberAssignment.EMPTY);
        }
    }

    // ---------------------------------------------------------------- persistence

    /**
     * Writes what changed since {@code before} (null for a new group): the group's record if its own state moved, the
     * members that changed, tombstones for those gone. Nothing is written when nothing changed.
     */
    private void persist(ConsumerGroup group, Image before) {
        Image after = group.image();
        String groupId = group.groupId();
        List<GroupRecord> records = new ArrayList<>();
        if (before == null || !after.group().equals(before.group())) {
            records.add(new ConsumerGroupMetadata(groupId, after.group()));
        }
        after.members().forEach((memberId, snapshot) -> {
            if (before == null || !snapshot.equals(before.members().get(memberId))) {
                records.add(new ConsumerMember(groupId, memberId, snapshot));
            }
        });
        if (before != null) {
            for (String memberId : before.members().keySet()) {
                if (!after.members().containsKey(memberId)) {
                    records.add(new ConsumerMember(groupId, memberId, null));
                }
            }
        }
        if (!records.isEmpty()) {
            store.append(records);
        }
    }

    /** Writes the change, or puts the group back as it was and fails the request with the storage's error. */
    private void persistOrRollBack(ConsumerGroup group, Image before) {
        try {
            persist(group, before);
        } catch (RuntimeException e) {
            rollBack(group, before);
            throw e;
        }
    }

    /**
     * Puts a group back as {@code before} shows it (null: it did not exist), with its members' timers as they would
     * be: a fresh session each, a revocation deadline for those revoking. Timers of members the failed change added are
     * cancelled.
     */
    private void rollBack(ConsumerGroup failed, Image before) {
        String groupId = failed.groupId();
        for (ConsumerGroupMember m : failed.members()) {
            timer.cancel(sessionKey(groupId, m.memberId()));
            timer.cancel(revocationKey(groupId, m.memberId()));
        }
        if (before == null) {
            groups.remove(groupId);
            return;
        }
        restore(ConsumerGroup.restored(groupId, before));
    }

    /** A group replayed from the log, or rolled back: every member gets a fresh session, and a revocation deadline. */
    void restore(ConsumerGroup group) {
        groups.put(group.groupId(), group);
        for (ConsumerGroupMember m : group.members()) {
            scheduleSession(group, m.memberId());
            if (m.state() == State.UNREVOKED_PARTITIONS) {
                scheduleRevocation(group, m);
            }
        }
    }

    /** Forgets a group (deleted, expired, or converted to the classic protocol) and its timers. */
    void drop(ConsumerGroup group) {
        for (ConsumerGroupMember m : group.members()) {
            timer.cancel(sessionKey(group.groupId(), m.memberId()));
            timer.cancel(revocationKey(group.groupId(), m.memberId()));
        }
        groups.remove(group.groupId(), group);
    }

    private static String sessionKey(String groupId, String memberId) {
        return "consumer-session/" + groupId + "/" + memberId;
    }

    private static String revocationKey(String groupId, String memberId) {
        return "consumer-revocation/" + groupId + "/" + memberId;
    }

    // ---------------------------------------------------------------- OffsetCommit and OffsetFetch

    /**
     * Kafka's check of an OffsetCommit, TxnOffsetCommit or OffsetFetch against a consumer group: a request without a
     * member (epoch -1, or a null member id for a fetch) may act only on an empty group (commit) or always (fetch);
     * otherwise the member must exist and name its current epoch.
     *
     * @return NONE, UNKNOWN_MEMBER_ID or STALE_MEMBER_EPOCH
     */
    static Errors validateOffsetRequest(ConsumerGroup group, String memberId, int memberEpoch, boolean fetch) {
        if (fetch ? memberId == null && memberEpoch < 0 : memberEpoch < 0 && group.isEmpty()) {
            return Errors.NONE;
        }
        ConsumerGroupMember member = memberId == null ? null : group.member(memberId);
        if (member == null) {
            return Errors.UNKNOWN_MEMBER_ID;
        }
        return member.memberEpoch() == memberEpoch ? Errors.NONE : Errors.STALE_MEMBER_EPOCH;
    }

    // ---------------------------------------------------------------- ConsumerGroupDescribe

    ConsumerGroupDescribeResponseData.DescribedGroup describe(String groupId) {
        ConsumerGroupDescribeResponseData.DescribedGroup d =
                new ConsumerGroupDescribeResponseData.DescribedGroup().setGroupId(groupId);
        ConsumerGroup group = groups.get(groupId);
        if (group == null) {
            return d.setErrorCode(Errors.GROUP_ID_NOT_FOUND.code()).setErrorMessage("Group " + groupId + " not found.");
        }
        Map<UUID, String> names = new HashMap<>();
        topics.get().forEach(t -> names.put(t.id(), t.name()));
        d.setGroupState(group.state().kafkaName())
                .setGroupEpoch(group.groupEpoch())
                .setAssignmentEpoch(group.assignmentEpoch())
                .setAssignorName(group.assignorName());
        List<ConsumerGroupDescribeResponseData.Member> members = new ArrayList<>();
        for (ConsumerGroupMember m : group.members()) {
            members.add(new ConsumerGroupDescribeResponseData.Member()
                    .setMemberId(m.memberId())
                    .setInstanceId(m.instanceId())
                    .setRackId(m.rackId())
                    .setMemberEpoch(m.memberEpoch())
                    .setClientId(m.clientId())
                    .setClientHost(m.clientHost())
                    .setSubscribedTopicNames(new ArrayList<>(m.subscribedTopicNames()))
                    .setSubscribedTopicRegex(m.subscribedTopicRegex())
                    .setAssignment(m.assigned().toDescribe(names))
                    .setTargetAssignment(group.target(m.memberId()).toDescribe(names))
                    .setMemberType((byte) 1));
        }
        return d.setMembers(members);
    }
}
