package io.orderflow.ops.drill;

import java.net.URI;
import java.util.Map;

/**
 * The running platform a drill works on, as its users reach it: the services' base URLs, the lag monitor's and the
 * brokers'. On the command line these are {@link DrillTargetOptions}, defaulting to the ports {@code ./run-platform} and
 * {@code docker compose} publish on localhost; with docker compose, {@code --bootstrap-servers} must name a broker the
 * drill can reach (ops/drills/README.md).
 */
public record DrillTarget(
        URI orderService,
        URI inventoryService,
        URI notificationService,
        URI analyticsService,
        URI lagMonitor,
        String bootstrapServers) {

    /** The base URL of each consuming service by its consumer group's name. */
    public Map<String, URI> consumers() {
        return Map.of(
                "inventory-service", inventoryService,
                "notification-service", notificationService,
                "analytics-service", analyticsService);
    }
}
