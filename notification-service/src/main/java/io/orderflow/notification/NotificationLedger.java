package io.orderflow.notification;

import io.orderflow.consumer.ConsumedEvent;
import io.orderflow.consumer.EventHandler;
import io.orderflow.contracts.order.OrderCancelled;
import io.orderflow.contracts.order.OrderCreated;
import io.orderflow.contracts.order.OrderRejected;
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
import java.util.function.Function;

/**
 * Turns {@code OrderCreated}, {@code OrderShipped}, {@code OrderCancelled} and {@code OrderRejected} into one pending
 * mail each, rendered from the templates under {@code templates/mail/}, in the batch's transaction: the
 * processed-events claim makes that once per event id, and {@link MailSender} sends it afterwards. {@code OrderPaid}
 * sends no mail: the confirmation already promised the next mail for the shipment; nor does {@code OrderConfirmed}:
 * the confirmation mail is the customer's receipt, and inventory's reservation is no news to them
 * (notification-service/README.md, "Which mails, in which order").
 *
 * <p><b>Whatever order the events arrive in.</b> A retry can take an order's {@code OrderCreated} out of its sequence,
 * so its shipment, cancellation or rejection may arrive first. Each mail is written as it comes, with its event's
 * {@link LifecycleStep}, and nothing here waits or rewrites: the sender holds a mail while a mail of an earlier step of
 * its order is pending, and addresses it from {@code order_customers} (written here from {@code OrderCreated}) when it
 * sends it. So the confirmation always goes first, a mail whose order's customer is not known yet simply waits, and the
 * customer receives the same mails in the same order as if the events had arrived in order.
 *
 * <p>Because no write depends on what another transaction wrote, the main and retry channels may apply events of one
 * order at the same time without a lock: an {@code OrderShipped} committed beside its {@code OrderCreated} is neither
 * lost nor sent first ({@code OutOfOrderMailsTest}).
 *
 * <p>A batch takes at most two statements whatever its size: the batch's customers, and its mails. Thread-safe
 * (stateless).
 */
@Singleton
public class NotificationLedger implements EventHandler {

    private static final Set<String> HANDLED =
            Set.of("OrderCreated", "OrderShipped", "OrderCancelled", "OrderRejected");

    private static final String REMEMBER_CUSTOMERS = """
            INSERT INTO order_customers (order_id, customer_id)
            SELECT * FROM unnest(?::text[], ?::text[])
            ON CONFLICT DO NOTHING
            """;
    private static final String INSERT_MAILS = """
            INSERT INTO notifications (event_id, order_id, event_type, lifecycle_step, subject, body)
            SELECT * FROM unnest(?::uuid[], ?::text[], ?::text[], ?::smallint[], ?::text[], ?::text[])
            """;

    private final Template created;
    private final Template shipped;
    private final Template cancelled;
    private final Template rejected;

    NotificationLedger(
            @Location("mail/OrderCreated.txt") Template created,
            @Location("mail/OrderShipped.txt") Template shipped,
            @Location("mail/OrderCancelled.txt") Template cancelled,
            @Location("mail/OrderRejected.txt") Template rejected) {
        this.created = created;
        this.shipped = shipped;
        this.cancelled = cancelled;
        this.rejected = rejected;
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
                insert.setArray(1, tx.createArrayOf("uuid", column(mails, Mail::eventId)));
                insert.setArray(2, tx.createArrayOf("text", column(mails, Mail::orderId)));
                insert.setArray(3, tx.createArrayOf("text", column(mails, Mail::eventType)));
                insert.setArray(4, tx.createArrayOf("smallint", column(mails, Mail::step)));
                insert.setArray(5, tx.createArrayOf("text", column(mails, Mail::subject)));
                insert.setArray(6, tx.createArrayOf("text", column(mails, Mail::body)));
                insert.executeUpdate();
            }
        }
    }

    private static Object[] column(List<Mail> mails, Function<Mail, ?> field) {
        return mails.stream().map(field).toArray();
    }

    private record Mail(UUID eventId, String orderId, String eventType, short step, String subject, String body) {}

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
            case OrderRejected order -> {
                subject = "Your order " + order.orderId() + " could not be fulfilled";
                body = rejected.data("orderId", order.orderId())
                        .data("reason", order.reason())
                        .data("shortSkus", String.join(", ", order.shortSkus()))
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
                LifecycleStep.of(consumed.envelope().eventType()).orElseThrow().number(),
                subject,
                body);
    }
}
