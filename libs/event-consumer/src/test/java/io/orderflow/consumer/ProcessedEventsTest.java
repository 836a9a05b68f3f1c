package io.orderflow.consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.orderflow.contracts.EventCodec;
import io.orderflow.contracts.EventEnvelope;
import io.orderflow.contracts.order.OrderCancelled;
import io.orderflow.postgres.PostgresDatabase;
import io.orderflow.testing.CleanSchema;
import io.orderflow.testing.PostgresTest;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

@PostgresTest(service = "event-consumer")
class ProcessedEventsTest {
    private final EventCodec codec = new EventCodec();
    private PostgresDatabase database;

    @BeforeEach
    void migrate(PostgresDatabase database) throws SQLException {
        this.database = database;
        CleanSchema.migrate(database, "classpath:db/consumer");
    }

    @Test
    void aRedeliveredEventIsClaimedOnceAndTheReaderSeesWhatWasApplied() throws SQLException {
        ConsumedEvent first = cancelled("order-1");
        ConsumedEvent second = cancelled("order-2");
        try (Connection connection = database.connect()) {
            Instant before = Instant.now().minusSeconds(60);

            assertThat(ProcessedEvents.claim(connection, List.of(first, second, first)))
                    .containsExactlyInAnyOrder(
                            first.envelope().eventId(), second.envelope().eventId());
            assertThat(ProcessedEvents.claim(connection, List.of(first))).isEmpty();

            assertThat(ProcessedEvents.count(connection)).isEqualTo(2);
            assertThat(ProcessedEvents.count(connection, "OrderCancelled")).isEqualTo(2);
            assertThat(ProcessedEvents.count(connection, "OrderCreated")).isZero();
            List<ProcessedEvents.Applied> applied = ProcessedEvents.applied(connection);
            assertThat(applied)
                    .extracting(ProcessedEvents.Applied::eventId)
                    .containsExactlyInAnyOrderElementsOf(
                            Set.of(first.envelope().eventId(), second.envelope().eventId()));
            assertThat(applied).allSatisfy(a -> {
                assertThat(a.eventType()).isEqualTo("OrderCancelled");
                assertThat(a.processedAt()).isAfter(before);
            });
        }
    }

    /**
     * The idempotency conflict never reaches a handler as an error: a claim of an id that another transaction claimed
     * and has not committed waits for it, then returns nothing (the event is a duplicate), with no unique violation
     * (23505) that {@link FailureKind} would take for a permanent failure.
     */
    @Test
    void aClaimRacingAnUncommittedClaimOfTheSameIdWaitsForItAndThenFindsADuplicateNotAUniqueViolation()
            throws Exception {
        ConsumedEvent event = cancelled("order-1");
        try (Connection first = database.connect();
                Connection second = database.connect()) {
            first.setAutoCommit(false);
            second.setAutoCommit(false);
            assertThat(ProcessedEvents.claim(first, List.of(event)))
                    .containsExactly(event.envelope().eventId());

            CompletableFuture<Set<UUID>> racing = CompletableFuture.supplyAsync(() -> {
                try {
                    return ProcessedEvents.claim(second, List.of(event));
                } catch (SQLException e) {
                    throw new CompletionException(e);
                }
            });
            await().atMost(Duration.ofSeconds(30)).until(() -> waitingForALock() == 1);
            first.commit();

            assertThat(racing.get(30, TimeUnit.SECONDS)).isEmpty();
            second.commit();
            assertThat(ProcessedEvents.count(second)).isEqualTo(1);
        }
    }

    private long waitingForALock() throws SQLException {
        try (Connection observer = database.connect();
                Statement statement = observer.createStatement();
                ResultSet row = statement.executeQuery("SELECT count(*) FROM pg_locks WHERE NOT granted")) {
            row.next();
            return row.getLong(1);
        }
    }

    private ConsumedEvent cancelled(String orderId) {
        OrderCancelled event = new OrderCancelled(orderId, "test");
        EventEnvelope envelope = codec.wrap(event, UUID.randomUUID(), Instant.now(), "test", null);
        return new ConsumedEvent(new ConsumerRecord<>("orders", 0, 0, orderId, new byte[0]), envelope, event);
    }
}
