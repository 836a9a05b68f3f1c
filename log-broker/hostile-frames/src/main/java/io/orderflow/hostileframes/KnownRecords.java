package io.orderflow.hostileframes;

import io.orderflow.property.Gen;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * The records a broker holds before the hostile frames and must still hold, unchanged, after them: drawn from the
 * run's seed, produced to partition 0 of a topic of their own with acks=all before the first hostile frame, each
 * acknowledged, and read back from offset 0 after the last. Intact means: every one read back, at the offset it was
 * acknowledged at, with its key and value. Not thread-safe.
 */
final class KnownRecords {
    /** What reading them back found. */
    record Check(int expected, int found, int mismatched, String problem) {
        boolean intact() {
            return problem == null && found == expected && mismatched == 0;
        }

        String describe() {
            String counts =
                    found + " of " + expected + " read back" + (mismatched > 0 ? ", " + mismatched + " changed" : "");
            return (intact() ? "yes (" : "NO (") + counts + (problem == null ? ")" : ": " + problem + ")");
        }
    }

    private final String topic;
    private final List<byte[]> keys = new ArrayList<>();
    private final List<byte[]> values = new ArrayList<>();
    private final List<Long> offsets = new ArrayList<>();
    private final Map<Long, Integer> indexByOffset = new HashMap<>();

    private KnownRecords(String topic) {
        this.topic = topic;
    }

    /** {@code count} records with keys {@code known-000000...} and values of 16 to 512 bytes drawn by {@code gen}. */
    static KnownRecords draw(String topic, int count, Gen gen) {
        KnownRecords records = new KnownRecords(topic);
        for (int i = 0; i < count; i++) {
            records.keys.add(String.format("known-%06d", i).getBytes(StandardCharsets.UTF_8));
            records.values.add(gen.bytes(16, 512));
        }
        return records;
    }

    int size() {
        return keys.size();
    }

    /** Produces them in order and waits for each acknowledgement; throws if any is refused. */
    void produce(Clients clients) throws Exception {
        try (KafkaProducer<byte[], byte[]> producer = clients.producer()) {
            List<Future<RecordMetadata>> sends = new ArrayList<>();
            for (int i = 0; i < keys.size(); i++) {
                sends.add(producer.send(new ProducerRecord<>(topic, 0, keys.get(i), values.get(i))));
            }
            producer.flush();
            for (Future<RecordMetadata> send : sends) {
                long offset = send.get(Clients.TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
                        .offset();
                indexByOffset.put(offset, offsets.size());
                offsets.add(offset);
            }
        }
    }

    /** Reads partition 0 from its start until every record is back or {@code timeout} passes. */
    Check readBack(Clients clients, Duration timeout) {
        int expected = keys.size();
        int found = 0;
        int mismatched = 0;
        String problem = null;
        TopicPartition partition = new TopicPartition(topic, 0);
        try (KafkaConsumer<byte[], byte[]> consumer = clients.consumer()) {
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            long lastOffset = offsets.isEmpty() ? -1 : offsets.getLast();
            long deadline = System.nanoTime() + timeout.toNanos();
            long position = -1;
            while (position < lastOffset && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(500))) {
                    position = record.offset();
                    Integer index = indexByOffset.get(record.offset());
                    if (index == null) {
                        continue; // not one of ours (a hostile Produce that named this topic)
                    }
                    found++;
                    if (!Arrays.equals(record.key(), keys.get(index))
                            || !Arrays.equals(record.value(), values.get(index))) {
                        mismatched++;
                    }
                }
            }
            if (found < expected) {
                problem =
                        "read up to offset " + position + " of " + lastOffset + " within " + timeout.toSeconds() + " s";
            }
        } catch (RuntimeException e) {
            problem = e.toString();
        }
        return new Check(expected, found, mismatched, problem);
    }
}
