package io.orderflow.lag;

import io.orderflow.lag.LagSnapshot.GroupLag;
import io.orderflow.lag.LagSnapshot.PartitionLag;
import io.orderflow.lag.LagSnapshot.PartitionRate;
import io.orderflow.lag.LagSnapshot.TopicLag;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.ToLongFunction;
import org.apache.kafka.common.TopicPartition;

/**
 * Consumer lag from successive {@link ClusterView}s: per group and partition, lag in records (end offset minus
 * committed offset, what {@code kafka-consumer-groups --describe} prints), lag in seconds, growth, and a
 * {@link LagStatus} over a sliding window of readings; per partition, the produce rate. A partition a member holds
 * where the group has committed nothing counts from the log start offset, with committed offset {@link
 * #NOT_COMMITTED}: {@code --describe} prints {@code -} there, which would hide a consumer that reads and never
 * commits.
 *
 * <p><b>Lag in seconds</b> is the age of the group's oldest unconsumed record: the reading's time minus the timestamp
 * of the first record at or after the committed offset, or the log start offset ({@link RecordTimestamps}). Its error: the record's timestamp
 * is the producer's clock ({@code CreateTime}), so clock skew between the producer's machine and the monitor's adds to
 * it (none on one machine); and the committed offset trails what the group has processed by up to its commit
 * interval, so the figure is how far behind the group's commits are, which is what a restart would replay.
 *
 * <p>Thread-safety: {@link #update} from one thread at a time (the poller); it returns an immutable snapshot.
 */
public final class LagMonitor {

    /** The committed offset shown for a partition assigned to a member where the group has committed nothing. */
    public static final long NOT_COMMITTED = -1;

    private final Duration window;
    private final Map<String, Deque<LagStatus.Reading>> readings = new HashMap<>();
    private final Map<TopicPartition, Deque<long[]>> endOffsets = new HashMap<>();

    public LagMonitor(Duration window) {
        this.window = window;
    }

    /**
     * Takes in a new reading and the record timestamps at the lagging groups' committed offsets (partition -> offset
     * -> timestamp; see {@link #wantedTimestamps}); returns the snapshot.
     */
    public LagSnapshot update(ClusterView view, Map<TopicPartition, Map<Long, Long>> timestamps) {
        long now = view.atMillis();
        long from = now - window.toMillis();
        Map<TopicPartition, Long> ends = new HashMap<>();
        Map<TopicPartition, Long> starts = new HashMap<>();
        Map<String, List<PartitionRate>> byTopic = new LinkedHashMap<>();
        for (ClusterView.PartitionOffsets offsets : view.partitions()) {
            TopicPartition partition = offsets.topicPartition();
            ends.put(partition, offsets.endOffset());
            starts.put(partition, offsets.startOffset());
            Deque<long[]> history = endOffsets.computeIfAbsent(partition, p -> new ArrayDeque<>());
            history.addLast(new long[] {now, offsets.endOffset()});
            prune(history, from, h -> h[0]);
            long[] first = history.getFirst();
            double seconds = (now - first[0]) / 1000.0;
            double rate = seconds <= 0 ? 0 : (offsets.endOffset() - first[1]) / seconds;
            byTopic.computeIfAbsent(offsets.topic(), t -> new ArrayList<>())
                    .add(new PartitionRate(offsets.partition(), offsets.startOffset(), offsets.endOffset(), rate));
        }
        endOffsets.keySet().retainAll(ends.keySet());
        List<TopicLag> topics = new ArrayList<>();
        byTopic.forEach((topic, partitions) -> topics.add(new TopicLag(topic, List.copyOf(partitions))));

        List<GroupLag> groups = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (ClusterView.Group group : view.groups()) {
            List<PartitionLag> partitions = new ArrayList<>();
            LagStatus worst = LagStatus.OK;
            long total = 0;
            double oldest = 0;
            for (TopicPartition partition : positions(group)) {
                Long end = ends.get(partition);
                if (end == null) {
                    continue; // a deleted topic's offsets
                }
                Long commit = group.committed().get(partition);
                long offset = commit == null ? NOT_COMMITTED : commit;
                long lag = Math.max(0, end - (commit == null ? starts.get(partition) : commit));
                String key = group.group() + "\u0000" + partition;
                seen.add(key);
                Deque<LagStatus.Reading> history = readings.computeIfAbsent(key, k -> new ArrayDeque<>());
                history.addLast(new LagStatus.Reading(now, offset, lag));
                prune(history, from, LagStatus.Reading::atMillis);
                List<LagStatus.Reading> window = List.copyOf(history);
                LagStatus status = LagStatus.of(
                        window, this.window.toMillis(), !group.members().isEmpty());
                long unconsumed = commit == null ? starts.get(partition) : commit;
                double seconds = lag == 0 ? 0 : seconds(timestamps, partition, unconsumed, now);
                partitions.add(new PartitionLag(
                        partition.topic(),
                        partition.partition(),
                        offset,
                        end,
                        lag,
                        seconds,
                        LagStatus.growthPerSecond(window),
                        status));
                worst = worst.worst(status);
                total += lag;
                oldest = Math.max(oldest, seconds);
            }
            groups.add(new GroupLag(
                    group.group(), group.state(), group.members(), worst, total, oldest, List.copyOf(partitions)));
        }
        readings.keySet().retainAll(seen);
        return new LagSnapshot(now, window.toSeconds(), view.brokers(), List.copyOf(topics), List.copyOf(groups));
    }

