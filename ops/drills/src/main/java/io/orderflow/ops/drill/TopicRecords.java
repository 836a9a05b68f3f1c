package io.orderflow.ops.drill;

import io.orderflow.kafka.KafkaClientSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * What a drill reads back from a topic: every record from a point in time on to the end offsets the topic had when
 * asked, in each partition's order, with a consumer of no group (nothing committed). Stateless.
 */
public final class TopicRecords {

    private TopicRecords() {}

    /**
     * The records of {@code topic} whose timestamps are {@code sinceMillis} or later, up to the end offsets at the call.
     *
     * @throws IllegalStateException if they cannot be read within {@code within}
     */
    public static List<ConsumerRecord<byte[], byte[]>> since(
            KafkaClientSettings cluster, String topic, long sinceMillis, Duration within) {
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(
                cluster.consumer(Map.of(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false)),
                new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic).stream()
                    .map(info -> new TopicPartition(info.topic(), info.partition()))
                    .toList();
            consumer.assign(partitions);
            Map<TopicPartition, Long> since = new HashMap<>();
            partitions.forEach(partition -> since.put(partition, sinceMillis));
            Map<TopicPartition, OffsetAndTimestamp> from = consumer.offsetsForTimes(since);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
            for (TopicPartition partition : partitions) {
                OffsetAndTimestamp offset = from.get(partition);
                consumer.seek(partition, offset == null ? end.get(partition) : offset.offset());
            }
            List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
            long deadline = System.nanoTime() + within.toNanos();
            while (partitions.stream().anyMatch(p -> consumer.position(p) < end.get(p))) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("could not read " + topic + " to its end within " + within);
                }
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                    if (record.offset() < end.get(new TopicPartition(record.topic(), record.partition()))) {
                        records.add(record);
                    }
                }
            }
            return records;
        }
    }

    /** Each partition's end offset (the offset its next record will get), by partition number. */
    static Map<Integer, Long> endOffsets(KafkaClientSettings cluster, String topic) {
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(
                cluster.consumer(Map.of()), new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic).stream()
                    .map(info -> new TopicPartition(info.topic(), info.partition()))
                    .toList();
            Map<Integer, Long> ends = new java.util.TreeMap<>();
            consumer.endOffsets(partitions).forEach((partition, end) -> ends.put(partition.partition(), end));
            return ends;
        }
    }
}
