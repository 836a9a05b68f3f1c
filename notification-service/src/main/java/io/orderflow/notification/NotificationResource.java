package io.orderflow.notification;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import javax.sql.DataSource;

/**
 * {@code GET /notifications?orderId=}: the mails of an order, sent or pending, in the order they reach the customer (its
 * lifecycle's, {@link LifecycleStep}). The recipient is the address a sent mail went to, or a pending one will go to;
 * null while the order's customer is not known (its {@code OrderCreated} has not arrived).
 */
@Path("/notifications")
@Produces(MediaType.APPLICATION_JSON)
public class NotificationResource {

    public record Notification(
            UUID eventId,
            String eventType,
            String recipient,
            String subject,
            String status,
            int attempts,
            Instant sentAt) {}

    private static final String SELECT = """
            SELECT n.event_id, n.event_type, coalesce(n.recipient, c.customer_id || '@' || ?),
                   n.subject, n.status, n.attempts, n.sent_at
            FROM notifications n LEFT JOIN order_customers c ON c.order_id = n.order_id
            WHERE n.order_id = ?
            ORDER BY n.lifecycle_step, n.created_at, n.event_id
            """;

    private final DataSource dataSource;
    private final String recipientDomain;

    NotificationResource(DataSource dataSource, NotificationConfig config) {
        this.dataSource = dataSource;
        this.recipientDomain = config.recipientDomain();
    }

    @GET
    public Response list(@QueryParam("orderId") String orderId) throws SQLException {
        if (orderId == null || orderId.isBlank()) {
            return Response.status(400)
                    .type("application/problem+json")
                    .entity(Map.of(
                            "type", "about:blank",
                            "title", "Missing query parameter",
                            "status", 400,
                            "detail", "orderId is required: GET /notifications?orderId=<order id>",
                            "field", "orderId"))
                    .build();
        }
        List<Notification> found = new ArrayList<>();
        try (Connection connection = dataSource.getConnection();
                PreparedStatement select = connection.prepareStatement(SELECT)) {
            select.setString(1, recipientDomain);
            select.setString(2, orderId);
            try (ResultSet rows = select.executeQuery()) {
                while (rows.next()) {
                    found.add(new Notification(
                            rows.getObject(1, UUID.class),
                            rows.getString(2),
                            rows.getString(3),
                            rows.getString(4),
                            rows.getString(5),
                            rows.getInt(6),
                            rows.getTimestamp(7) == null
                                    ? null
                                    : rows.getTimestamp(7).toInstant()));
                }
            }
        }
        return Response.ok(found).build();
    }
}
