package io.orderflow.outbox;

import java.time.Instant;
import java.util.UUID;

/**
 * When one outbox row was written and when the relay published it, as {@link OutboxTable#publications} reads it.
 *
 * @param aggregateId the key its record is published with (an order id)
 * @param createdAt when the row was written (the database's clock)
 * @param publishedAt when the broker acknowledged its record, or null while it is pending or quarantined
 */
public record OutboxPublication(String aggregateId, UUID eventId, Instant createdAt, Instant publishedAt) {}
