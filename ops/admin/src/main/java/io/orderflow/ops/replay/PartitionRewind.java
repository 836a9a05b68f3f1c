package io.orderflow.ops.replay;

import org.apache.kafka.common.TopicPartition;

/**
 * One partition of a replay, as planned before anything is changed: the group's committed offset ({@code -1} when it
 * has none), the offset the replay's start resolved to, and the log end offset at that moment.
 *
 * <p>A replay only moves a group back: where the committed offset is already before the start (the group has not yet
 * read that far), it stays, since moving it forward would skip records the group never read. Immutable.
 */
public record PartitionRewind(TopicPartition partition, long committed, long start, long end) {

    /** No committed offset: the group would start where its consumers' {@code auto.offset.reset} says. */
    public static final long NONE = -1;

    /** The offset the group resumes from after the replay. */
    public long target() {
        return committed == NONE ? start : Math.min(start, committed);
    }

    /** The records the group had read and reads again: from the target to its committed offset. */
    public long reread() {
        return committed == NONE ? 0 : committed - target();
    }

    /** The records from the target to the log end offset: what the group reads before it has caught up. */
    public long toRead() {
        return Math.max(0, end - target());
    }

    /** Whether the committed offset is kept, being before the start already. */
    public boolean keptCommitted() {
        return committed != NONE && start > committed;
    }
}
