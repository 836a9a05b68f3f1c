package io.orderflow.broker.group;

import io.orderflow.broker.group.GroupRecord.GroupMetadata;
import io.orderflow.broker.group.GroupRecord.OffsetCommit;
import io.orderflow.broker.log.LogException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.message.DeleteGroupsResponseData.DeletableGroupResult;
import org.apache.kafka.common.message.DeleteGroupsResponseData.DeletableGroupResultCollection;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitRequestData.OffsetCommitRequestPartition;
import org.apache.kafka.common.message.OffsetCommitRequestData.OffsetCommitRequestTopic;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.message.OffsetCommitResponseData.OffsetCommitResponsePartition;
import org.apache.kafka.common.message.OffsetCommitResponseData.OffsetCommitResponseTopic;
import org.apache.kafka.common.message.OffsetDeleteRequestData;
import org.apache.kafka.common.message.OffsetDeleteRequestData.OffsetDeleteRequestTopic;
import org.apache.kafka.common.message.OffsetDeleteResponseData;
import org.apache.kafka.common.message.OffsetDeleteResponseData.OffsetDeleteResponsePartition;
import org.apache.kafka.common.message.OffsetDeleteResponseData.OffsetDeleteResponsePartitionCollection;
import org.apache.kafka.common.message.OffsetDeleteResponseData.OffsetDeleteResponseTopic;
import org.apache.kafka.common.message.OffsetDeleteResponseData.OffsetDeleteResponseTopicCollection;
import org.apache.kafka.common.message.OffsetFetchRequestData.OffsetFetchRequestGroup;
import org.apache.kafka.common.message.OffsetFetchRequestData.OffsetFetchRequestTopics;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponseGroup;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponsePartitions;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponseTopics;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData.TxnOffsetCommitRequestPartition;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData.TxnOffsetCommitRequestTopic;
import org.apache.kafka.common.message.TxnOffsetCommitResponseData;
import org.apache.kafka.common.message.TxnOffsetCommitResponseData.TxnOffsetCommitResponsePartition;
import org.apache.kafka.common.message.TxnOffsetCommitResponseData.TxnOffsetCommitResponseTopic;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.OffsetCommitRequest;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The offset side of the coordinator: OffsetCommit, OffsetFetch, OffsetDelete, DeleteGroups and the periodic
 * expiry of old offsets and empty groups, by Kafka's rules (see Kafka's {@code OffsetMetadataManager}).
 *
 * <p>Each change is written to the {@link GroupStore} first and applied to {@link CommittedOffsets} only once
 * the write succeeded, so memory never holds an offset that is not in the log. A write that fails throws out of
 * the request, whatever the failure: the handlers' {@code ErrorTable} answers the typed storage failures, and the
 * broker records anything else as a fault.
 *
 * <p>Not thread-safe: every method runs under the coordinator's lock.
 */
final class OffsetRequests {
    private static final Logger log = LoggerFactory.getLogger(OffsetRequests.class);

    private final Map<String, ClassicGroup> groups;
    private final Map<String, ConsumerGroup> consumerGroups;
    private final ConsumerMembership consumerMembership;
    private final CommittedOffsets offsets;
    private final PendingTransactionalOffsets pending;
    private final Rebalancer rebalancer;
    private final GroupStore store;
    private final GroupCoordinatorConfig config;
    private final Clock clock;

    OffsetRequests(
            Map<String, ClassicGroup> groups,
            Map<String, ConsumerGroup> consumerGroups,
            ConsumerMembership consumerMembership,
            CommittedOffsets offsets,
            PendingTransactionalOffsets pending,
            Rebalancer rebalancer,
            GroupStore store,
            GroupCoordinatorConfig config,
            Clock clock) {
        this.groups = groups;
        this.consumerGroups = consumerGroups;
        this.consumerMembership = consumerMembership;
        this.offsets = offsets;
        this.pending = pending;
        this.rebalancer = rebalancer;
        this.store = store;
        this.config = config;
        this.clock = clock;
    }

    // ---------------------------------------------------------------- OffsetCommit

