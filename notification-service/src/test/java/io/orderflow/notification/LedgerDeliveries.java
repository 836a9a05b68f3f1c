package io.orderflow.notification;

import io.orderflow.consumer.ConsumedEvent;
import io.orderflow.consumer.EventHandler;
import io.orderflow.consumer.ProcessedEvents;
import io.orderflow.contracts.EventCodec;
import io.orderflow.contracts.EventEnvelope;
import io.orderflow.contracts.Topics;
import io.orderflow.contracts.order.OrderEvent;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import javax.sql.DataSource;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * Delivers order events to a handler the way event-consumer's {@code EventBatchProcessor} does, without a broker: one
 * transaction per batch, event types the handler does not handle skipped, the batch's ids claimed in
 * {@code processed_events} and only the new ones (first copy of each) handed to {@code applyAll}. So a test controls
 * exactly which events share a batch, and in which order the batches commit; {@link #pending} says what the ledger left
 * for the mail sender.
 */
final class LedgerDeliveries {

    private final EventCodec codec = new EventCodec();
    private final DataSource dataSource;
    private final EventHandler handler;

    LedgerDeliveries(DataSource dataSource, EventHandler handler) {
        this.dataSource = dataSource;
        this.handler = handler;
    }

    /** {@code event} as consumed from the orders topic, in a new envelope with the id {@code eventId}. */
    ConsumedEvent consumed(OrderEvent event, UUID eventId) {
        EventEnvelope envelope = codec.wrap(event, eventId, Instant.now(), "test", null);
        ConsumerRecord<String, byte[]> record =
                new ConsumerRecord<>(Topics.ORDERS, 0, 0L, event.orderId(), codec.encode(envelope));
        return new ConsumedEvent(record, envelope, event);
    }

    /** {@code event} in a new envelope with a fresh id. */
    ConsumedEvent consumed(OrderEvent event) {
        return consumed(event, UUID.randomUUID());
    }

    /** Applies {@code batch} in a transaction of its own and commits it. */
    void deliver(List<ConsumedEvent> batch) throws Exception {
        try (Connection tx = dataSource.getConnection()) {
            tx.setAutoCommit(false);
            deliver(tx, batch);
            tx.commit();
        }
    }

    /** Applies {@code batch} in {@code tx}, which the caller commits. */
    void deliver(Connection tx, List<ConsumedEvent> batch) throws Exception {
        List<ConsumedEvent> handled = batch.stream()
                .filter(event -> handler.handles(event.envelope().eventType()))
                .toList();
        Set<UUID> fresh = ProcessedEvents.claim(tx, handled);
        List<ConsumedEvent> toApply = new ArrayList<>();
        for (ConsumedEvent event : handled) {
            if (fresh.remove(event.envelope().eventId())) {
                toApply.add(event);
            }
        }
        handler.applyAll(tx, toApply);
    }

    /** How many mails of {@code orderIds} are still pending. */
    long pending(Collection<String> orderIds) throws SQLException {
        try (Connection connection = dataSource.getConnection();
                PreparedStatement select = connection.prepareStatement(
                        "SELECT count(*) FROM notifications WHERE order_id = ANY (?) AND status = 'PENDING'")) {
            select.setArray(1, connection.createArrayOf("text", orderIds.toArray()));
            try (ResultSet row = select.executeQuery()) {
                row.next();
                return row.getLong(1);
            }
        }
    }
}
