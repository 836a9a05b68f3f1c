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

/** {@code GET /notifications?orderId=}: the mails of an order, oldest first, sent or pending. */
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

    private final DataSource dataSource;

    NotificationResource(DataSource dataSource) {
        this.dataSource = dataSource;
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
                PreparedStatement select = connection.prepareStatement(
                        "SELECT event_id, event_type, recipient,"
                                + " subject, status, attempts, sent_at FROM notifications WHERE order_id = ? ORDER BY created_at")) {
            select.setString(1, orderId);
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
