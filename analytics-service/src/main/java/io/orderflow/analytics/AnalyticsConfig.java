package io.orderflow.analytics;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.time.Duration;
import java.util.List;

/**
 * analytics-service's settings, {@code orderflow.analytics-service.*} (environment:
 * {@code ORDERFLOW_ANALYTICS_SERVICE_*}), each declared here once with its default; docs/configuration.md lists them and
 * {@code ConfigurationDocsTest} keeps the two in step.
 */
@ConfigMapping(prefix = "orderflow.analytics-service")
public interface AnalyticsConfig {

    /** How long a failed event waits before each retry; one retry per entry, then the dead-letter topic. */
    @WithDefault("1s,10s,60s")
    List<Duration> retryDelays();

    /** Partitions of the retry and dead-letter topics the service creates at start if they are missing. */
    @WithDefault("3")
    int failureTopicPartitions();

    /** The widest range {@code GET /analytics/minutes} answers for, from its {@code from} to its {@code to}. */
    @WithDefault("24h")
    Duration maxQueryRange();

    /**
     * Whether the service takes the drills' switches ({@code PUT /drills/slowdown}); off, they answer 404. {@code
     * ./run-platform} and docker compose turn it on: they are the platform the drills run against.
     */
    @WithDefault("false")
    boolean drillsEnabled();
}
