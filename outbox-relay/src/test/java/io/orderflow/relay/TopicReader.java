package io.orderflow.relay;

import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/** Reads a whole topic from the start with a stock consumer (no group), as records in partition-offset order. */
public final class TopicReader implements AutoCloseable {

    /** One consumed record, with its headers as strings. */
    public record Published(int partition, long offset, String key, String value, Map<String, String> headers) {
        public String eventId() {
            return headers.get("eventId");
        }
    }

    private final KafkaConsumer<String, byte[]> consumer;
    private final List<Published> records = new ArrayList<>();

    public TopicReader(String bootstrapServers, String topic) {
        consumer = new KafkaConsumer<>(
                Map.of(
                        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                        ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                        ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false"),
                new StringDeserializer(),
                new ByteArrayDeserializer());
        await().atMost(Duration.ofSeconds(30))
                .until(() -> !consumer.partitionsFor(topic).isEmpty());
        List<TopicPartition> partitions = consumer.partitionsFor(topic).stream()
                .map(info -> new TopicPartition(topic, info.partition()))
                .toList();
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
    }

    /**
     * Reads up to the topic's end offsets as of this call: everything the broker had acknowledged by then, duplicates
     * included. Returns all records read so far.
     */
    public List<Published> readToEnd(Duration within) {
        Map<TopicPartition, Long> end = consumer.endOffsets(consumer.assignment());
        await().atMost(within).until(() -> {
            poll();
            return end.entrySet().stream().allMatch(e -> consumer.position(e.getKey()) >= e.getValue());
        });
        return List.copyOf(records);
    }

    private void poll() {
        for (ConsumerRecord<String, byte[]> record : consumer.poll(Duration.ofMillis(100))) {
            records.add(new Published(
                    record.partition(),
                    record.offset(),
                    record.key(),
                    new String(record.value(), StandardCharsets.UTF_8),
                    headers(record.headers())));
        }
    }

    private static Map<String, String> headers(Iterable<Header> headers) {
        Map<String, String> values = new java.util.LinkedHashMap<>();
        for (Header header : headers) {
            values.put(header.key(), new String(header.value(), StandardCharsets.UTF_8));
        }
        return values;
    }

    /** Records grouped by key, each group in log order. */
    public static Map<String, List<Published>> byKey(List<Published> records) {
        return records.stream()
                .sorted(java.util.Comparator.comparingInt(Published::partition).thenComparingLong(Published::offset))
                .collect(Collectors.groupingBy(Published::key, java.util.LinkedHashMap::new, Collectors.toList()));
    }

    @Override
    public void close() {
        consumer.close(Duration.ofSeconds(2));
    }
}
