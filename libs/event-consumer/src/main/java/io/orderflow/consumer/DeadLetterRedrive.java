package io.orderflow.consumer;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Re-drives a consumer group's dead letters after the fix: every record of its dead-letter topic that was not
 * re-driven before is copied to its first retry topic, key and value unchanged, with the {@code delayed-retry-*} and
 * {@code dead-letter-*} headers removed, so the service takes it as a first retry (and, should it fail again, retries
 * and dead-letters it anew). Idempotency holds: the copy carries the same event id, so an event already applied is
 * skipped as a duplicate.
 *
 * <p>Progress is the consumer group {@code <group>-redrive}'s committed offsets on the dead-letter topic, committed
 * only after the copies were acknowledged: running it twice copies nothing twice, and a run that dies half-way is
 * picked up where its last commit left it (records after that commit may be copied again, harmlessly). One run copies
 * what the topic held when it started.
 */
public final class DeadLetterRedrive {

    private DeadLetterRedrive() {}

    /** Copies {@code topics}' dead letters not re-driven yet to the first retry topic; returns how many. */
    public static int redrive(String bootstrapServers, RetryTopics topics, Duration timeout)
            throws InterruptedException, ExecutionException, TimeoutException {
        String deadLetters = topics.deadLetterTopic();
        try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(
                        Map.of(
                                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                                bootstrapServers,
                                ConsumerConfig.GROUP_ID_CONFIG,
                                topics.base() + "-redrive",
                                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
                                false,
                                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
                                "earliest"),
                        new StringDeserializer(),
                        new ByteArrayDeserializer());
                KafkaProducer<String, byte[]> producer =
                        FailureRouting.newProducer(bootstrapServers, topics.base() + "-redrive")) {
            List<TopicPartition> partitions = consumer.partitionsFor(deadLetters, timeout).stream()
                    .map(info -> new TopicPartition(deadLetters, info.partition()))
                    .toList();
            consumer.assign(partitions);
            Map<TopicPartition, OffsetAndMetadata> committed = consumer.committed(Set.copyOf(partitions), timeout);
            for (TopicPartition partition : partitions) {
                OffsetAndMetadata from = committed.get(partition);
                if (from == null) {
                    consumer.seekToBeginning(List.of(partition));
                } else {
                    consumer.seek(partition, from.offset());
                }
            }
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions, timeout);
            long deadline = System.nanoTime() + timeout.toNanos();
            int copied = 0;
            Map<TopicPartition, OffsetAndMetadata> progress = new HashMap<>();
            while (!reached(consumer, end)) {
                if (System.nanoTime() > deadline) {
                    throw new TimeoutException(
                            "the dead-letter topic " + deadLetters + " was not read to its end within " + timeout + "; "
                                    + copied + " records copied so far are committed");
                }
                for (ConsumerRecord<String, byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                    if (record.offset() >= end.get(new TopicPartition(record.topic(), record.partition()))) {
                        continue;
                    }
                    producer.send(new ProducerRecord<>(
                            topics.retryTopic(0), null, record.key(), record.value(), withoutFailureHeaders(record)));
                    copied++;
                    progress.put(
                            new TopicPartition(record.topic(), record.partition()),
                            new OffsetAndMetadata(record.offset() + 1));
                }
                producer.flush(); // every copy acknowledged (acks=all) before its offset is committed
                if (!progress.isEmpty()) {
                    consumer.commitSync(progress);
                }
            }
            return copied;
        }
    }

    private static boolean reached(KafkaConsumer<?, ?> consumer, Map<TopicPartition, Long> end) {
        return end.entrySet().stream().allMatch(e -> consumer.position(e.getKey()) >= e.getValue());
    }

    private static RecordHeaders withoutFailureHeaders(ConsumerRecord<?, ?> record) {
        RecordHeaders headers = new RecordHeaders();
        for (Header header : record.headers()) {
            if (!header.key().startsWith("delayed-retry-") && !header.key().startsWith("dead-letter-")) {
                headers.add(header);
            }
        }
        return headers;
    }
}
