package io.orderflow.ops.drill;

import io.orderflow.ops.load.ClusterOptions;
import io.orderflow.ops.load.HttpUrl;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * Where the platform is: the options every drill takes ({@code ops/bin/drill NAME --help} lists them), each defaulting
 * to the port {@code ./run-platform} and {@code docker compose} publish on localhost. Filled by picocli, then read
 * once as a {@link DrillTarget}.
 */
public final class DrillTargetOptions {

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

    /** The broker, as the drill can reach it. */
    @Mixin
    private ClusterOptions cluster;

    @Option(
            names = "--admin-token-file",
            paramLabel = "FILE",
            description = {
                "the bearer token of the services' admin endpoints (the drill switches)",
                "(default: " + ADMIN_TOKEN + ", which ./run-platform writes, if there)"
            })
    private Path adminTokenFile;

    /** Where {@code ./run-platform} writes the admin endpoints' token, under the working directory. */
    static final String ADMIN_TOKEN = ".orderflow/secrets/admin-token";

    public DrillTarget target() {
        return new DrillTarget(
                orderService,
                inventoryService,
                notificationService,
                analyticsService,
                lagMonitor,
                cluster.cluster(DrillTarget.PRINCIPAL),
                adminToken());
    }

    private String adminToken() {
        Path file = adminTokenFile != null ? adminTokenFile : Path.of(ADMIN_TOKEN);
        if (adminTokenFile == null && !Files.isRegularFile(file)) {
            return null;
        }
        try {
            return Files.readString(file).trim();
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read the admin token " + file + ": " + e, e);
        }
    }
}