    OffsetCommitResponseData commit(OffsetCommitRequestData request, short version) {
        String groupId = request.groupId();
        int generation = request.generationIdOrMemberEpoch();
        long now = clock.millis();
        ConsumerGroup consumerGroup = consumerGroups.get(groupId);
        if (consumerGroup != null) {
            Errors error =
                    ConsumerMembership.validateOffsetRequest(consumerGroup, request.memberId(), generation, false);
            if (error == Errors.NONE && generation >= 0 && version < 9) {
                error = Errors.UNSUPPORTED_VERSION; // a KIP-848 member commits with OffsetCommit v9+, as in Kafka
            }
            return error == Errors.NONE ? write(request, now) : commitError(request, error);
        }
        ClassicGroup group = groups.get(groupId);
        if (group == null) {
            if (generation >= 0) {
                // v9+ says plainly that the group does not exist; older clients expect ILLEGAL_GENERATION.
                return commitError(request, version >= 9 ? Errors.GROUP_ID_NOT_FOUND : Errors.ILLEGAL_GENERATION);
            }
            // A consumer without group management, or an admin tool: a "simple" group, Empty, no protocol type.
            group = new ClassicGroup(groupId, GroupState.EMPTY, now);
            groups.put(groupId, group);
        }
        Errors error = group.validateOffsetCommit(request.memberId(), request.groupInstanceId(), generation);
        if (error != Errors.NONE) {
            return commitError(request, error);
        }
        if (group.isIn(GroupState.STABLE) || group.isIn(GroupState.PREPARING_REBALANCE)) {
            rebalancer.touch(group, request.memberId());
        }
        return write(request, now);
    }

    /** Writes the offsets of an OffsetCommit the group has accepted; answers once they apply. */
    private OffsetCommitResponseData write(OffsetCommitRequestData request, long now) {
        String groupId = request.groupId();
        long expireMs = request.retentionTimeMs() == OffsetCommitRequest.DEFAULT_RETENTION_TIME
                ? -1
                : now + request.retentionTimeMs();
        OffsetCommitResponseData response = new OffsetCommitResponseData();
        List<OffsetCommit> records = new ArrayList<>();
        for (OffsetCommitRequestTopic topic : request.topics()) {
            OffsetCommitResponseTopic topicResponse =
                    new OffsetCommitResponseTopic().setName(topic.name()).setTopicId(topic.topicId());
            response.topics().add(topicResponse);
            for (OffsetCommitRequestPartition p : topic.partitions()) {
                String metadata = p.committedMetadata() == null ? "" : p.committedMetadata();
                Errors partitionError = Errors.NONE;
                if (metadata.length() > config.offsetMetadataMaxSize()) {
                    partitionError = Errors.OFFSET_METADATA_TOO_LARGE;
                } else {
                    records.add(new OffsetCommit(
                            groupId,
                            topic.name(),
                            p.partitionIndex(),
                            new CommittedOffset(
                                    p.committedOffset(), p.committedLeaderEpoch(), metadata, now, expireMs)));
                }
                topicResponse
                        .partitions()
                        .add(new OffsetCommitResponsePartition()
                                .setPartitionIndex(p.partitionIndex())
                                .setErrorCode(partitionError.code()));
            }
        }
        if (!records.isEmpty()) {
            long at = store.append(List.copyOf(records)); // throws, applying nothing, when they cannot be stored
            records.forEach(r -> offsets.apply(r, at));
        }
        return response;
    }

