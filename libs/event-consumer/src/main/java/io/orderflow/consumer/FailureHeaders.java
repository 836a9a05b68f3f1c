package io.orderflow.consumer;

/**
 * The record headers of retry and dead-letter records: the names SmallRye Reactive Messaging Kafka writes in its
 * {@code delayed-retry-topic} and {@code dead-letter-queue} failure strategies (version 4.33, the one Quarkus 3.33
 * ships), so that tools written for those read ours, plus {@link #REDRIVE_COUNT}. Values are UTF-8 text on one line.
 */
public final class FailureHeaders {

    /** How many retries came before this one: "0" on the first retry record, "1" on the second, ... */
    public static final String RETRY_COUNT = "delayed-retry-count";
    /** The original record's timestamp (epoch milliseconds). */
    public static final String RETRY_ORIGINAL_TIMESTAMP = "delayed-retry-original-timestamp";
    /** When the first attempt failed (epoch milliseconds). */
    public static final String RETRY_FIRST_PROCESSING_TIMESTAMP = "delayed-retry-first-processing-timestamp";

    public static final String RETRY_EXCEPTION_CLASS_NAME = "delayed-retry-exception-class-name";
    public static final String RETRY_REASON = "delayed-retry-reason";
    public static final String RETRY_CAUSE_CLASS_NAME = "delayed-retry-cause-class-name";
    public static final String RETRY_CAUSE = "delayed-retry-cause";
    /** Topic, partition and offset of the original record (not of a retry record it went through). */
    public static final String RETRY_TOPIC = "delayed-retry-topic";

    public static final String RETRY_PARTITION = "delayed-retry-partition";
    public static final String RETRY_OFFSET = "delayed-retry-offset";

    public static final String DEAD_LETTER_EXCEPTION_CLASS_NAME = "dead-letter-exception-class-name";
    public static final String DEAD_LETTER_REASON = "dead-letter-reason";
    public static final String DEAD_LETTER_CAUSE_CLASS_NAME = "dead-letter-cause-class-name";
    public static final String DEAD_LETTER_CAUSE = "dead-letter-cause";
    /** Topic, partition and offset of the original record. */
    public static final String DEAD_LETTER_TOPIC = "dead-letter-topic";

    public static final String DEAD_LETTER_PARTITION = "dead-letter-partition";
    public static final String DEAD_LETTER_OFFSET = "dead-letter-offset";

    /**
     * How many times the record's origin was re-driven from the dead-letter topic before this copy: absent (0) until
     * the first re-drive, "1" on its copy and on whatever that copy becomes (a retry, a dead letter again). Ours, not
     * SmallRye's; it keeps its name through retries and dead-lettering, which replace only their own prefixes.
     */
    public static final String REDRIVE_COUNT = "redrive-count";

    private FailureHeaders() {}
}
