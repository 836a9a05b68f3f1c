package io.orderflow.outbox;

import java.time.Instant;

/**
 * One stored row of the outbox table: the entry its writer gave ({@link OutboxEntry}) and the columns the database
 * filled in. The relay publishes it keyed by the entry's aggregate (an order id, for every event this platform
 * publishes).
 *
 * @param id insertion order within the writing transaction
 * @param txId the writing transaction's id ({@code xid8}); rows are published in {@code (txId, id)} order
 * @param createdAt when the row was written (the database's clock), the start of the relay's latency
 */
public record OutboxRow(long id, long txId, OutboxEntry entry, Instant createdAt) {}
