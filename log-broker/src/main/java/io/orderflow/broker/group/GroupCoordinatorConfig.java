package io.orderflow.broker.group;

/**
 * The group coordinator's settings, named after and defaulted as Kafka's broker settings.
 *
 * @param initialRebalanceDelayMs {@code group.initial.rebalance.delay.ms}: how long the first rebalance of an
 *     empty group waits for more members (extended while members keep arriving, up to the rebalance
 *     timeout). 3000; tests use 0.
 * @param minSessionTimeoutMs {@code group.min.session.timeout.ms}: shorter JoinGroup session timeouts are
 *     refused with INVALID_SESSION_TIMEOUT. 6000.
 * @param maxSessionTimeoutMs {@code group.max.session.timeout.ms}. 1800000 (30 minutes).
 * @param newMemberJoinTimeoutMs how long a new member's parked JoinGroup may wait before the member is
 *     dropped (Kafka's fixed 5 minutes), since a new member cannot heartbeat.
 * @param maxGroupSize {@code group.max.size}: members beyond it get GROUP_MAX_SIZE_REACHED, and so do new members
 *     beyond it waiting to rejoin with the id they were given (KIP-394's pending members). Unlimited in Kafka; the
 *     broker's setting defaults to 1000.
 * @param offsetMetadataMaxSize {@code offset.metadata.max.bytes}: longer commit metadata strings get
 *     OFFSET_METADATA_TOO_LARGE. 4096.
 * @param offsetsRetentionMs {@code offsets.retention.minutes} in ms: offsets of a group empty for this long
 *     (or of a simple consumer, committed this long ago) are deleted, then the group. 7 days.
 * @param offsetsRetentionCheckIntervalMs {@code offsets.retention.check.interval.ms}. 600000.
 * @param offsetCommitTimeoutMs {@code offset.commit.timeout.ms}: how long a request waits for the offsets
 *     log to make its records durable before answering COORDINATOR_NOT_AVAILABLE. 5000.
 * @param maxGroups {@code group.max.count} (not a Kafka setting): a JoinGroup that would create a group beyond this
 *     many gets GROUP_MAX_SIZE_REACHED. Unlimited here; the broker's setting defaults to 10000.
 * @param consumerSessionTimeoutMs {@code group.consumer.session.timeout.ms}: a KIP-848 member that sends no heartbeat
 *     for this long is removed from its group. 45000.
 * @param consumerHeartbeatIntervalMs {@code group.consumer.heartbeat.interval.ms}: how often KIP-848 members are told
 *     to heartbeat. 5000.
 */
