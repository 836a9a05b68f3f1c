package io.orderflow.broker.group;

import io.orderflow.broker.group.GroupRecord.OffsetCommit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.common.TopicPartition;

/**
 * The committed offsets of every group, as the log's offset records leave them: the latest value per
 * (group, topic, partition). The same {@link #apply} builds this map at start-up replay and keeps it current
 * after each commit, so a restart cannot come back with different offsets.
 *
 * <p>Not thread-safe: guarded by the coordinator's lock.
 */
final class CommittedOffsets {
    /** group → topic → partition → offset; topics and partitions sorted, so OffsetFetch answers in order. */
    private final Map<String, Map<String, Map<Integer, CommittedOffset>>> byGroup = new HashMap<>();
    /** Where in the log each offset in effect was written (the end offset of its batch). */
    private final Map<OffsetKey, Long> writtenAt = new HashMap<>();

    private final PendingTransactionalOffsets pending;

    private record OffsetKey(String groupId, String topic, int partition) {}

    CommittedOffsets(PendingTransactionalOffsets pending) {
        this.pending = pending;
    }

    /**
     * Applies a record written to the log at {@code at} (the end offset of its batch). A tombstone also forgets the
     * partition's offsets pending in transactions, as Kafka does.
     */
    void apply(OffsetCommit record, long at) {
        OffsetKey key = new OffsetKey(record.groupId(), record.topic(), record.partition());
        if (record.value() == null) {
            writtenAt.remove(key);
            pending.drop(record.groupId(), record.topic(), record.partition());
        } else {
            writtenAt.put(key, at);
        }
        applyValue(record);
    }

    /**
     * Ends a producer's transaction: on commit its pending offsets take effect, each unless a newer one was written
     * after it (a plain OffsetCommit, or a tombstone, which dropped it already); on abort they vanish.
     */
    void endTransaction(long producerId, boolean commit) {
        for (PendingTransactionalOffsets.Pending p : pending.end(producerId)) {
            OffsetCommit r = p.record();
            Long current = writtenAt.get(new OffsetKey(r.groupId(), r.topic(), r.partition()));
            if (commit && (current == null || current < p.writtenAt())) {
                apply(r, p.writtenAt());
            }
        }
    }

    private void applyValue(OffsetCommit record) {
        if (record.value() != null) {
            byGroup.computeIfAbsent(record.groupId(), g -> new TreeMap<>())
                    .computeIfAbsent(record.topic(), t -> new TreeMap<>())
                    .put(record.partition(), record.value());
            return;
        }
        Map<String, Map<Integer, CommittedOffset>> topics = byGroup.get(record.groupId());
        if (topics == null) {
            return;
        }
        Map<Integer, CommittedOffset> partitions = topics.get(record.topic());
        if (partitions != null) {
            partitions.remove(record.partition());
            if (partitions.isEmpty()) {
                topics.remove(record.topic());
            }
        }
        if (topics.isEmpty()) {
            byGroup.remove(record.groupId());
        }
    }

    CommittedOffset get(String groupId, String topic, int partition) {
        Map<String, Map<Integer, CommittedOffset>> topics = byGroup.get(groupId);
        Map<Integer, CommittedOffset> partitions = topics == null ? null : topics.get(topic);
        return partitions == null ? null : partitions.get(partition);
    }

    /** The group's offsets by topic and partition; empty when it has none. */
    Map<String, Map<Integer, CommittedOffset>> of(String groupId) {
        return Collections.unmodifiableMap(byGroup.getOrDefault(groupId, Map.of()));
    }

    boolean hasOffsets(String groupId) {
        return byGroup.containsKey(groupId);
    }

    Set<String> groupIds() {
        return Set.copyOf(byGroup.keySet());
    }

    /** Tombstones for every offset of the group, for DeleteGroups. */
    List<GroupRecord> tombstones(String groupId) {
        List<GroupRecord> out = new ArrayList<>();
        of(groupId)
                .forEach((topic, partitions) ->
                        partitions.keySet().forEach(p -> out.add(new OffsetCommit(groupId, topic, p, null))));
        return out;
    }

    /**
     * Adds tombstones for the group's expired offsets, by Kafka's rules: an Empty group's offsets expire
     * {@code retentionMs} after it became Empty; a simple group's (no protocol type) and a Stable consumer
     * group's offsets of topics it no longer subscribes to expire {@code retentionMs} after their commit; an
     * explicit expire timestamp (OffsetCommit v2-v4) wins; offsets of subscribed topics never expire.
     *
     * @return true when the group has no offsets left after these tombstones
     */
    boolean expire(ClassicGroup group, long nowMs, long retentionMs, List<GroupRecord> out) {
        if (group.protocolType() == null) {
            return expire(group.groupId(), -1, group::isSubscribedTo, nowMs, retentionMs, out);
        } else if (group.isIn(GroupState.EMPTY)) {
            return expire(group.groupId(), group.stateTimestampMs(), group::isSubscribedTo, nowMs, retentionMs, out);
        } else if (group.usesConsumerProtocol() && group.isIn(GroupState.STABLE)) {
            return expire(group.groupId(), -1, group::isSubscribedTo, nowMs, retentionMs, out);
        }
        return !byGroup.containsKey(group.groupId());
    }

    /**
     * Kafka's rule for a KIP-848 group: every offset expires {@code retentionMs} after its commit, empty group or not,
     * except those of topics its members subscribe to.
     */
    boolean expire(ConsumerGroup group, long nowMs, long retentionMs, List<GroupRecord> out) {
        return expire(group.groupId(), -1, group::isSubscribedTo, nowMs, retentionMs, out);
    }

    /**
     * @param emptySinceMs when the group became empty, the base of every offset's retention; -1 to count from each
     *     offset's commit
     */
    private boolean expire(
            String groupId,
            long emptySinceMs,
            java.util.function.Predicate<String> subscribed,
            long nowMs,
            long retentionMs,
            List<GroupRecord> out) {
        Map<String, Map<Integer, CommittedOffset>> topics = byGroup.get(groupId);
        if (topics == null) {
            return true;
        }
        boolean allExpired = true;
        for (Map.Entry<String, Map<Integer, CommittedOffset>> t : topics.entrySet()) {
            if (subscribed.test(t.getKey())) {
                allExpired = false;
                continue;
            }
            for (Map.Entry<Integer, CommittedOffset> p : t.getValue().entrySet()) {
                CommittedOffset o = p.getValue();
                long since = emptySinceMs >= 0 ? emptySinceMs : o.commitTimestampMs();
                boolean expired =
                        o.expireTimestampMs() >= 0 ? nowMs >= o.expireTimestampMs() : nowMs - since >= retentionMs;
                if (expired) {
                    out.add(new OffsetCommit(groupId, t.getKey(), p.getKey(), null));
                } else {
                    allExpired = false;
                }
            }
        }
        return allExpired;
    }

    /** Every committed offset, for metrics: group → partition → offset. */
    Map<String, Map<TopicPartition, Long>> snapshot() {
        Map<String, Map<TopicPartition, Long>> out = new TreeMap<>();
        byGroup.forEach((group, topics) -> {
            Map<TopicPartition, Long> offsets = new HashMap<>();
            topics.forEach((topic, partitions) ->
                    partitions.forEach((p, o) -> offsets.put(new TopicPartition(topic, p), o.offset())));
            out.put(group, Map.copyOf(offsets));
        });
        return Collections.unmodifiableMap(out);
    }
}
