package io.orderflow.broker.group;

import io.orderflow.broker.group.ServerAssignor.TopicShape;
import java.util.List;

/**
 * What the coordinator writes to {@code __consumer_offsets}: one committed offset, or one group's metadata, classic
 * or KIP-848. Both kinds of group metadata share one key per group, so compaction keeps whichever came last: a group
 * converted from one protocol to the other leaves no trace of the first. A null value is a tombstone (deleted offset,
 * deleted group). See {@link GroupRecordCodec} for the bytes.
 */
sealed interface GroupRecord {
    String groupId();

    /** The latest committed offset of a group for a partition; null {@code value} deletes it. */
    record OffsetCommit(String groupId, String topic, int partition, CommittedOffset value) implements GroupRecord {}

    /** The group as of its last completed rebalance; null {@code value} deletes the group. */
    record GroupMetadata(String groupId, GroupSnapshot value) implements GroupRecord {}

    /**
     * A group's persisted state: what Kafka's {@code GroupMetadataValue} holds.
     *
     * @param protocolType empty for a group nobody has joined yet
     * @param protocolName the chosen protocol, or null when the group has no members
     */
    record GroupSnapshot(
            String protocolType,
            int generationId,
            String protocolName,
            String leaderId,
            long stateTimestampMs,
            List<MemberSnapshot> members) {}

    /**
     * A member as persisted: its metadata for the chosen protocol ({@code subscription}) and its assignment.
     */
    record MemberSnapshot(
            String memberId,
            String groupInstanceId,
            String clientId,
            String clientHost,
            int rebalanceTimeoutMs,
            int sessionTimeoutMs,
            byte[] subscription,
            byte[] assignment) {}

    /**
     * A KIP-848 consumer group's own state as of its latest change; it shares its key with {@link GroupMetadata}. Each
     * member is a record of its own ({@link ConsumerMember}), so a heartbeat rewrites one member, not the group.
     */
    record ConsumerGroupMetadata(String groupId, ConsumerGroupSnapshot value) implements GroupRecord {}

    /** One member of a KIP-848 consumer group; a null value removes it. */
    record ConsumerMember(String groupId, String memberId, ConsumerMemberSnapshot value) implements GroupRecord {}

    /** A KIP-848 consumer group's persisted state: its epochs, and the assignor and subscribed topics of its target. */
    record ConsumerGroupSnapshot(
            int groupEpoch,
            int assignmentEpoch,
            String assignor,
            long stateTimestampMs,
            List<SubscribedTopic> topics) {}

    /** A subscribed topic as of the group's last assignment. */
    record SubscribedTopic(String name, TopicShape shape) {}

    /** A KIP-848 member as persisted: what it sent, where its reconciliation stands, and its target. */
    record ConsumerMemberSnapshot(
            String memberId,
            String instanceId,
            String rackId,
            String clientId,
            String clientHost,
            int rebalanceTimeoutMs,
            List<String> topicNames,
            String topicRegex,
            String assignor,
            int memberEpoch,
            int previousMemberEpoch,
            ConsumerGroupMember.State state,
            MemberAssignment assigned,
            MemberAssignment pendingRevocation,
            MemberAssignment target) {}
}