    /**
     * The offsets whose record timestamps {@link #update} needs for {@code view}: each lagging committed offset, and the
     * log start offset of each lagging partition a member holds without a commit.
     */
    public static Map<TopicPartition, List<Long>> wantedTimestamps(ClusterView view) {
        Map<TopicPartition, ClusterView.PartitionOffsets> known = new HashMap<>();
        view.partitions().forEach(p -> known.put(p.topicPartition(), p));
        Map<TopicPartition, List<Long>> wanted = new HashMap<>();
        for (ClusterView.Group group : view.groups()) {
            for (TopicPartition partition : positions(group)) {
                ClusterView.PartitionOffsets offsets = known.get(partition);
                if (offsets == null) {
                    continue;
                }
                long offset = group.committed().getOrDefault(partition, offsets.startOffset());
                if (offsets.endOffset() > offset) {
                    List<Long> at = wanted.computeIfAbsent(partition, p -> new ArrayList<>());
                    if (!at.contains(offset)) {
                        at.add(offset);
                    }
                }
            }
        }
        return wanted;
    }

    /**
     * The partitions a group has a position on, sorted: those it committed an offset for, and those assigned to its
     * members where it has committed nothing yet. A member that reads and never commits would otherwise be invisible:
     * such a partition's lag counts from the log start offset and its committed offset never moves, so it turns
     * {@link LagStatus#STALL} after a window.
     */
    private static List<TopicPartition> positions(ClusterView.Group group) {
        Set<TopicPartition> partitions = new HashSet<>(group.committed().keySet());
        for (ClusterView.Member member : group.members()) {
            for (String assigned : member.assignment()) {
                int dash = assigned.lastIndexOf('-');
                partitions.add(new TopicPartition(
                        assigned.substring(0, dash), Integer.parseInt(assigned.substring(dash + 1))));
            }
        }
        List<TopicPartition> sorted = new ArrayList<>(partitions);
        sorted.sort(Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition));
        return sorted;
    }

    private static double seconds(
            Map<TopicPartition, Map<Long, Long>> timestamps, TopicPartition partition, long offset, long now) {
        Long timestamp = timestamps.getOrDefault(partition, Map.of()).get(offset);
        return timestamp == null ? -1 : Math.max(0, now - timestamp) / 1000.0;
    }

    /** Drops readings older than {@code from}, except the newest of them: the window then spans its full length. */
    private static <T> void prune(Deque<T> history, long from, ToLongFunction<T> at) {
        while (history.size() > 1) {
            Iterator<T> oldest = history.iterator();
            oldest.next();
            if (at.applyAsLong(oldest.next()) > from) {
                return;
            }
            history.removeFirst();
        }
    }
}
