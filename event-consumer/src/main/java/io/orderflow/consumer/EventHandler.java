package io.orderflow.consumer;

import java.sql.Connection;

/**
 * A service's effect of one event, applied in the batch's transaction. It runs at most once per event id with effect
 * (the processed-events claim guards it), in the record order of each partition.
 *
 * <p>Throwing rolls the effect back: {@link RejectedEventException} sends the record straight to the dead-letter topic
 * (retrying cannot help); anything else sends it to the next retry topic, and to the dead-letter topic once the
 * retries are spent. A lost database connection fails the whole batch instead, which is tried again until the
 * database is back: an outage never dead-letters an event.
 */
public interface EventHandler {

    /** Whether this service applies events of {@code eventType} at all; other types are skipped unclaimed. */
    boolean handles(String eventType);

    void apply(Connection transaction, ConsumedEvent event) throws Exception;
}
