package io.orderflow.orders.metrics;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.orderflow.orders.config.OrderServiceConfig;
import io.quarkus.runtime.Startup;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import javax.sql.DataSource;
import org.jboss.logging.Logger;

/**
 * The orders still waiting for inventory's answer (the saga: {@code CREATED} until it is confirmed or rejected), so
 * that a saga that stopped moving is seen before customers call:
 *
 * <ul>
 *   <li>{@code orders_awaiting_inventory_overdue}: orders that have waited longer than
 *       {@code orderflow.order-service.metrics.inventory-answer-overdue-after} (the alert {@code OrdersAwaitingInventory}
 *       in ops/deploy/prometheus/alerts.yml fires on it);
 *   <li>{@code orders_awaiting_inventory_oldest_seconds}: how long the oldest of them has waited (0 when none waits).
 * </ul>
 *
 * <p>Counted in the database, like {@link OrderStatusGauges} and for the same reasons (right after a restart, and with
 * several instances), by one query over the partial index of CREATED orders (migration V4), reused for
 * {@code status-counts-max-age}. If the database cannot be reached, the gauges report NaN until it can. Thread-safe.
 */
@Startup
@ApplicationScoped
public class AwaitingInventoryGauges {

    static final String OVERDUE = "orders.awaiting.inventory.overdue";
    static final String OLDEST = "orders.awaiting.inventory.oldest.seconds";
    private static final Logger log = Logger.getLogger(AwaitingInventoryGauges.class);
    private static final String QUERY =
            "SELECT count(*) FILTER (WHERE created_at < ?), min(created_at)" + " FROM orders WHERE status = 'CREATED'";

    private final MeterRegistry registry;
    private final DataSource dataSource;
    private final Clock clock;
    private final Duration maxAge;
    private final Duration overdueAfter;

    private Waiting waiting; // guarded by this; null: never counted or last count failed
    private Instant countedAt = Instant.MIN; // guarded by this

    AwaitingInventoryGauges(MeterRegistry registry, DataSource dataSource, Clock clock, OrderServiceConfig config) {
        this.registry = registry;
        this.dataSource = dataSource;
        this.clock = clock;
        this.maxAge = config.metrics().statusCountsMaxAge();
        this.overdueAfter = config.metrics().inventoryAnswerOverdueAfter();
    }

    @PostConstruct
    void register() {
        Gauge.builder(OVERDUE, this, gauges -> gauges.read().overdue())
                .description(
                        "Orders that have waited longer than inventory-answer-overdue-after for inventory's answer")
                .register(registry);
        Gauge.builder(OLDEST, this, gauges -> gauges.read().oldestSeconds())
                .description("How long the oldest order still waiting for inventory's answer has waited")
                .register(registry);
    }

    private synchronized Waiting read() {
        Instant now = clock.instant();
        if (waiting == null || !now.isBefore(countedAt.plus(maxAge))) {
            waiting = count(now);
            countedAt = now;
        }
        return waiting == null ? new Waiting(Double.NaN, Double.NaN) : waiting;
    }

    private Waiting count(Instant now) {
        try (Connection connection = dataSource.getConnection();
                PreparedStatement query = connection.prepareStatement(QUERY)) {
            query.setTimestamp(1, Timestamp.from(now.minus(overdueAfter)));
            try (ResultSet row = query.executeQuery()) {
                row.next();
                Timestamp oldest = row.getTimestamp(2);
                double oldestSeconds = oldest == null
                        ? 0
                        : Math.max(0, Duration.between(oldest.toInstant(), now).toMillis() / 1000.0);
                return new Waiting(row.getLong(1), oldestSeconds);
            }
        } catch (SQLException | RuntimeException e) {
            log.warnf(
                    "cannot count the orders awaiting inventory's answer for the %s gauges: %s",
                    OVERDUE, e.getMessage());
            return null;
        }
    }

    private record Waiting(double overdue, double oldestSeconds) {}
}
