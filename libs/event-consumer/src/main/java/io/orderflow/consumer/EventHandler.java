package io.orderflow.consumer;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

/**
 * A service's effect of events, applied in the batch's transaction. It runs at most once per event id with effect
 * (the processed-events claim guards it), in the record order of each partition.
 *
 * <p>{@link #applyAll} is the common path: a batch's new events at once, so that a handler can write them with a few
 * set-based statements instead of several per event. {@link #apply} is the path that finds the culprit: when
 * {@code applyAll} fails, the batch's transaction is rolled back and run again one event at a time. The two must have
 * the same effect on the database as applying the events one by one in the given order.
 *
 * <p>Throwing rolls the effect back, and the exception, or any cause it wraps, says what comes next
 * ({@link FailureKind}): {@link RejectedEventException} or an SQL data or integrity error (SQLSTATE class 22, 23, 54:
 * a value too long for its column, a check refusing it) sends the record straight to the dead-letter topic (retrying
 * cannot help); anything else sends it to the next retry topic, and to the dead-letter topic once the retries are
 * spent. A lost database connection or a serialization conflict fails the whole batch instead, which is tried again
 * until the database is back: an outage never dead-letters an event.
 */
public interface EventHandler {

    /** Whether this service applies events of {@code eventType} at all; other types are skipped unclaimed. */
    boolean handles(String eventType);

    /**
     * Takes the locks the handler's writes need, as the transaction's first statement: before the processed-events
     * claim, which is the transaction's first write. A handler that appends to an outbox takes its aggregates' advisory
     * locks here (libs/outbox's rule: PostgreSQL gives a transaction its id at its first write, and the relay publishes
     * in transaction-id order, so the lock must come before any write for an aggregate's events to stay in order).
     * {@code events} are all the batch's events the handler handles, new or already applied; by default no lock.
     */
    default void lockFirst(Connection transaction, List<ConsumedEvent> events) throws SQLException {}

    void apply(Connection transaction, ConsumedEvent event) throws Exception;

    /** Applies {@code events} in order; by default one {@link #apply} each. */
    default void applyAll(Connection transaction, List<ConsumedEvent> events) throws Exception {
        for (ConsumedEvent event : events) {
            apply(transaction, event);
        }
    }
}
