package io.orderflow.outbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.orderflow.postgres.PostgresDatabase;
import io.orderflow.testing.CleanSchema;
import io.orderflow.testing.PostgresTest;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The lock check comes before any parameter is set: a row without its aggregate's lock from this transaction is
 * refused, naming both. Many rows in one statement arrive whole and in order on a real PostgreSQL (single rows are
 * written by order-service's and the relay's tests).
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
    void refusesManyRowsWhenOneAggregateIsNotLockedBeforeSettingAnything() {
        HeldAggregateLocks locks = new HeldAggregateLocks(Set.of("order-1"), THIS_TRANSACTION);

        assertThatThrownBy(() -> OutboxInsert.bindAll(
                        null, locks, THIS_TRANSACTION, List.of(entryOf("order-1"), entryOf("order-2"))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("order-2");
    }

    @Test
    @PostgresTest(service = "outbox-insert")
    void manyRowsInOneStatementAreStoredColumnForColumnInTheGivenOrder(PostgresDatabase database) throws Exception {
        CleanSchema.migrate(database, "classpath:db/outbox");
        List<OutboxEntry> entries = List.of(
                new OutboxEntry(
                        UUID.randomUUID(),
                        "order-2",
                        1,
                        "InventoryReserved",
                        "1.0",
                        "{\"a\":1}",
                        "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
                        Instant.parse("2026-12-02T10:00:00.123456Z")),
                new OutboxEntry(
                        UUID.randomUUID(),
                        "order-1",
                        7,
                        "InventoryRejected",
                        "1.0",
                        "{\"b\":2}",
                        null,
                        Instant.parse("2026-12-02T10:00:01Z")));
        try (Connection connection = database.connect()) {
            connection.setAutoCommit(false);
            HeldAggregateLocks locks = AggregateLocks.acquire(connection, List.of("order-1", "order-2"), connection);
            try (PreparedStatement insert = connection.prepareStatement(OutboxInsert.SQL_MANY)) {
                OutboxInsert.bindAll(insert, locks, connection, entries);
                assertThat(insert.executeUpdate()).isEqualTo(2);
            }
            connection.commit();
            OutboxTable table = new OutboxTable(connection);
            OutboxRow second = table.rowsOf("order-1").getFirst();
            OutboxRow first = table.rowsOf("order-2").getFirst();

            assertThat(first.entry()).isEqualTo(entries.get(0));
            assertThat(second.entry()).isEqualTo(entries.get(1));
            assertThat(first.id()).isLessThan(second.id());
        }
    }

    @Test
    void refusesALockTakenInAnotherTransaction() {
        HeldAggregateLocks stale = new HeldAggregateLocks(Set.of("order-1"), new Object());

        assertThatThrownBy(() -> OutboxInsert.bind(null, stale, THIS_TRANSACTION, entryOf("order-1")))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("another transaction");
    }
}
