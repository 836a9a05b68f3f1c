package io.orderflow.broker.group;

/**
 * A committed offset as OffsetFetch returns it, with the times that decide when it expires.
 *
 * @param offset the next offset the group will consume
 * @param leaderEpoch the leader epoch the consumer saw, or -1
 * @param metadata the client's string (never null; empty when none was sent)
 * @param commitTimestampMs when the coordinator accepted the commit
 * @param expireTimestampMs an explicit expiry from OffsetCommit v2-v4 {@code retention_time_ms}, or -1
 */
public record CommittedOffset(
        long offset, int leaderEpoch, String metadata, long commitTimestampMs, long expireTimestampMs) {
    public CommittedOffset {
        metadata = metadata == null ? "" : metadata;
    }
}
