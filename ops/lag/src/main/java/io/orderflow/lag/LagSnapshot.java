package io.orderflow.lag;

import java.util.List;

/**
 * What the lag monitor knows after a reading: every topic partition with its produce rate, and every consumer group
 * with its members, its lag per partition in records and in seconds, its lag growth and its status. Immutable; the
 * JSON of {@code GET /lag}.
 *
 * @param takenAtMillis when the reading was taken (the monitor's clock)
 * @param windowSeconds the window rates, growth and statuses are computed over
 */
public record LagSnapshot(
        long takenAtMillis, long windowSeconds, int brokers, List<TopicLag> topics, List<GroupLag> groups) {

    /** A partition's offsets and how fast records arrive (end offset growth over the window, records/s). */
    public record PartitionRate(int partition, long startOffset, long endOffset, double producedPerSecond) {}

    public record TopicLag(String topic, List<PartitionRate> partitions) {}

    /**
     * A group's position on one partition.
     *
     * @param committed the group's committed offset; {@link LagMonitor#NOT_COMMITTED} (-1) on a partition assigned to
     *     one of its members where it has committed nothing
     * @param lag end offset minus committed offset, in records (minus the log start offset where nothing is committed)
     * @param lagSeconds age of the oldest unconsumed record (the first at or after the committed offset, or the log
     *     start offset where nothing is committed), 0 without
     *     lag, -1 when it could not be read
     * @param growthPerSecond least-squares slope of the lag over the window, records/s
     */
    public record PartitionLag(
            String topic,
            int partition,
            long committed,
            long endOffset,
            long lag,
            double lagSeconds,
            double growthPerSecond,
            LagStatus status) {}

    /** A group: state, members, status (the worst partition's), total lag, and its largest lag in seconds. */
    public record GroupLag(
            String group,
            String state,
            List<ClusterView.Member> members,
            LagStatus status,
            long lag,
            double lagSeconds,
            List<PartitionLag> partitions) {}
}
