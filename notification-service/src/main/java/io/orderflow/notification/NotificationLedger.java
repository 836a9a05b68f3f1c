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
import java.util.Set;

/**
 * Turns {@code OrderCreated}, {@code OrderShipped} and {@code OrderCancelled} into one pending mail each, rendered from
 * the templates under {@code templates/mail/}, in the batch's transaction: the processed-events claim makes that once
 * per event id, and {@link MailSender} sends it afterwards. The recipient is the order's customer, known from its
 * {@code OrderCreated}; a mail of an order whose {@code OrderCreated} has not arrived yet (it waits in a retry topic)
 * waits for it. Thread-safe (stateless).
 */
@Singleton
public class NotificationLedger implements EventHandler {

    private static final Set<String> HANDLED = Set.of("OrderCreated", "OrderShipped", "OrderCancelled");

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
    public void apply(Connection tx, ConsumedEvent consumed) throws SQLException {
        String subject;
        String body;
        switch (consumed.event()) {
            case OrderCreated order -> {
                rememberCustomer(tx, order.orderId(), order.customerId());
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
            default -> {
                return; // handles() admits only the three types above
            }
        }
        try (PreparedStatement insert = tx.prepareStatement("INSERT INTO notifications (event_id, order_id, event_type,"
                + " subject, body, recipient) SELECT ?, ?, ?, ?, ?, (SELECT customer_id || '@' || ? FROM order_customers"
                + " WHERE order_id = ?)")) {
            insert.setObject(1, consumed.envelope().eventId());
            insert.setString(2, consumed.envelope().orderId());
            insert.setString(3, consumed.envelope().eventType());
            insert.setString(4, subject);
            insert.setString(5, body);
            insert.setString(6, recipientDomain);
            insert.setString(7, consumed.envelope().orderId());
            insert.executeUpdate();
        }
    }

    /** Records the order's customer and addresses the order's mails that were waiting for it. */
    private void rememberCustomer(Connection tx, String orderId, String customerId) throws SQLException {
        try (PreparedStatement insert = tx.prepareStatement(
                        "INSERT INTO order_customers (order_id, customer_id) VALUES (?, ?) ON CONFLICT DO NOTHING");
                PreparedStatement address = tx.prepareStatement("UPDATE notifications SET recipient = ? || '@' || ?"
                        + " WHERE order_id = ? AND recipient IS NULL")) {
            insert.setString(1, orderId);
            insert.setString(2, customerId);
            insert.executeUpdate();
            address.setString(1, customerId);
            address.setString(2, recipientDomain);
            address.setString(3, orderId);
            address.executeUpdate();
        }
    }
}
