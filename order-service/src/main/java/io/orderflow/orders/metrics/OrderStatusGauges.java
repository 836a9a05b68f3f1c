package io.orderflow.orders.metrics;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.orderflow.orders.config.OrderServiceConfig;
import io.orderflow.orders.domain.OrderStatus;
import io.quarkus.runtime.Startup;
import jakarta.annotation.PostConstruct;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.Map;
import javax.sql.DataSource;
import org.jboss.logging.Logger;

/**
 * The gauge {@code orders_by_status{status="CREATED"|"PAID"|"SHIPPED"|"CANCELLED"}}: how many orders are in each
 * status now, counted in the database.
 *
 * <p>Counted rather than tracked in memory, so that the figure is right after a restart and with several instances
 * behind one database. One {@code GROUP BY} query serves all four gauges and is reused for
 * {@code orderflow.order-service.metrics.status-counts-max-age}, so scrapes cost at most one query per that interval (the
 * query reads the whole orders table; a large deployment would raise the interval). Quarkus serves /q/metrics as a
 * blocking route, so the query runs on a worker thread, not the event loop. If the database cannot be
 * reached, the gauges report NaN until it can, and a warning is logged.
 *
 * <p>Thread-safe: the gauges may be read from any thread; refreshes are serialised.
 */
@Startup
@ApplicationScoped
public class OrderStatusGauges {

    static final String NAME = "orders.by.status";
    private static final Logger log = Logger.getLogger(OrderStatusGauges.class);

    private final MeterRegistry registry;
    private final DataSource dataSource;
    private final Clock clock;
    private final Duration maxAge;

    private Map<OrderStatus, Long> counts; // guarded by this; null: never counted or last count failed
    private Instant countedAt = Instant.MIN; // guarded by this

    OrderStatusGauges(MeterRegistry registry, DataSource dataSource, Clock clock, OrderServiceConfig config) {
        this.registry = registry;
        this.dataSource = dataSource;
        this.clock = clock;
        this.maxAge = config.metrics().statusCountsMaxAge();
    }

    @PostConstruct
    void register() {
        for (OrderStatus status : OrderStatus.values()) {
            Gauge.builder(NAME, this, gauges -> gauges.count(status))
                    .tag("status", status.name())
                    .description("Orders currently in each status, counted in the database")
                    .register(registry);
        }
    }

    synchronized double count(OrderStatus status) {
        Instant now = clock.instant();
        if (counts == null || !now.isBefore(countedAt.plus(maxAge))) {
            counts = countByStatus();
            countedAt = now;
        }
        return counts == null ? Double.NaN : counts.getOrDefault(status, 0L);
    }

    private Map<OrderStatus, Long> countByStatus() {
        Map<OrderStatus, Long> byStatus = new EnumMap<>(OrderStatus.class);
        try (Connection connection = dataSource.getConnection();
                Statement query = connection.createStatement();
                ResultSet rows = query.executeQuery("SELECT status, count(*) FROM orders GROUP BY status")) {
            while (rows.next()) {
                byStatus.put(OrderStatus.valueOf(rows.getString(1)), rows.getLong(2));
            }
            return byStatus;
        } catch (SQLException | RuntimeException e) {
            log.warnf("cannot count orders by status for the %s gauge: %s", NAME, e.getMessage());
            return null;
        }
    }
}
