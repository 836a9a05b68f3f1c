package io.orderflow.analytics;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.time.Duration;

/**
 * analytics-service's settings, {@code orderflow.analytics-service.*} (environment:
 * {@code ORDERFLOW_ANALYTICS_SERVICE_*}), each declared here once with its default; docs/configuration.md lists them and
 * {@code ConfigurationDocsTest} keeps the two in step. The settings every consuming service shares are
 * event-consumer's {@code orderflow.consumer.*} (ConsumerConfig).
 */
@ConfigMapping(prefix = "orderflow.analytics-service")
public interface AnalyticsConfig {

    /** The widest range {@code GET /analytics/minutes} answers for, from its {@code from} to its {@code to}. */
    @WithDefault("24h")
    Duration maxQueryRange();
}
