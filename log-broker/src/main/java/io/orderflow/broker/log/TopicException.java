package io.orderflow.broker.log;

/**
 * A topic-level request we refuse; {@link Reason} says which Kafka error it is, in one place for the error
 * table.
 */
public final class TopicException extends LogException {
    /** Why; each maps to one Kafka error code. */
    public enum Reason {
        ALREADY_EXISTS,
        UNKNOWN_TOPIC_OR_PARTITION,
        UNKNOWN_TOPIC_ID,
        INVALID_NAME,
        INVALID_PARTITIONS,
        INVALID_REPLICATION_FACTOR,
        /** More partitions than {@code max.partitions} allows on the broker. */
        PARTITION_LIMIT
    }

    private final Reason reason;
    private final String topic;

    public TopicException(Reason reason, String topic, String message) {
        super(message);
        this.reason = reason;
        this.topic = topic;
    }

    public Reason reason() {
        return reason;
    }

    public String topic() {
        return topic;
    }
}
