package io.orderflow.notification;

import io.orderflow.consumer.ConsumedEvent;
import io.orderflow.consumer.EventHandler;
import io.orderflow.contracts.order.OrderCancelled;
import io.orderflow.contracts.order.OrderCreated;
import io.orderflow.contracts.order.OrderShipped;
import io.quarkus.qute.Location;
import io.quarkus.qute.Template;
import jakarta.inject.Singleton;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;

/**
 * Turns {@code OrderCreated}, {@code OrderShipped} and {@code OrderCancelled} into one pending mail each, rendered from
 * the templates under {@code templates/mail/}, in the batch's transaction: the processed-events claim makes that once
 * per event id, and {@link MailSender} sends it afterwards. The recipient is the order's customer, known from its
 * {@code OrderCreated}; a mail of an order whose {@code OrderCreated} has not arrived yet (it waits in a retry topic)
 * waits for it.
 *
 * <p>A batch takes three statements whatever its size: the batch's customers, its mails (addressed from the customers
 * known by then), and the addresses of earlier mails that were waiting for one of those customers. Thread-safe
 * (stateless).
 */
@Singleton
public class NotificationLedger implements EventHandler {

    private static final Set<String> HANDLED = Set.of("OrderCreated", "OrderShipped", "OrderCancelled");

    private static final String REMEMBER_CUSTOMERS = """
            INSERT INTO order_customers (order_id, customer_id)
            SELECT * FROM unnest(?::text[], ?::text[])
            ON CONFLICT DO NOTHING
            """;
    private static final String INSERT_MAILS = """
            INSERT INTO notifications (event_id, order_id, event_type, subject, body, recipient)
            SELECT m.event_id, m.order_id, m.event_type, m.subject, m.body, c.customer_id || '@' || ?
            FROM unnest(?::uuid[], ?::text[], ?::text[], ?::text[], ?::text[])
                AS m (event_id, order_id, event_type, subject, body)
            LEFT JOIN order_customers c ON c.order_id = m.order_id
            """;
    private static final String ADDRESS_WAITING_MAILS = """
            UPDATE notifications n SET recipient = c.customer_id || '@' || ?
            FROM unnest(?::text[]) AS k (order_id)
            JOIN order_customers c ON c.order_id = k.order_id
            WHERE n.order_id = k.order_id AND n.recipient IS NULL
            """;

    private final Template created;
    private final Template shipped;
    private final Template cancelled;
    private final String recipientDomain;

    NotificationLedger(
            @Location("mail/OrderCreated.txt") Template created,
            @Location("mail/OrderShipped.txt") Template shipped,
            @Location("mail/OrderCancelled.txt") Template cancelled,
            NotificationConfig config) {
        this.created = created;
        this.shipped = shipped;
        this.cancelled = cancelled;
        this.recipientDomain = config.recipientDomain();
    }

    @Override
    public boolean handles(String eventType) {
        return HANDLED.contains(eventType);
    }

    @Override
    public void apply(Connection tx, ConsumedEvent event) throws SQLException {
        applyAll(tx, List.of(event));
    }

    @Override
    public void applyAll(Connection tx, List<ConsumedEvent> events) throws SQLException {
        List<Mail> mails = new ArrayList<>(events.size());
        List<String> customerOrders = new ArrayList<>();
        List<String> customers = new ArrayList<>();
        for (ConsumedEvent event : events) {
            if (event.event() instanceof OrderCreated order) {
                customerOrders.add(order.orderId());
                customers.add(order.customerId());
            }
            mails.add(render(event));
        }
        if (!customerOrders.isEmpty()) {
            try (PreparedStatement insert = tx.prepareStatement(REMEMBER_CUSTOMERS)) {
                insert.setArray(1, tx.createArrayOf("text", customerOrders.toArray()));
                insert.setArray(2, tx.createArrayOf("text", customers.toArray()));
                insert.executeUpdate();
            }
        }
        if (!mails.isEmpty()) {
            try (PreparedStatement insert = tx.prepareStatement(INSERT_MAILS)) {
                insert.setString(1, recipientDomain);
                insert.setArray(
                        2,
                        tx.createArrayOf(
                                "uuid", mails.stream().map(Mail::eventId).toArray()));
                insert.setArray(
                        3,
                        tx.createArrayOf(
                                "text", mails.stream().map(Mail::orderId).toArray()));
                insert.setArray(
                        4,
                        tx.createArrayOf(
                                "text", mails.stream().map(Mail::eventType).toArray()));
                insert.setArray(
                        5,
                        tx.createArrayOf(
                                "text", mails.stream().map(Mail::subject).toArray()));
                insert.setArray(
                        6,
                        tx.createArrayOf("text", mails.stream().map(Mail::body).toArray()));
                insert.executeUpdate();
            }
        }
        if (!customerOrders.isEmpty()) {
            try (PreparedStatement address = tx.prepareStatement(ADDRESS_WAITING_MAILS)) {
                address.setString(1, recipientDomain);
                address.setArray(2, tx.createArrayOf("text", customerOrders.toArray()));
                address.executeUpdate();
            }
        }
    }

    private record Mail(UUID eventId, String orderId, String eventType, String subject, String body) {}

    private Mail render(ConsumedEvent consumed) {
        String subject;
        String body;
        switch (consumed.event()) {
            case OrderCreated order -> {
                subject = "Your order " + order.orderId();
                body = created.data("customerId", order.customerId())
                        .data("orderId", order.orderId())
                        .data("itemCount", order.items().size())
                        .data("total", order.total().toPlainString())
                        .data("currency", order.currency())
                        .render();
            }
            case OrderShipped order -> {
                subject = "Your order " + order.orderId() + " has shipped";
                body = shipped.data("orderId", order.orderId())
                        .data("carrier", order.carrier())
                        .data("trackingNumber", order.trackingNumber())
                        .render();
            }
            case OrderCancelled order -> {
                subject = "Your order " + order.orderId() + " was cancelled";
                body = cancelled
                        .data("orderId", order.orderId())
                        .data("reason", order.reason())
                        .render();
            }
            default ->
                throw new IllegalArgumentException(
                        "not a notification event: " + consumed.envelope().eventType());
        }
        return new Mail(
                consumed.envelope().eventId(),
                consumed.envelope().orderId(),
                consumed.envelope().eventType(),
                subject,
                body);
    }
}
