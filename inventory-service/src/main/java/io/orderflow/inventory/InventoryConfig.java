package io.orderflow.inventory;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.time.Duration;
import java.util.List;

/**
 * inventory-service's settings, {@code orderflow.inventory-service.*} (environment:
 * {@code ORDERFLOW_INVENTORY_SERVICE_*}), each declared here once with its default; docs/configuration.md lists them
 * and {@code ConfigurationDocsTest} keeps the two in step. The consumer's topics and group are the
 * {@code mp.messaging.incoming.*} settings of application.properties.
 */
@ConfigMapping(prefix = "orderflow.inventory-service")
public interface InventoryConfig {

    /** How long a failed event waits before each retry; one retry per entry, then the dead-letter topic. */
    @WithDefault("1s,10s,60s")
    List<Duration> retryDelays();

    /** Partitions of the retry and dead-letter topics the service creates at start if they are missing. */
    @WithDefault("3")
    int failureTopicPartitions();

    /**
     * Whether the service takes the drills' switches ({@code PUT /drills/slowdown}); off, they answer 404. {@code
     * ./run-platform} and docker compose turn it on: they are the platform the drills run against.
     */
    @WithDefault("false")
    boolean drillsEnabled();
}
