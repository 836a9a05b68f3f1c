package io.orderflow.lag;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.time.Duration;

/**
 * lag-monitor's settings, {@code orderflow.lag-monitor.*} (environment: {@code ORDERFLOW_LAG_MONITOR_*}), each
 * declared here once with its default; docs/configuration.md lists them. The cluster is {@code kafka.bootstrap.servers},
 * as for every service.
 */
@ConfigMapping(prefix = "orderflow.lag-monitor")
public interface LagMonitorConfig {

    /** How often the cluster is read: offsets, groups, committed offsets, record ages. */
    @WithDefault("2s")
    Duration interval();

    /** The sliding window that produce rates, lag growth and statuses are computed over. */
    @WithDefault("60s")
    Duration window();

    /** How far back {@code GET /lag/history} (the dashboard's charts) reaches. */
    @WithDefault("10m")
    Duration history();

    /** How long one reading may take before it is abandoned and tried again at the next interval. */
    @WithDefault("10s")
    Duration timeout();
}
