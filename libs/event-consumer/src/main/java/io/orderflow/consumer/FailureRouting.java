package io.orderflow.consumer;

import io.orderflow.kafka.KafkaClientSettings;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Turns a record that failed into the record to send: to the next retry topic while retries remain and the failure
 * may pass, else to the dead-letter topic. The key and value are the original's byte for byte, so the key still
 * partitions it with its order; headers are the original's plus {@link FailureHeaders} (a record that already went
 * through retries, or was re-driven, keeps its origin's topic, partition, offset and timestamps, and its re-drive
 * count). Reasons are one line. Thread-safe (immutable).
 */
public final class FailureRouting {

    private final RetryTopics topics;
    private final Clock clock;

    public FailureRouting(RetryTopics topics, Clock clock) {
        this.topics = topics;
        this.clock = clock;
    }

    public RetryTopics topics() {
        return topics;
    }

    /**
     * Retries before the attempt that produced {@code record}: 0 for a record of the source topic. A count that is not
     * a number (a record someone else wrote to a retry topic) counts as every retry spent, so the record goes to the
     * dead-letter topic instead of failing the batch.
     */
    public int priorRetries(ConsumerRecord<?, ?> record) {
        Optional<String> count = text(record.headers(), FailureHeaders.RETRY_COUNT);
        if (count.isEmpty()) {
            return 0;
        }
        try {
            int retries = Integer.parseInt(count.get().trim());
            return retries < 0 ? topics.maxRetries() : retries + 1;
        } catch (NumberFormatException e) {
            return topics.maxRetries();
        }
    }

    /**
     * Where {@code record} goes after {@code failure}: a retry topic if {@code retryable} and retries remain, else the
     * dead-letter topic.
     */
    public ProducerRecord<String, byte[]> route(
            ConsumerRecord<String, byte[]> record, Throwable failure, boolean retryable) {
        int prior = priorRetries(record);
        return retryable && prior < topics.maxRetries()
                ? toRetry(record, failure, prior)
                : toDeadLetter(record, failure);
    }

    private ProducerRecord<String, byte[]> toRetry(
            ConsumerRecord<String, byte[]> record, Throwable failure, int prior) {
        Headers headers = copyWithout(record.headers(), "delayed-retry-");
        put(headers, FailureHeaders.RETRY_COUNT, Integer.toString(prior));
        put(
                headers,
                FailureHeaders.RETRY_ORIGINAL_TIMESTAMP,
                original(record, FailureHeaders.RETRY_ORIGINAL_TIMESTAMP, Long.toString(record.timestamp())));
        put(
                headers,
                FailureHeaders.RETRY_FIRST_PROCESSING_TIMESTAMP,
                original(record, FailureHeaders.RETRY_FIRST_PROCESSING_TIMESTAMP, Long.toString(clock.millis())));
        put(
                headers,
                FailureHeaders.RETRY_EXCEPTION_CLASS_NAME,
                failure.getClass().getName());
        put(headers, FailureHeaders.RETRY_REASON, reason(failure));
        if (failure.getCause() != null) {
            put(
                    headers,
                    FailureHeaders.RETRY_CAUSE_CLASS_NAME,
                    failure.getCause().getClass().getName());
            put(headers, FailureHeaders.RETRY_CAUSE, reason(failure.getCause()));
        }
        put(headers, FailureHeaders.RETRY_TOPIC, original(record, FailureHeaders.RETRY_TOPIC, record.topic()));
        put(
                headers,
                FailureHeaders.RETRY_PARTITION,
                original(record, FailureHeaders.RETRY_PARTITION, Integer.toString(record.partition())));
        put(
                headers,
                FailureHeaders.RETRY_OFFSET,
                original(record, FailureHeaders.RETRY_OFFSET, Long.toString(record.offset())));
        return new ProducerRecord<>(topics.retryTopic(prior), null, record.key(), record.value(), headers);
    }

    private ProducerRecord<String, byte[]> toDeadLetter(ConsumerRecord<String, byte[]> record, Throwable failure) {
        Headers headers = copyWithout(record.headers(), "dead-letter-");
        put(
                headers,
                FailureHeaders.DEAD_LETTER_EXCEPTION_CLASS_NAME,
                failure.getClass().getName());
        put(headers, FailureHeaders.DEAD_LETTER_REASON, reason(failure));
        if (failure.getCause() != null) {
            put(
                    headers,
                    FailureHeaders.DEAD_LETTER_CAUSE_CLASS_NAME,
                    failure.getCause().getClass().getName());
            put(headers, FailureHeaders.DEAD_LETTER_CAUSE, reason(failure.getCause()));
        }
        put(headers, FailureHeaders.DEAD_LETTER_TOPIC, original(record, FailureHeaders.RETRY_TOPIC, record.topic()));
        put(
                headers,
                FailureHeaders.DEAD_LETTER_PARTITION,
                original(record, FailureHeaders.RETRY_PARTITION, Integer.toString(record.partition())));
        put(
                headers,
                FailureHeaders.DEAD_LETTER_OFFSET,
                original(record, FailureHeaders.RETRY_OFFSET, Long.toString(record.offset())));
        return new ProducerRecord<>(topics.deadLetterTopic(), null, record.key(), record.value(), headers);
    }

    /** The value {@code name} already has on {@code record} (it came through a retry), else {@code fresh}. */
    private static String original(ConsumerRecord<?, ?> record, String name, String fresh) {
        return text(record.headers(), name).orElse(fresh);
    }

    /** The longest reason a header carries; a longer message is cut there and ends in "...". */
    static final int MAX_REASON_LENGTH = 1_000;

    private static final Pattern LINE_BREAKS_AND_CONTROLS = Pattern.compile("\\s*[\\p{Cc}\\u2028\\u2029]+\\s*");

    /**
     * {@code failure}'s message as one line: line breaks and other control characters become one space each run (a
     * PostgreSQL error's "Detail:" line, a stack-like message), so that a log line or a table row per header holds.
     */
    static String reason(Throwable failure) {
        String message = failure.getMessage() == null ? failure.toString() : failure.getMessage();
        String line = LINE_BREAKS_AND_CONTROLS.matcher(message).replaceAll(" ").strip();
        return line.length() <= MAX_REASON_LENGTH ? line : line.substring(0, MAX_REASON_LENGTH - 3) + "...";
    }

    private static Headers copyWithout(Headers source, String prefix) {
        RecordHeaders copy = new RecordHeaders();
        for (Header header : source) {
            if (!header.key().startsWith(prefix)) {
                copy.add(header.key(), header.value());
            }
        }
        return copy;
    }

    private static void put(Headers headers, String name, String value) {
        headers.add(name, value.getBytes(StandardCharsets.UTF_8));
    }

    static Optional<String> text(Headers headers, String name) {
        Header header = headers.lastHeader(name);
        return header == null || header.value() == null
                ? Optional.empty()
                : Optional.of(new String(header.value(), StandardCharsets.UTF_8));
    }

    /**
     * The producer failed and re-driven records go out with: every record acknowledged by all in-sync replicas before
     * the consumer commits past it, and idempotent, so a producer retry never writes a record twice.
     */
    static KafkaProducer<String, byte[]> newProducer(KafkaClientSettings cluster, String clientId) {
        return new KafkaProducer<>(
                cluster.producer(Map.of(
                        ProducerConfig.ACKS_CONFIG,
                        "all",
                        ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG,
                        true,
                        ProducerConfig.CLIENT_ID_CONFIG,
                        clientId)),
                new StringSerializer(),
                new ByteArraySerializer());
    }
}