    /**
     * TxnOffsetCommit: the offsets go to the log as the producer's transactional records and count once its
     * transaction commits ({@link PendingTransactionalOffsets}). The transaction coordinator checked that the producer
     * is current and added this group's offsets to its transaction; the log checks the producer's epoch again.
     */
    TxnOffsetCommitResponseData commitTransactional(TxnOffsetCommitRequestData request) {
        String groupId = request.groupId();
        long now = clock.millis();
        ClassicGroup group = groups.get(groupId);
        ConsumerGroup consumerGroup = consumerGroups.get(groupId);
        Errors error = Errors.NONE;
        if (consumerGroup != null) {
            boolean producerOnly = request.generationIdOrMemberEpoch() < 0
                    && request.memberId().isEmpty()
                    && request.groupInstanceId() == null;
            if (!producerOnly) {
                error = ConsumerMembership.validateOffsetRequest(
                        consumerGroup, request.memberId(), request.generationIdOrMemberEpoch(), false);
                // TxnOffsetCommit knows no STALE_MEMBER_EPOCH: Kafka answers ILLEGAL_GENERATION, which producers of
                // every
                // version take as "this consumer's group moved on".
                error = error == Errors.STALE_MEMBER_EPOCH ? Errors.ILLEGAL_GENERATION : error;
            }
        } else if (group == null) {
            if (request.generationIdOrMemberEpoch() >= 0) {
                error = Errors.ILLEGAL_GENERATION;
            } else {
                group = new ClassicGroup(groupId, GroupState.EMPTY, now);
                groups.put(groupId, group);
            }
        }
        if (consumerGroup == null && group != null) {
            error = group.validateTransactionalOffsetCommit(
                    request.memberId(), request.groupInstanceId(), request.generationIdOrMemberEpoch());
        }
        TxnOffsetCommitResponseData response = new TxnOffsetCommitResponseData();
        List<OffsetCommit> records = new ArrayList<>();
        for (TxnOffsetCommitRequestTopic topic : request.topics()) {
            TxnOffsetCommitResponseTopic topicResponse = new TxnOffsetCommitResponseTopic().setName(topic.name());
            response.topics().add(topicResponse);
            for (TxnOffsetCommitRequestPartition p : topic.partitions()) {
                String metadata = p.committedMetadata() == null ? "" : p.committedMetadata();
                Errors partitionError = error;
                if (partitionError == Errors.NONE && metadata.length() > config.offsetMetadataMaxSize()) {
                    partitionError = Errors.OFFSET_METADATA_TOO_LARGE;
                } else if (partitionError == Errors.NONE) {
                    records.add(new OffsetCommit(
                            groupId,
                            topic.name(),
                            p.partitionIndex(),
                            new CommittedOffset(p.committedOffset(), p.committedLeaderEpoch(), metadata, now, -1)));
                }
                topicResponse
                        .partitions()
                        .add(new TxnOffsetCommitResponsePartition()
                                .setPartitionIndex(p.partitionIndex())
                                .setErrorCode(partitionError.code()));
            }
        }
        if (!records.isEmpty()) {
            long at = store.appendTransactional(List.copyOf(records), request.producerId(), request.producerEpoch());
            pending.add(request.producerId(), records, at);
        }
        return response;
    }

    /** Ends a producer's transaction in the offsets topic: its marker, then its pending offsets count or vanish. */
    void endTransaction(long producerId, short producerEpoch, boolean commit) {
        store.appendMarker(producerId, producerEpoch, commit);
        offsets.endTransaction(producerId, commit);
    }

    static OffsetCommitResponseData commitError(OffsetCommitRequestData request, Errors error) {
        return OffsetCommitRequest.getErrorResponse(request, error);
    }

    // ---------------------------------------------------------------- OffsetFetch

    /** One group's offsets: the requested partitions (-1 where none is committed), or all when topics is null. */
    OffsetFetchResponseGroup fetch(OffsetFetchRequestGroup request, boolean requireStable) {
        ClassicGroup group = groups.get(request.groupId());
        ConsumerGroup consumerGroup = consumerGroups.get(request.groupId());
        if (consumerGroup != null) {
            Errors error = ConsumerMembership.validateOffsetRequest(
                    consumerGroup, request.memberId(), request.memberEpoch(), true);
            if (error != Errors.NONE) {
                return new OffsetFetchResponseGroup()
                        .setGroupId(request.groupId())
                        .setErrorCode(error.code());
            }
        }
        boolean known = consumerGroup != null || group != null && !group.isIn(GroupState.DEAD);
        Map<String, Map<Integer, CommittedOffset>> committed = known ? offsets.of(request.groupId()) : Map.of();
        OffsetFetchResponseGroup response = new OffsetFetchResponseGroup().setGroupId(request.groupId());
        if (request.topics() == null) {
            committed.forEach((topic, partitions) -> {
                OffsetFetchResponseTopics t = new OffsetFetchResponseTopics().setName(topic);
                partitions.forEach((p, o) -> t.partitions().add(stable(request.groupId(), topic, p, o, requireStable)));
                response.topics().add(t);
            });
            return response;
        }
        for (OffsetFetchRequestTopics topic : request.topics()) {
            OffsetFetchResponseTopics t =
                    new OffsetFetchResponseTopics().setName(topic.name()).setTopicId(topic.topicId());
            Map<Integer, CommittedOffset> partitions = committed.getOrDefault(topic.name(), Map.of());
            for (int p : topic.partitionIndexes()) {
                t.partitions().add(stable(request.groupId(), topic.name(), p, partitions.get(p), requireStable));
            }
            response.topics().add(t);
        }
        return response;
    }

