package io.orderflow.outbox;

import java.time.Instant;
import java.util.Objects;
import java.util.UUID;

/**
 * One outbox row as a writer gives it: the event and the aggregate version it records. The columns the database fills
 * ({@code id}, {@code tx_id}, {@code created_at}) and the relay's ({@code published_at}, {@code quarantined_at}) are
 * not here.
 *
 * @param payload the event envelope as JSON text, byte for byte what the relay publishes
 * @param traceparent the W3C trace context to carry on, or null
 */
public record OutboxEntry(
        UUID eventId,
        String aggregateId,
        long aggregateVersion,
        String eventType,
        String eventVersion,
        String payload,
        String traceparent,
        Instant occurredAt) {
    public OutboxEntry {
        Objects.requireNonNull(eventId, "eventId");
        Objects.requireNonNull(aggregateId, "aggregateId");
        Objects.requireNonNull(eventType, "eventType");
        Objects.requireNonNull(eventVersion, "eventVersion");
        Objects.requireNonNull(payload, "payload");
        Objects.requireNonNull(occurredAt, "occurredAt");
    }
}
