package io.orderflow.relay;

import java.time.Instant;
import java.util.UUID;

/**
 * One row of the outbox table as the relay reads it: an event to publish, keyed by its order.
 *
 * @param id insertion order within the writing transaction
 * @param txId the writing transaction's id ({@code xid8}); rows are published in {@code (txId, id)} order
 * @param payload the event envelope's JSON, published byte for byte as the record value
 * @param createdAt when the row was written (the database's clock), the start of the relay's latency
 */
public record OutboxRow(
        long id,
        long txId,
        UUID eventId,
        String aggregateId,
        long aggregateVersion,
        String eventType,
        String eventVersion,
        String payload,
        String traceparent,
        Instant createdAt) {}
