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
 * (a {@code read_committed} consumer) is told that a commit is pending on those partitions. {@link CommittedOffsets}
 * decides, at the marker, which of them take effect.
 *
 * <p>Not thread-safe: guarded by the coordinator's lock.
 */
final class PendingTransactionalOffsets {
    /** A pending offset and where in the log it was written (the end offset of its batch). */
    record Pending(OffsetCommit record, long writtenAt) {}

    private final Map<Long, List<Pending>> byProducer = new HashMap<>();

    void add(long producerId, List<OffsetCommit> records, long writtenAt) {
        List<Pending> list = byProducer.computeIfAbsent(producerId, p -> new ArrayList<>());
        records.forEach(r -> list.add(new Pending(r, writtenAt)));
    }

    /** Removes and returns the producer's pending offsets, in the order they were committed. */
    List<Pending> end(long producerId) {
        List<Pending> records = byProducer.remove(producerId);
        return records == null ? List.of() : records;
    }

    /** Forgets every pending offset of the partition: its committed offset was deleted (a tombstone), as in Kafka. */
    void drop(String groupId, String topic, int partition) {
        byProducer.values().forEach(list -> list.removeIf(p -> matches(p.record(), groupId, topic, partition)));
    }

    boolean isPending(String groupId, String topic, int partition) {
        for (List<Pending> records : byProducer.values()) {
            for (Pending p : records) {
                if (matches(p.record(), groupId, topic, partition)) {
                    return true;
                }
            }
        }
        return false;
    }

    private static boolean matches(OffsetCommit c, String groupId, String topic, int partition) {
        return c.partition() == partition
                && c.topic().equals(topic)
                && c.groupId().equals(groupId);
    }
}
