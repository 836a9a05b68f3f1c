package io.orderflow.broker.quota;

import java.util.Arrays;
import java.util.Optional;

/**
 * The client quotas the broker enforces, by the configuration key {@code kafka-configs} and AlterClientQuotas use
 * (KIP-13, KIP-124). A byte rate is in bytes per second and must be whole; the request percentage is the share of
 * one thread's time the broker may spend on the client's requests per second (100 = one whole thread), as in
 * Kafka.
 */
public enum QuotaType {
    /** Bytes per second of Produce requests received. */
    PRODUCE("producer_byte_rate", true),
    /** Bytes per second of Fetch responses sent. */
    FETCH("consumer_byte_rate", true),
    /** Percent of one thread's time per second spent handling the client's requests. */
    REQUEST("request_percentage", false);

    private final String key;
    private final boolean integral;

    QuotaType(String key, boolean integral) {
        this.key = key;
        this.integral = integral;
    }

    /** The configuration key, e.g. {@code producer_byte_rate}. */
    public String key() {
        return key;
    }

    /** Whether values must be whole numbers (Kafka's LONG quota keys). */
    boolean integral() {
        return integral;
    }

    public static Optional<QuotaType> forKey(String key) {
        return Arrays.stream(values()).filter(t -> t.key.equals(key)).findFirst();
    }
}
