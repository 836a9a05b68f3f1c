package io.orderflow.inventory;

import io.orderflow.consumer.quarkus.AdminOperation;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.net.URI;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Map;
import javax.sql.DataSource;

/**
 * {@code GET /inventory/{sku}}: on hand, reserved and available; {@code PUT /inventory/{sku}} with
 * {@code {"onHand": n}} sets what is on hand (an admin adjustment; it cannot go below what is reserved). Errors are
 * {@code application/problem+json} naming the field. The adjustment is an {@link AdminOperation}: it needs
 * {@code Authorization: Bearer <orderflow.admin.token>} (401 without it, 403 while no token is set); reading is open.
 */
@Path("/inventory/{sku}")
@Produces(MediaType.APPLICATION_JSON)
public class StockResource {

    public record StockLevel(String sku, int onHand, int reserved, int available) {}

    public record Adjustment(Integer onHand) {}

    private final DataSource dataSource;

    StockResource(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    @GET
    public Response get(@PathParam("sku") String sku) throws SQLException {
        try (Connection connection = dataSource.getConnection();
                PreparedStatement select =
                        connection.prepareStatement("SELECT on_hand, reserved FROM stock WHERE sku = ?")) {
            select.setString(1, sku);
            try (ResultSet row = select.executeQuery()) {
                if (!row.next()) {
                    return problem(404, "Unknown SKU", "no stock is kept for SKU " + sku, "sku");
                }
                int onHand = row.getInt(1);
                int reserved = row.getInt(2);
                return Response.ok(new StockLevel(sku, onHand, reserved, onHand - reserved))
                        .build();
            }
        }
    }

    @PUT
    @AdminOperation
    @Consumes(MediaType.APPLICATION_JSON)
    public Response set(@PathParam("sku") String sku, Adjustment adjustment) throws SQLException {
        if (adjustment == null || adjustment.onHand() == null || adjustment.onHand() < 0) {
            return problem(400, "Invalid stock level", "onHand must be a whole number of at least 0", "onHand");
        }
        try (Connection connection = dataSource.getConnection();
                PreparedStatement upsert = connection.prepareStatement("INSERT INTO stock (sku, on_hand) VALUES (?, ?)"
                        + " ON CONFLICT (sku) DO UPDATE SET on_hand = excluded.on_hand, updated_at = clock_timestamp()"
                        + " WHERE stock.reserved <= excluded.on_hand")) {
            upsert.setString(1, sku);
            upsert.setInt(2, adjustment.onHand());
            if (upsert.executeUpdate() == 0) {
                return problem(409, "Below reserved", "onHand cannot go below the units reserved for orders", "onHand");
            }
        }
        return get(sku);
    }

    private static Response problem(int status, String title, String detail, String field) {
        return Response.status(status)
                .type("application/problem+json")
                .entity(Map.of(
                        "type", URI.create("about:blank").toString(),
                        "title", title,
                        "status", status,
                        "detail", detail,
                        "field", field))
                .build();
    }
}
