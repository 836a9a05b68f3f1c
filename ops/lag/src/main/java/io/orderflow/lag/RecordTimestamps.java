package io.orderflow.lag;

import io.orderflow.kafka.KafkaClientSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * The timestamp of the first record at or after an offset: how old a group's oldest unconsumed record is. A plain
 * consumer without a group (it commits nothing and joins nothing) is assigned the partitions, seeks to each offset
 * and reads one fetch; a partition wanted at several offsets (several groups) is read once per offset, in rounds.
 *
 * <p>The timestamp is the record's own: the producer's clock ({@code CreateTime}, the default) or the broker's
 * ({@code LogAppendTime}). Thread-safety: one call at a time (the monitor's thread).
 */
public final class RecordTimestamps implements AutoCloseable {

    private final KafkaConsumer<byte[], byte[]> consumer;
    private final Duration timeout;

    /** Reads from the cluster {@code cluster} reaches, waiting at most {@code timeout} for each reading. */
    public RecordTimestamps(KafkaClientSettings cluster, Duration timeout) {
        Map<String, Object> config = cluster.consumer(Map.of());
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        config.put(ConsumerConfig.CLIENT_ID_CONFIG, "orderflow-lag-monitor");
        // An offset that retention deleted: the oldest record still there is the oldest unconsumed one.
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        // One small fetch per partition is enough: only the first record at the offset is wanted.
        config.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, "65536");
        config.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "50");
        this.consumer = new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer());
        this.timeout = timeout;
    }

    /** For each partition and offset wanted, the timestamp of the first record at or after it, where one was read. */
    public Map<TopicPartition, Map<Long, Long>> at(Map<TopicPartition, List<Long>> wanted) {
        Map<TopicPartition, Map<Long, Long>> found = new HashMap<>();
        Map<TopicPartition, List<Long>> remaining = new HashMap<>();
        wanted.forEach((partition, offsets) -> remaining.put(partition, new ArrayList<>(offsets)));
        while (remaining.values().stream().anyMatch(list -> !list.isEmpty())) {
            Map<TopicPartition, Long> round = new HashMap<>();
            remaining.forEach((partition, offsets) -> {
                if (!offsets.isEmpty()) {
                    round.put(partition, offsets.removeFirst());
                }
            });
            found(round)
                    .forEach((partition, timestamp) -> found.computeIfAbsent(partition, p -> new HashMap<>())
                            .put(round.get(partition), timestamp));
        }
        return found;
    }

    private Map<TopicPartition, Long> found(Map<TopicPartition, Long> round) {
        consumer.assign(round.keySet());
        round.forEach(consumer::seek);
        Map<TopicPartition, Long> timestamps = new HashMap<>();
        long deadline = System.nanoTime() + timeout.toNanos();
        while (timestamps.size() < round.size() && System.nanoTime() < deadline) {
            for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(100))) {
                TopicPartition partition = new TopicPartition(record.topic(), record.partition());
                if (record.offset() >= round.get(partition) && !timestamps.containsKey(partition)) {
                    timestamps.put(partition, record.timestamp());
                    consumer.pause(List.of(partition));
                }
            }
        }
        consumer.resume(consumer.paused());
        return timestamps;
    }

    @Override
    public void close() {
        consumer.close(Duration.ofSeconds(5));
    }
}
