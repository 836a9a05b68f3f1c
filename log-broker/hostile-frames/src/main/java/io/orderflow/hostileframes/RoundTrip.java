package io.orderflow.hostileframes;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * After the hostile frames, does the broker still do its job for a new client? A new producer sending one record
 * with acks=all to a topic made before the frames, a new consumer reading it back: all within the clients' timeouts.
 * Stateless.
 */
final class RoundTrip {
    /** Its outcome: the time from sending the record to reading it back, or why it failed. */
    record Outcome(boolean ok, double millis, String problem) {
        String describe() {
            return ok ? String.format(Locale.ROOT, "yes (%.0f ms)", millis) : "NO (" + problem + ")";
        }
    }

    private RoundTrip() {}

    static Outcome check(Clients clients, String topic, Duration timeout) {
        long start = System.nanoTime();
        byte[] value = UUID.randomUUID().toString().getBytes(StandardCharsets.UTF_8);
        try {
            try (KafkaProducer<byte[], byte[]> producer = clients.producer()) {
                producer.send(new ProducerRecord<>(topic, 0, "round-trip".getBytes(StandardCharsets.UTF_8), value))
                        .get(Clients.TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            }
            TopicPartition partition = new TopicPartition(topic, 0);
            try (KafkaConsumer<byte[], byte[]> consumer = clients.consumer()) {
                consumer.assign(List.of(partition));
                consumer.seekToBeginning(List.of(partition));
                long deadline = System.nanoTime() + timeout.toNanos();
                while (System.nanoTime() < deadline) {
                    for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(500))) {
                        if (Arrays.equals(record.value(), value)) {
                            return new Outcome(true, (System.nanoTime() - start) / 1e6, null);
                        }
                    }
                }
            }
            return new Outcome(
                    false,
                    (System.nanoTime() - start) / 1e6,
                    "the record was not read back within " + timeout.toSeconds() + " s");
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            return new Outcome(false, (System.nanoTime() - start) / 1e6, e.toString());
        }
    }
}
