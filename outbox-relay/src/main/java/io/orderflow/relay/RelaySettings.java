package io.orderflow.relay;

import java.time.Duration;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * How the relay behaves; every value is a configuration property of the service, declared with its default in
 * {@code RelayConfig} and nowhere else (tests take the defaults from there too).
 *
 * <p>The {@code with...} methods return a copy with one value replaced, checked by the constructor like any new
 * settings. They share one private copy ({@code Copy}) instead of each repeating the constructor call, so a new value
 * is added to the record, {@code Copy} and {@code RelayConfig}.
 *
 * @param topic where events go ({@code orders})
 * @param batchSize rows read and published per cycle at most
 * @param pollInterval how long to wait for a commit notification before looking anyway (the fallback when a
 *     NOTIFY is missed)
 * @param horizonRetry how soon to look again when committed rows wait behind a still-running older transaction
 * @param retention how long published rows are kept before they are deleted
 * @param purgeInterval how often the leader deletes rows past their retention
 * @param maxRecordBytes the largest record (key, value and headers) the relay sends; larger rows are quarantined
 * @param backoffMin first wait after a database error
 * @param backoffMax longest wait between retries after database errors
 * @param standbyRetry how often a standby tries to become the leader
 * @param brokerTimeout how long sends may wait for the broker before the relay reports itself not ready
 * @param leaderLockId the relay group's advisory lock (instances with the same id take turns)
 */
public record RelaySettings(
        String topic,
        int batchSize,
        Duration pollInterval,
        Duration horizonRetry,
        Duration retention,
        Duration purgeInterval,
        int maxRecordBytes,
        Duration backoffMin,
        Duration backoffMax,
        Duration standbyRetry,
        Duration brokerTimeout,
        int leaderLockId) {

    public RelaySettings {
        Objects.requireNonNull(topic, "topic");
        if (batchSize < 1) {
            throw new IllegalArgumentException("batch size must be at least 1, was " + batchSize);
        }
        if (maxRecordBytes < 1) {
            throw new IllegalArgumentException("max record bytes must be positive, was " + maxRecordBytes);
        }
    }

    public RelaySettings withTopic(String value) {
        return copy(c -> c.topic = value);
    }

    public RelaySettings withRetention(Duration value) {
        return copy(c -> c.retention = value);
    }

    public RelaySettings withPurgeInterval(Duration value) {
        return copy(c -> c.purgeInterval = value);
    }

    public RelaySettings withPollInterval(Duration value) {
        return copy(c -> c.pollInterval = value);
    }

    public RelaySettings withBatchSize(int value) {
        return copy(c -> c.batchSize = value);
    }

    public RelaySettings withMaxRecordBytes(int value) {
        return copy(c -> c.maxRecordBytes = value);
    }

    public RelaySettings withBrokerTimeout(Duration value) {
        return copy(c -> c.brokerTimeout = value);
    }

    /** These settings with what {@code change} sets replaced, checked by the constructor as any new settings. */
    private RelaySettings copy(Consumer<Copy> change) {
        Copy copy = new Copy();
        change.accept(copy);
        return copy.settings();
    }

    /**
     * The values of these settings (each field starts as the value of the settings' accessor of its name), to change
     * some before {@link #settings()} makes settings of them.
     */
    private final class Copy {
        private String topic = topic();
        private int batchSize = batchSize();
        private Duration pollInterval = pollInterval();
        private Duration horizonRetry = horizonRetry();
        private Duration retention = retention();
        private Duration purgeInterval = purgeInterval();
        private int maxRecordBytes = maxRecordBytes();
        private Duration backoffMin = backoffMin();
        private Duration backoffMax = backoffMax();
        private Duration standbyRetry = standbyRetry();
        private Duration brokerTimeout = brokerTimeout();
        private int leaderLockId = leaderLockId();

        private RelaySettings settings() {
            return new RelaySettings(
                    topic,
                    batchSize,
                    pollInterval,
                    horizonRetry,
                    retention,
                    purgeInterval,
                    maxRecordBytes,
                    backoffMin,
                    backoffMax,
                    standbyRetry,
                    brokerTimeout,
                    leaderLockId);
        }
    }
}
