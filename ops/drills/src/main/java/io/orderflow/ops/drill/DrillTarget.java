package io.orderflow.ops.drill;

import io.orderflow.kafka.KafkaClientSettings;
import java.net.URI;
import java.util.Map;

/**
 * The running platform a drill works on, as its users reach it: the services' base URLs, the lag monitor's, the
 * cluster (its address and, on a secured one, the drills' own principal) and the bearer token of the services' admin
 * endpoints (the drill switches; {@code null} where they are open). On the command line these are {@link
 * DrillTargetOptions}, defaulting to the ports {@code ./run-platform} and {@code docker compose} publish on localhost
 * and to the secrets {@code ./run-platform} wrote; with docker compose, {@code --bootstrap-servers} must name a broker
 * the drill can reach (ops/drills/README.md).
 */
public record DrillTarget(
        URI orderService,
        URI inventoryService,
        URI notificationService,
        URI analyticsService,
        URI lagMonitor,
        KafkaClientSettings cluster,
        String adminToken) {

    /** The drills' principal on a secured cluster: it may read and write {@code orders} and read the failure topics. */
    public static final String PRINCIPAL = "ops-drills";

    /** The base URL of each consuming service by its consumer group's name. */
    public Map<String, URI> consumers() {
        return Map.of(
                "inventory-service", inventoryService,
                "notification-service", notificationService,
                "analytics-service", analyticsService);
    }
}
