package io.orderflow.inventory;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;

/**
 * {@code GET /reservations/{orderId}}: what inventory decided for an order (status, reason, short SKUs); 404 as
 * {@code application/problem+json} while it knows nothing of it.
 */
@Path("/reservations/{orderId}")
@Produces(MediaType.APPLICATION_JSON)
public class ReservationResource {

    public record Reservation(String orderId, String status, String reason, List<String> shortSkus) {}

    private final DataSource dataSource;

    ReservationResource(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    @GET
    public Response get(@PathParam("orderId") String orderId) throws SQLException {
        try (Connection connection = dataSource.getConnection();
                PreparedStatement select = connection.prepareStatement(
                        "SELECT status, reason, short_skus FROM reservations WHERE order_id = ?")) {
            select.setString(1, orderId);
            try (ResultSet row = select.executeQuery()) {
                if (!row.next()) {
                    return Response.status(404)
                            .type("application/problem+json")
                            .entity(Map.of(
                                    "type", "about:blank",
                                    "title", "Unknown order",
                                    "status", 404,
                                    "detail", "inventory has no event of order " + orderId + " yet",
                                    "field", "orderId"))
                            .build();
                }
                Array skus = row.getArray(3);
                return Response.ok(new Reservation(
                                orderId, row.getString(1), row.getString(2), List.of((String[]) skus.getArray())))
                        .build();
            }
        }
    }
}
