package io.orderflow.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.contracts.EventCodec;
import io.orderflow.contracts.EventEnvelope;
import io.orderflow.contracts.order.OrderCancelled;
import io.orderflow.postgres.PostgresDatabase;
import io.orderflow.testing.CleanSchema;
import io.orderflow.testing.PostgresTest;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.UUID;
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

    private ConsumedEvent cancelled(String orderId) {
        OrderCancelled event = new OrderCancelled(orderId, "test");
        EventEnvelope envelope = codec.wrap(event, UUID.randomUUID(), Instant.now(), "test", null);
        return new ConsumedEvent(new ConsumerRecord<>("orders", 0, 0, orderId, new byte[0]), envelope, event);
    }
}