public record GroupCoordinatorConfig(
        int initialRebalanceDelayMs,
        int minSessionTimeoutMs,
        int maxSessionTimeoutMs,
        int newMemberJoinTimeoutMs,
        int maxGroupSize,
        int offsetMetadataMaxSize,
        long offsetsRetentionMs,
        long offsetsRetentionCheckIntervalMs,
        int offsetCommitTimeoutMs,
        int maxGroups,
        int consumerSessionTimeoutMs,
        int consumerHeartbeatIntervalMs) {

    public GroupCoordinatorConfig {
        if (initialRebalanceDelayMs < 0) {
            throw new IllegalArgumentException(
                    "group.initial.rebalance.delay.ms must not be negative, got " + initialRebalanceDelayMs);
        }
        if (minSessionTimeoutMs < 0 || maxSessionTimeoutMs < minSessionTimeoutMs) {
            throw new IllegalArgumentException("session timeout bounds must satisfy 0 <= min <= max, got min "
                    + minSessionTimeoutMs + " and max " + maxSessionTimeoutMs);
        }
        if (newMemberJoinTimeoutMs < 1 || maxGroupSize < 1 || offsetMetadataMaxSize < 0) {
            throw new IllegalArgumentException("new member join timeout " + newMemberJoinTimeoutMs
                    + ", group.max.size " + maxGroupSize + " must be positive and offset.metadata.max.bytes "
                    + offsetMetadataMaxSize + " not negative");
        }
        if (maxGroups < 1) {
            throw new IllegalArgumentException("group.max.count must be positive, got " + maxGroups);
        }
        if (consumerHeartbeatIntervalMs < 1 || consumerSessionTimeoutMs <= consumerHeartbeatIntervalMs) {
            throw new IllegalArgumentException("group.consumer.heartbeat.interval.ms " + consumerHeartbeatIntervalMs
                    + " must be positive and less than group.consumer.session.timeout.ms " + consumerSessionTimeoutMs);
        }
        if (offsetsRetentionMs < 1 || offsetsRetentionCheckIntervalMs < 1 || offsetCommitTimeoutMs < 1) {
            throw new IllegalArgumentException("offsets retention " + offsetsRetentionMs + ", check interval "
                    + offsetsRetentionCheckIntervalMs + " and commit timeout " + offsetCommitTimeoutMs
                    + " must be positive");
        }
    }

    /** Kafka's defaults. */
    public static GroupCoordinatorConfig defaults() {
        return new GroupCoordinatorConfig(
                3000,
                6000,
                1_800_000,
                300_000,
                Integer.MAX_VALUE,
                4096,
                7L * 24 * 60 * 60 * 1000,
                600_000,
                5000,
                Integer.MAX_VALUE,
                45_000,
                5000);
    }

    public GroupCoordinatorConfig withInitialRebalanceDelayMs(int ms) {
        return new GroupCoordinatorConfig(
                ms,
                minSessionTimeoutMs,
                maxSessionTimeoutMs,
                newMemberJoinTimeoutMs,
                maxGroupSize,
                offsetMetadataMaxSize,
                offsetsRetentionMs,
                offsetsRetentionCheckIntervalMs,
                offsetCommitTimeoutMs,
                maxGroups,
                consumerSessionTimeoutMs,
                consumerHeartbeatIntervalMs);
    }

    public GroupCoordinatorConfig withSessionTimeoutBounds(int minMs, int maxMs) {
        return new GroupCoordinatorConfig(
                initialRebalanceDelayMs,
                minMs,
                maxMs,
                newMemberJoinTimeoutMs,
                maxGroupSize,
                offsetMetadataMaxSize,
                offsetsRetentionMs,
                offsetsRetentionCheckIntervalMs,
                offsetCommitTimeoutMs,
                maxGroups,
                consumerSessionTimeoutMs,
                consumerHeartbeatIntervalMs);
    }

    public GroupCoordinatorConfig withMaxGroupSize(int size) {
        return new GroupCoordinatorConfig(
                initialRebalanceDelayMs,
                minSessionTimeoutMs,
                maxSessionTimeoutMs,
                newMemberJoinTimeoutMs,
                size,
                offsetMetadataMaxSize,
                offsetsRetentionMs,
                offsetsRetentionCheckIntervalMs,
                offsetCommitTimeoutMs,
                maxGroups,
                consumerSessionTimeoutMs,
                consumerHeartbeatIntervalMs);
    }

    public GroupCoordinatorConfig withOffsetsRetention(long retentionMs, long checkIntervalMs) {
        return new GroupCoordinatorConfig(
                initialRebalanceDelayMs,
                minSessionTimeoutMs,
                maxSessionTimeoutMs,
                newMemberJoinTimeoutMs,
                maxGroupSize,
                offsetMetadataMaxSize,
                retentionMs,
                checkIntervalMs,
                offsetCommitTimeoutMs,
                maxGroups,
                consumerSessionTimeoutMs,
                consumerHeartbeatIntervalMs);
    }

    public GroupCoordinatorConfig withMaxGroups(int count) {
        return new GroupCoordinatorConfig(
                initialRebalanceDelayMs,
                minSessionTimeoutMs,
                maxSessionTimeoutMs,
                newMemberJoinTimeoutMs,
                maxGroupSize,
                offsetMetadataMaxSize,
                offsetsRetentionMs,
                offsetsRetentionCheckIntervalMs,
                offsetCommitTimeoutMs,
                count,
                consumerSessionTimeoutMs,
                consumerHeartbeatIntervalMs);
    }

    public GroupCoordinatorConfig withConsumerGroupTimeouts(int sessionTimeoutMs, int heartbeatIntervalMs) {
        return new GroupCoordinatorConfig(
                initialRebalanceDelayMs,
                minSessionTimeoutMs,
                maxSessionTimeoutMs,
                newMemberJoinTimeoutMs,
                maxGroupSize,
                offsetMetadataMaxSize,
                offsetsRetentionMs,
                offsetsRetentionCheckIntervalMs,
                offsetCommitTimeoutMs,
                maxGroups,
                sessionTimeoutMs,
                heartbeatIntervalMs);
    }
}
