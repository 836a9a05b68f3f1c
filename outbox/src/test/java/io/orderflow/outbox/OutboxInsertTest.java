package io.orderflow.outbox;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The lock check comes before any parameter is set: a row without its aggregate's lock from this transaction is
 * refused, naming both. (Rows that pass are written by order-service's and the relay's tests on a real PostgreSQL.)
 */
class OutboxInsertTest {
    private static final Object THIS_TRANSACTION = new Object();

    private static OutboxEntry entryOf(String aggregateId) {
        return new OutboxEntry(
                UUID.randomUUID(),
                aggregateId,
                1,
                "OrderCreated",
                "1",
                "{}",
                null,
                Instant.parse("2026-12-02T00:00:00Z"));
    }

    @Test
    void refusesARowWhoseAggregateIsNotLocked() {
        HeldAggregateLocks locks = new HeldAggregateLocks(Set.of("order-1"), THIS_TRANSACTION);

        assertThatThrownBy(() -> OutboxInsert.bind(null, locks, THIS_TRANSACTION, entryOf("order-2")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("order-2")
                .hasMessageContaining("order-1");
    }

    @Test
    void refusesALockTakenInAnotherTransaction() {
        HeldAggregateLocks stale = new HeldAggregateLocks(Set.of("order-1"), new Object());

        assertThatThrownBy(() -> OutboxInsert.bind(null, stale, THIS_TRANSACTION, entryOf("order-1")))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("another transaction");
    }
}
