package io.orderflow.ops.drill;

import io.orderflow.ops.load.HttpUrl;
import java.net.URI;
import picocli.CommandLine.Option;

/**
 * Where the platform is: the options every drill takes ({@code ops/bin/drill NAME --help} lists them), each defaulting
 * to the port {@code ./run-platform} and {@code docker compose} publish on localhost. Filled by picocli, then read
 * once as a {@link DrillTarget}.
 */
final class DrillTargetOptions {

    @Option(
            names = "--order-service",
            paramLabel = "URL",
            defaultValue = "http://localhost:8080",
            converter = HttpUrl.class,
            description = "order-service (default: ${DEFAULT-VALUE})")
    private URI orderService;

    @Option(
            names = "--inventory-service",
            paramLabel = "URL",
            defaultValue = "http://localhost:8082",
            converter = HttpUrl.class,
            description = "inventory-service (default: ${DEFAULT-VALUE})")
    private URI inventoryService;

    @Option(
            names = "--notification-service",
            paramLabel = "URL",
            defaultValue = "http://localhost:8083",
            converter = HttpUrl.class,
            description = "notification-service (default: ${DEFAULT-VALUE})")
    private URI notificationService;

    @Option(
            names = "--analytics-service",
            paramLabel = "URL",
            defaultValue = "http://localhost:8084",
            converter = HttpUrl.class,
            description = "analytics-service (default: ${DEFAULT-VALUE})")
    private URI analyticsService;

    @Option(
            names = "--lag-monitor",
            paramLabel = "URL",
            defaultValue = "http://localhost:8086",
            converter = HttpUrl.class,
            description = "the lag monitor (default: ${DEFAULT-VALUE})")
    private URI lagMonitor;

    @Option(
            names = "--bootstrap-servers",
            paramLabel = "HOSTS",
            defaultValue = "localhost:9092",
            description = "the broker, as the drill can reach it (default: ${DEFAULT-VALUE})")
    private String bootstrapServers;

    DrillTarget target() {
        return new DrillTarget(
                orderService, inventoryService, notificationService, analyticsService, lagMonitor, bootstrapServers);
    }
}
