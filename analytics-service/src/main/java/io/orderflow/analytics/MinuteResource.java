package io.orderflow.analytics;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.TreeMap;
import javax.sql.DataSource;

/**
 * {@code GET /analytics/minutes?from=&to=}: the per-minute windows whose minute is in {@code [from, to)} (ISO-8601
 * instants; by default the last hour), oldest first, each with its counts by event type (every type of the
 * {@code orders} topic that occurred in it: {@code OrderCreated}, {@code OrderConfirmed}, {@code OrderRejected},
 * {@code OrderPaid}, {@code OrderShipped}, {@code OrderCancelled}) and its revenue by currency. Minutes without events
 * are left out, and so is a type without events in a minute. Bad parameters get {@code application/problem+json}
 * naming the parameter.
 */
@Path("/analytics/minutes")
@Produces(MediaType.APPLICATION_JSON)
public class MinuteResource {

    public record Minute(Instant minute, Map<String, Long> events, Map<String, BigDecimal> revenue) {}

    private final DataSource dataSource;
    private final AnalyticsConfig config;
    private final Clock clock = Clock.systemUTC();

    MinuteResource(DataSource dataSource, AnalyticsConfig config) {
        this.dataSource = dataSource;
        this.config = config;
    }

    @GET
    public Response minutes(@QueryParam("from") String fromText, @QueryParam("to") String toText) throws SQLException {
        Instant to;
        Instant from;
        try {
            to = toText == null
                    ? clock.instant().truncatedTo(ChronoUnit.MINUTES).plus(Duration.ofMinutes(1))
                    : Instant.parse(toText);
        } catch (DateTimeParseException e) {
            return problem("to", "to must be an ISO-8601 instant such as 2026-12-02T10:00:00Z, was " + toText);
        }
        try {
            from = fromText == null ? to.minus(Duration.ofHours(1)) : Instant.parse(fromText);
        } catch (DateTimeParseException e) {
            return problem("from", "from must be an ISO-8601 instant such as 2026-12-02T09:00:00Z, was " + fromText);
        }
        if (!from.isBefore(to)) {
            return problem("from", "from must be before to");
        }
        if (Duration.between(from, to).compareTo(config.maxQueryRange()) > 0) {
            return problem(
                    "to",
                    "the range may span at most " + config.maxQueryRange()
                            + " (orderflow.analytics-service.max-query-range)");
        }
        Map<Instant, Minute> minutes = new TreeMap<>();
        try (Connection connection = dataSource.getConnection()) {
            try (PreparedStatement select = connection.prepareStatement(
                    "SELECT minute, event_type, events" + " FROM minute_events WHERE minute >= ? AND minute < ?")) {
                bind(select, from, to);
                try (ResultSet rows = select.executeQuery()) {
                    while (rows.next()) {
                        minute(minutes, rows.getObject(1, OffsetDateTime.class))
                                .events()
                                .put(rows.getString(2), rows.getLong(3));
                    }
                }
            }
            try (PreparedStatement select = connection.prepareStatement(
                    "SELECT minute, currency, amount" + " FROM minute_revenue WHERE minute >= ? AND minute < ?")) {
                bind(select, from, to);
                try (ResultSet rows = select.executeQuery()) {
                    while (rows.next()) {
                        minute(minutes, rows.getObject(1, OffsetDateTime.class))
                                .revenue()
                                .put(rows.getString(2), rows.getBigDecimal(3).stripTrailingZeros());
                    }
                }
            }
        }
        return Response.ok(minutes.values()).build();
    }

    private static Minute minute(Map<Instant, Minute> minutes, OffsetDateTime at) {
        return minutes.computeIfAbsent(at.toInstant(), m -> new Minute(m, new TreeMap<>(), new TreeMap<>()));
    }

    private static void bind(PreparedStatement select, Instant from, Instant to) throws SQLException {
        select.setObject(1, OffsetDateTime.ofInstant(from, ZoneOffset.UTC));
        select.setObject(2, OffsetDateTime.ofInstant(to, ZoneOffset.UTC));
    }

    private static Response problem(String field, String detail) {
        return Response.status(400)
                .type("application/problem+json")
                .entity(Map.of(
                        "type",
                        "about:blank",
                        "title",
                        "Invalid query parameter",
                        "status",
                        400,
                        "detail",
                        detail,
                        "field",
                        field))
                .build();
    }
}
