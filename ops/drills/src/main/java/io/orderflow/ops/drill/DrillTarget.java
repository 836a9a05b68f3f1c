package io.orderflow.ops.drill;

import java.net.URI;
import java.util.Map;

/**
 * The running platform a drill works on, as its users reach it: the services' base URLs, the lag monitor's and the
 * brokers'. Defaults are the ports {@code ./run-platform} and {@code docker compose} publish on localhost; with docker
 * compose, {@code --bootstrap-servers} must name a broker the drill can reach (ops/drills/README.md).
 */
public record DrillTarget(
        URI orderService,
        URI inventoryService,
        URI notificationService,
        URI analyticsService,
        URI lagMonitor,
        String bootstrapServers) {

    public static final String OPTIONS = """
              --order-service URL          default http://localhost:8080
              --inventory-service URL      default http://localhost:8082
              --notification-service URL   default http://localhost:8083
              --analytics-service URL      default http://localhost:8084
              --lag-monitor URL            default http://localhost:8086
              --bootstrap-servers HOSTS    default localhost:9092
            """;

    public static DrillTarget localhost() {
        return new DrillTarget(
                URI.create("http://localhost:8080"),
                URI.create("http://localhost:8082"),
                URI.create("http://localhost:8083"),
                URI.create("http://localhost:8084"),
                URI.create("http://localhost:8086"),
                "localhost:9092");
    }

    /** {@link #localhost()} with the given {@code --name value} options applied. */
    public static DrillTarget parse(Map<String, String> options) {
        DrillTarget defaults = localhost();
        return new DrillTarget(
                uri(options, "--order-service", defaults.orderService),
                uri(options, "--inventory-service", defaults.inventoryService),
                uri(options, "--notification-service", defaults.notificationService),
                uri(options, "--analytics-service", defaults.analyticsService),
                uri(options, "--lag-monitor", defaults.lagMonitor),
                options.getOrDefault("--bootstrap-servers", defaults.bootstrapServers));
    }

    /** The base URL of each consuming service by its consumer group's name. */
    public Map<String, URI> consumers() {
        return Map.of(
                "inventory-service", inventoryService,
                "notification-service", notificationService,
                "analytics-service", analyticsService);
    }

    private static URI uri(Map<String, String> options, String name, URI fallback) {
        String value = options.get(name);
        return value == null ? fallback : URI.create(value);
    }
}
