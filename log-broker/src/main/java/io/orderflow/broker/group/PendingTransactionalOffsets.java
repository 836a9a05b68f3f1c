package io.orderflow.broker.group;

import io.orderflow.broker.group.GroupRecord.OffsetCommit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Offsets committed inside producers' transactions (TxnOffsetCommit) whose transactions have not ended: they are in
 * {@code __consumer_offsets} as transactional records, but count as committed only once the producer's COMMIT marker
 * follows, and vanish with its ABORT (KIP-98, KIP-447). Until then an OffsetFetch that asks for stable offsets
 * (a {@code read_committed} consumer) is told that a commit is pending on those partitions.
 *
 * <p>Not thread-safe: guarded by the coordinator's lock.
 */
final class PendingTransactionalOffsets {
    private final Map<Long, List<OffsetCommit>> byProducer = new HashMap<>();

    void add(long producerId, List<OffsetCommit> records) {
        byProducer.computeIfAbsent(producerId, p -> new ArrayList<>()).addAll(records);
    }

    /** Removes and returns the producer's pending offsets, in the order they were committed. */
    List<OffsetCommit> end(long producerId) {
        List<OffsetCommit> records = byProducer.remove(producerId);
        return records == null ? List.of() : records;
    }

    boolean isPending(String groupId, String topic, int partition) {
        for (List<OffsetCommit> records : byProducer.values()) {
            for (OffsetCommit c : records) {
                if (c.partition() == partition
                        && c.topic().equals(topic)
                        && c.groupId().equals(groupId)) {
                    return true;
                }
            }
        }
        return false;
    }

    boolean hasPending(long producerId) {
        return byProducer.containsKey(producerId);
    }
}
