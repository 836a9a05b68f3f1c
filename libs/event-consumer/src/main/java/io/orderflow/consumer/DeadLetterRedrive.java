package io.orderflow.consumer;

import io.orderflow.kafka.KafkaClientSettings;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Re-drives a consumer group's dead letters after the fix, one copy per original record.
 *
 * <p><b>Identity.</b> Every dead letter names its origin, the original record in {@code orders}
 * ({@link RecordOrigin}); retries, dead-lettering, re-drives and replays all keep it. A run reads the whole dead-letter
 * topic and groups its records by origin ({@link DeadLetteredOrigin}): an origin dead-lettered twice (a redelivery, a
 * replay from the earliest offset) is one dead letter to the operator, with two copies.
 *
 * <p><b>What is copied.</b> For each origin never re-driven, its latest copy goes to the group's first retry topic, key
 * and value unchanged, headers without the {@code delayed-retry-*} and {@code dead-letter-*} ones except the origin's
 * topic, partition, offset and timestamp, and with {@link FailureHeaders#REDRIVE_COUNT} one higher. The running
 * service takes it as a first retry; should it fail again, it is retried and dead-lettered anew, still naming its
 * origin. An origin that failed again after a re-drive is not copied again unless asked ({@code again}): the fix did
 * not fix it, and copying it on every run only multiplies copies.
 *
 * <p><b>Progress.</b> The re-drive log {@code dead-letter-redrives-<group>} (compacted, keyed by origin) holds, per
 * origin, the dead-letter copy last re-driven; it is written after the copies were acknowledged (acks=all). A second
 * run copies nothing; a run that dies between the two may copy again, harmlessly: the copy carries the same event id,
 * so an event already applied is skipped as a duplicate.
 *
 * <p>One run reads what the topics held when it started. Not for concurrent runs on one group.
 */
public final class DeadLetterRedrive {

    private DeadLetterRedrive() {}

    /** The dead letters of {@code topics}' group by origin, and where re-drive stands for each; copies nothing. */
    public static RedriveReport list(KafkaClientSettings cluster, RetryTopics topics, Duration timeout)
            throws InterruptedException, ExecutionException, TimeoutException {
        try (KafkaConsumer<String, byte[]> consumer = newConsumer(cluster)) {
            List<ConsumerRecord<String, byte[]>> deadLetters = readAll(consumer, topics.deadLetterTopic(), timeout);
            List<DeadLetteredOrigin> origins =
                    byOrigin(deadLetters, redriveLog(consumer, topics.redriveLogTopic(), timeout));
            return new RedriveReport(origins, deadLetters.size(), 0);
        }
    }

    /**
     * Copies the latest copy of every origin not re-driven yet (and, with {@code again}, of every origin that failed
     * again after a re-drive) to the first retry topic; see the class comment. The report's states are as found.
     */
    public static RedriveReport redrive(
            KafkaClientSettings cluster, RetryTopics topics, boolean again, Duration timeout)
            throws InterruptedException, ExecutionException, TimeoutException {
        createRedriveLog(cluster, topics.redriveLogTopic(), timeout);
        RedriveReport found = list(cluster, topics, timeout);
        List<DeadLetteredOrigin> toCopy = found.origins().stream()
                .filter(o -> o.state() == DeadLetteredOrigin.State.NOT_REDRIVEN
                        || (again && o.state() == DeadLetteredOrigin.State.FAILED_AFTER_REDRIVE))
                .toList();
        if (toCopy.isEmpty()) {
            return found;
        }
        try (KafkaProducer<String, byte[]> producer = FailureRouting.newProducer(cluster, topics.base() + "-redrive")) {
            List<Future<RecordMetadata>> copies = new ArrayList<>();
            for (DeadLetteredOrigin origin : toCopy) {
                DeadLetter latest = origin.latest();
                copies.add(producer.send(new ProducerRecord<>(
                        topics.retryTopic(0),
                        null,
                        latest.record().key(),
                        latest.record().value(),
                        redrivenHeaders(latest))));
            }
            acknowledged(producer, copies, timeout);
            List<Future<RecordMetadata>> logged = new ArrayList<>();
            for (DeadLetteredOrigin origin : toCopy) {
                logged.add(producer.send(new ProducerRecord<>(
                        topics.redriveLogTopic(),
                        origin.origin().toString(),
                        origin.latest().position().toString().getBytes(StandardCharsets.UTF_8))));
            }
            acknowledged(producer, logged, timeout);
        }
        return new RedriveReport(found.origins(), found.records(), toCopy.size());
    }

    /** Waits until every send was acknowledged (acks=all); throws the first failure. */
    private static void acknowledged(
            KafkaProducer<String, byte[]> producer, List<Future<RecordMetadata>> sends, Duration timeout)
            throws InterruptedException, ExecutionException, TimeoutException {
        producer.flush();
        for (Future<RecordMetadata> send : sends) {
            send.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    private static RecordHeaders redrivenHeaders(DeadLetter latest) {
        ConsumerRecord<String, byte[]> record = latest.record();
        RecordHeaders headers = new RecordHeaders();
        for (Header header : record.headers()) {
            String key = header.key();
            if (!key.startsWith("delayed-retry-")
                    && !key.startsWith("dead-letter-")
                    && !key.equals(FailureHeaders.REDRIVE_COUNT)) {
                headers.add(header);
            }
        }
        RecordOrigin origin = latest.origin();
        put(headers, FailureHeaders.RETRY_TOPIC, origin.topic());
        put(headers, FailureHeaders.RETRY_PARTITION, Integer.toString(origin.partition()));
        put(headers, FailureHeaders.RETRY_OFFSET, Long.toString(origin.offset()));
        FailureRouting.text(record.headers(), FailureHeaders.RETRY_ORIGINAL_TIMESTAMP)
                .ifPresent(timestamp -> put(headers, FailureHeaders.RETRY_ORIGINAL_TIMESTAMP, timestamp));
        put(headers, FailureHeaders.REDRIVE_COUNT, Integer.toString(latest.redrives() + 1));
        return headers;
    }

    private static List<DeadLetteredOrigin> byOrigin(
            List<ConsumerRecord<String, byte[]>> deadLetters, Map<RecordOrigin, RecordOrigin> log) {
        Map<RecordOrigin, List<DeadLetter>> copies = new LinkedHashMap<>();
        for (ConsumerRecord<String, byte[]> record : deadLetters) {
            DeadLetter letter = DeadLetter.of(record);
            copies.computeIfAbsent(letter.origin(), o -> new ArrayList<>()).add(letter);
        }
        Comparator<DeadLetter> age = Comparator.comparingLong(
                        (DeadLetter d) -> d.record().timestamp())
                .thenComparingLong(d -> d.record().offset());
        List<DeadLetteredOrigin> origins = new ArrayList<>();
        copies.forEach((origin, letters) -> origins.add(new DeadLetteredOrigin(
                origin,
                letters.size(),
                letters.stream().max(age).orElseThrow(),
                Optional.ofNullable(log.get(origin)))));
        origins.sort(Comparator.comparing(DeadLetteredOrigin::latest, age));
        return origins;
    }

    /** The re-drive log, latest entry per origin: which dead-letter copy was re-driven for it. */
    private static Map<RecordOrigin, RecordOrigin> redriveLog(
            KafkaConsumer<String, byte[]> consumer, String topic, Duration timeout) throws TimeoutException {
        Map<RecordOrigin, RecordOrigin> log = new HashMap<>();
        for (ConsumerRecord<String, byte[]> entry : readAll(consumer, topic, timeout)) {
            if (entry.key() == null || entry.value() == null) {
                continue;
            }
            try {
                log.put(
                        RecordOrigin.parse(entry.key()),
                        RecordOrigin.parse(new String(entry.value(), StandardCharsets.UTF_8)));
            } catch (IllegalArgumentException e) {
                // an entry this version did not write: not an origin it re-drove
            }
        }
        return log;
    }

    /** Every record {@code topic} held when this was called, partition by partition; none if it does not exist. */
    private static List<ConsumerRecord<String, byte[]>> readAll(
            KafkaConsumer<String, byte[]> consumer, String topic, Duration timeout) throws TimeoutException {
        List<TopicPartition> partitions = consumer.partitionsFor(topic, timeout).stream()
                .map(info -> new TopicPartition(topic, info.partition()))
                .toList();
        List<ConsumerRecord<String, byte[]>> records = new ArrayList<>();
        if (partitions.isEmpty()) {
            return records;
        }
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
        Map<TopicPartition, Long> end = consumer.endOffsets(partitions, timeout);
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!end.entrySet().stream().allMatch(e -> consumer.position(e.getKey()) >= e.getValue())) {
            if (System.nanoTime() > deadline) {
                throw new TimeoutException("the topic " + topic + " was not read to its end within " + timeout);
            }
            for (ConsumerRecord<String, byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                if (record.offset() < end.get(new TopicPartition(record.topic(), record.partition()))) {
                    records.add(record);
                }
            }
        }
        consumer.unsubscribe();
        return records;
    }

    private static void createRedriveLog(KafkaClientSettings cluster, String topic, Duration timeout)
            throws InterruptedException, ExecutionException, TimeoutException {
        try (Admin admin = Admin.create(cluster.admin(Map.of()))) {
            // -1: the cluster's default replication factor.
            NewTopic log = new NewTopic(topic, Optional.of(1), Optional.empty())
                    .configs(Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT));
            admin.createTopics(List.of(log)).all().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof TopicExistsException)) {
                throw e;
            }
        }
    }

    private static KafkaConsumer<String, byte[]> newConsumer(KafkaClientSettings cluster) {
        return new KafkaConsumer<>(
                cluster.consumer(Map.of(
                        ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
                        false,
                        ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
                        "earliest")),
                new StringDeserializer(),
                new ByteArrayDeserializer());
    }

    private static void put(RecordHeaders headers, String name, String value) {
        headers.add(name, value.getBytes(StandardCharsets.UTF_8));
    }
}