    /**
     * The partition's answer; with {@code requireStable}, UNSTABLE_OFFSET_COMMIT while a transaction has offsets of it
     * pending (KIP-447: a read_committed consumer must not start from an offset a transaction may replace).
     */
    private OffsetFetchResponsePartitions stable(
            String groupId, String topic, int partition, CommittedOffset o, boolean requireStable) {
        OffsetFetchResponsePartitions answer = partition(partition, o);
        if (requireStable && pending.isPending(groupId, topic, partition)) {
            answer.setCommittedOffset(-1).setErrorCode(Errors.UNSTABLE_OFFSET_COMMIT.code());
        }
        return answer;
    }

    private static OffsetFetchResponsePartitions partition(int partition, CommittedOffset o) {
        OffsetFetchResponsePartitions out = new OffsetFetchResponsePartitions().setPartitionIndex(partition);
        if (o == null) {
            return out.setCommittedOffset(-1).setCommittedLeaderEpoch(-1).setMetadata("");
        }
        return out.setCommittedOffset(o.offset())
                .setCommittedLeaderEpoch(o.leaderEpoch())
                .setMetadata(o.metadata());
    }

    // ---------------------------------------------------------------- OffsetDelete

    OffsetDeleteResponseData delete(OffsetDeleteRequestData request) {
        String groupId = request.groupId();
        ClassicGroup group = groups.get(groupId);
        ConsumerGroup consumerGroup = consumerGroups.get(groupId);
        java.util.function.Predicate<String> subscribedTo;
        if (consumerGroup != null) {
            subscribedTo = consumerGroup::isSubscribedTo;
        } else if (group == null || group.isIn(GroupState.DEAD)) {
            return new OffsetDeleteResponseData().setErrorCode(Errors.GROUP_ID_NOT_FOUND.code());
        } else if (!group.isIn(GroupState.EMPTY) && !group.usesConsumerProtocol()) {
            // Without the consumer protocol the coordinator cannot tell which topics an active group reads.
            return new OffsetDeleteResponseData().setErrorCode(Errors.NON_EMPTY_GROUP.code());
        } else {
            subscribedTo = group::isSubscribedTo;
        }
        List<OffsetCommit> tombstones = new ArrayList<>();
        OffsetDeleteResponseTopicCollection topics = new OffsetDeleteResponseTopicCollection();
        for (OffsetDeleteRequestTopic topic : request.topics()) {
            boolean subscribed = subscribedTo.test(topic.name());
            OffsetDeleteResponsePartitionCollection partitions = new OffsetDeleteResponsePartitionCollection();
            topic.partitions().forEach(p -> {
                Errors error = subscribed ? Errors.GROUP_SUBSCRIBED_TO_TOPIC : Errors.NONE;
                partitions.add(new OffsetDeleteResponsePartition()
                        .setPartitionIndex(p.partitionIndex())
                        .setErrorCode(error.code()));
                if (!subscribed && offsets.get(groupId, topic.name(), p.partitionIndex()) != null) {
                    tombstones.add(new OffsetCommit(groupId, topic.name(), p.partitionIndex(), null));
                }
            });
            topics.add(new OffsetDeleteResponseTopic().setName(topic.name()).setPartitions(partitions));
        }
        if (!tombstones.isEmpty()) {
            long at = store.append(List.copyOf(tombstones)); // throws, applying nothing, when they cannot be stored
            tombstones.forEach(r -> offsets.apply(r, at));
        }
        return new OffsetDeleteResponseData().setTopics(topics);
    }

    // ---------------------------------------------------------------- DeleteGroups

