package io.orderflow.broker.server;

import io.orderflow.broker.log.PartitionLog;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;

/**
 * What a topic holds, seen two ways: straight from the broker's storage, batch by batch as stored, and through a
 * stock consumer over TCP. For tests that must prove what was (or was not) written.
 */
public final class LogContents {
    private LogContents() {}

    /** The id clients know {@code topic} by (Produce v13 and Fetch v13+ name topics by id). */
    public static Uuid topicId(Broker broker, String topic) {
        UUID id = broker.logs().topic(topic).orElseThrow().id();
        return new Uuid(id.getMostSignificantBits(), id.getLeastSignificantBits());
    }

    /**
     * Every batch of one partition's first segment up to the high watermark (what consumers may read: whole,
     * durable batches, even while producers append), exactly as the log holds them.
     */
    public static MemoryRecords batches(Broker broker, String topic, int partition) {
        PartitionLog log = broker.logs().partition(topic, partition).orElseThrow();
        if (log.highWatermark() == log.logStartOffset()) {
            return MemoryRecords.EMPTY;
        }
        ByteBuffer bytes = log.read(log.logStartOffset(), Integer.MAX_VALUE, false)
                .records()
                .read();
        return MemoryRecords.readableRecords(bytes);
    }

    /** The values of {@link #batches}, in offset order. */
    public static List<String> values(Broker broker, String topic, int partition) {
        List<String> values = new ArrayList<>();
        for (RecordBatch batch : batches(broker, topic, partition).batches()) {
            for (Record record : batch) {
                values.add(StandardCharsets.UTF_8.decode(record.value()).toString());
            }
        }
        return values;
    }

    /** Reads partitions 0..n-1 of {@code topic} from the start until {@code expected} records came, or 30 s passed. */
    public static List<ConsumerRecord<String, String>> consume(
            TestBroker broker, String topic, int partitions, int expected) {
        List<ConsumerRecord<String, String>> records = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = broker.consumer()) {
            List<TopicPartition> all = new ArrayList<>();
            for (int p = 0; p < partitions; p++) {
                all.add(new TopicPartition(topic, p));
            }
            consumer.assign(all);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (records.size() < expected && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
            }
        }
        return records;
    }
}
