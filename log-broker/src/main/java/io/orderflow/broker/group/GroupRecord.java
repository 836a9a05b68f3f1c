package io.orderflow.broker.group;

import java.util.List;

/**
 * What the coordinator writes to {@code __consumer_offsets}: one committed offset, or one group's metadata.
 * A null value is a tombstone (deleted offset, deleted group). See {@link GroupRecordCodec} for the bytes.
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
}
