package io.orderflow.consumer;

/**
 * What one batch came to: records applied, skipped as duplicates, skipped as types this service does not handle (or
 * does not know), sent to a retry topic, and sent to the dead-letter topic; {@code transactions} counts the database
 * transactions it took (1 unless a handler failed or the database was away).
 */
public record BatchOutcome(int applied, int duplicates, int ignored, int retried, int deadLettered, int transactions) {

    public int records() {
        return applied + duplicates + ignored + retried + deadLettered;
    }
}