    /** Deletes each Empty group with its offsets, in one write; others get GROUP_ID_NOT_FOUND or NON_EMPTY_GROUP. */
    DeletableGroupResultCollection deleteGroups(List<String> groupIds) {
        DeletableGroupResultCollection results = new DeletableGroupResultCollection();
        List<GroupRecord> records = new ArrayList<>();
        List<ClassicGroup> deleted = new ArrayList<>();
        List<ConsumerGroup> deletedConsumerGroups = new ArrayList<>();
        for (String groupId : new LinkedHashSet<>(groupIds)) {
            ClassicGroup group = groupId == null ? null : groups.get(groupId);
            ConsumerGroup consumerGroup = groupId == null ? null : consumerGroups.get(groupId);
            Errors error;
            if (groupId == null || groupId.isEmpty()) {
                error = Errors.INVALID_GROUP_ID;
            } else if (consumerGroup != null) {
                error = consumerGroup.isEmpty() ? Errors.NONE : Errors.NON_EMPTY_GROUP;
                if (error == Errors.NONE) {
                    records.addAll(offsets.tombstones(groupId));
                    records.add(new GroupMetadata(groupId, null));
                    deletedConsumerGroups.add(consumerGroup);
                }
            } else if (group == null || group.isIn(GroupState.DEAD)) {
                error = Errors.GROUP_ID_NOT_FOUND;
            } else if (!group.isIn(GroupState.EMPTY)) {
                error = Errors.NON_EMPTY_GROUP;
            } else {
                error = Errors.NONE;
                records.addAll(offsets.tombstones(groupId));
                records.add(new GroupMetadata(groupId, null));
                deleted.add(group);
            }
            results.add(new DeletableGroupResult().setGroupId(groupId).setErrorCode(error.code()));
        }
        if (deleted.isEmpty() && deletedConsumerGroups.isEmpty()) {
            return results;
        }
        long at = store.append(records); // throws, deleting nothing, when the tombstones cannot be stored
        apply(records, deleted, at);
        deletedConsumerGroups.forEach(consumerMembership::drop);
        log.atInfo()
                .addKeyValue("groups", groupIds(deleted))
                .addKeyValue(
                        "consumerGroups",
                        deletedConsumerGroups.stream()
                                .map(ConsumerGroup::groupId)
                                .toList())
                .addKeyValue("offsets", records.size() - deleted.size() - deletedConsumerGroups.size())
                .log("Deleted groups");
        return results;
    }

    // ---------------------------------------------------------------- expiry

    /**
     * Deletes expired offsets (see {@link CommittedOffsets#expire}) and then every Empty group left without
     * offsets, as Kafka's periodic group metadata clean-up does.
     */
    void expire(long nowMs) {
        List<GroupRecord> records = new ArrayList<>();
        List<ClassicGroup> deleted = new ArrayList<>();
        for (ClassicGroup group : List.copyOf(groups.values())) {
            boolean noneLeft = offsets.expire(group, nowMs, config.offsetsRetentionMs(), records);
            if (noneLeft && group.isIn(GroupState.EMPTY)) {
                records.add(new GroupMetadata(group.groupId(), null));
                deleted.add(group);
            }
        }
        List<ConsumerGroup> deletedConsumerGroups = new ArrayList<>();
        for (ConsumerGroup group : List.copyOf(consumerGroups.values())) {
            boolean noneLeft = offsets.expire(group, nowMs, config.offsetsRetentionMs(), records);
            if (noneLeft && group.isEmpty()) {
                records.add(new GroupMetadata(group.groupId(), null));
                deletedConsumerGroups.add(group);
            }
        }
        if (records.isEmpty()) {
            return;
        }
        long at;
        try {
            at = store.append(records);
        } catch (LogException e) {
            // The storage's trouble, named: try again at the next check. Anything else is a bug and reaches the
            // caller of tick(), which logs it with its stack trace.
            log.atWarn().addKeyValue("error", e.getMessage()).log("Cannot expire offsets and groups; will try again");
            return;
        }
        apply(records, deleted, at);
        deletedConsumerGroups.forEach(consumerMembership::drop);
        log.atInfo()
                .addKeyValue("offsets", records.size() - deleted.size() - deletedConsumerGroups.size())
                .addKeyValue("groups", groupIds(deleted))
                .addKeyValue(
                        "consumerGroups",
                        deletedConsumerGroups.stream()
                                .map(ConsumerGroup::groupId)
                                .toList())
                .log("Expired offsets and empty groups");
    }

    private void apply(List<GroupRecord> records, List<ClassicGroup> deletedGroups, long at) {
        for (GroupRecord r : records) {
            if (r instanceof OffsetCommit c) {
                offsets.apply(c, at);
            }
        }
        deletedGroups.forEach(rebalancer::dropGroup);
    }

    private static List<String> groupIds(List<ClassicGroup> groups) {
        return groups.stream().map(ClassicGroup::groupId).toList();
    }
}
