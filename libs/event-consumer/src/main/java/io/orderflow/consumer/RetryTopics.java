package io.orderflow.consumer;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Where a consumer's failed records go: retry topics named like SmallRye's delayed-retry-topic strategy,
 * {@code <base>_retry_<delay in ms>} (the delay is read back from the name), then the dead-letter topic
 * {@code dead-letter-topic-<base>}. The base is the consumer group, e.g. {@code inventory-service}.
 *
 * <p>A record is tried once from its topic and then once per retry; the n-th retry (counting from 0) waits in
 * {@code delays[min(n, last)]}, and a record that failed {@code maxRetries} retries goes to the dead-letter topic.
 * Immutable.
 */
public record RetryTopics(String base, List<Duration> delays, int maxRetries) {

    private static final String RETRY_INFIX = "_retry_";

    public RetryTopics {
        Objects.requireNonNull(base, "base");
        if (base.isBlank()) {
            throw new IllegalArgumentException("the retry topics' base name must not be blank");
        }
        delays = List.copyOf(delays);
        if (delays.isEmpty() || delays.stream().anyMatch(d -> d.isNegative() || d.isZero())) {
            throw new IllegalArgumentException("retry delays must be positive and at least one, were " + delays);
        }
        if (maxRetries < 0) {
            throw new IllegalArgumentException("max retries must not be negative, was " + maxRetries);
        }
    }

    /** One retry per delay. */
    public static RetryTopics of(String base, List<Duration> delays) {
        return new RetryTopics(base, delays, delays.size());
    }

    /** The topic of the retry that comes after {@code priorRetries} retries. */
    public String retryTopic(int priorRetries) {
        return base
                + RETRY_INFIX
                + delays.get(Math.min(priorRetries, delays.size() - 1)).toMillis();
    }

    public List<String> retryTopicNames() {
        return delays.stream()
                .map(d -> base + RETRY_INFIX + d.toMillis())
                .distinct()
                .toList();
    }

    public String deadLetterTopic() {
        return "dead-letter-topic-" + base;
    }

    /** The re-drive log of {@link DeadLetterRedrive}: compacted, keyed by origin. */
    public String redriveLogTopic() {
        return "dead-letter-redrives-" + base;
    }

    /** How long records of {@code topic} wait before they are tried, if it is one of these retry topics. */
    public Optional<Duration> delayOf(String topic) {
        if (!topic.startsWith(base + RETRY_INFIX)) {
            return Optional.empty();
        }
        try {
            return Optional.of(Duration.ofMillis(Long.parseLong(topic.substring((base + RETRY_INFIX).length()))));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }
}
