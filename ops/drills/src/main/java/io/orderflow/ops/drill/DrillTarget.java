package io.orderflow.ops.drill;

import io.orderflow.contracts.Topics;
import io.orderflow.kafka.KafkaClientSettings;
import java.net.URI;
import java.util.LinkedHashMap;
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

    /**
     * The drills' principal on a secured cluster: it may read and write {@code orders} and {@code inventory} and read
     * the failure topics.
     */
    public static final String PRINCIPAL = "ops-drills";

    /**
     * order-service's consumer group, the saga's step: it reads inventory's answers on {@code inventory} (every other
     * group reads {@code orders}), and its service is order-service.
     */
    public static final String SAGA = "order-service";

    /** The base URL of each service consuming {@code orders}, by its consumer group's name. */
    public Map<String, URI> consumers() {
        return Map.of(
                "inventory-service", inventoryService,
                "notification-service", notificationService,
                "analytics-service", analyticsService);
    }

    /** Every consumer group's service: the three on {@code orders}, and order-service's {@link #SAGA} group. */
    public Map<String, URI> allConsumers() {
        Map<String, URI> all = new LinkedHashMap<>(consumers());
        all.put(SAGA, orderService);
        return Map.copyOf(all);
    }

    /** The topic consumer group {@code group} reads: {@code inventory} for the saga's, {@code orders} for the rest. */
    public static String topicOf(String group) {
        return SAGA.equals(group) ? Topics.INVENTORY : Topics.ORDERS;
    }

    /**
     * The records an order placed and left alone puts on the topic {@code group} reads: on {@code orders} its
     * OrderCreated and, once inventory has answered, order-service's OrderConfirmed or OrderRejected; on
     * {@code inventory} inventory's one answer. A drill's lag allowance in "seconds of orders" is in these records.
     */
    public static int recordsPerOrder(String group) {
        return topicOf(group).equals(Topics.INVENTORY) ? 1 : 2;
    }
}
