package io.orderflow.consumer.quarkus;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.time.Duration;
import java.util.List;

/**
 * The settings every consuming service shares, {@code orderflow.consumer.*} (environment: {@code ORDERFLOW_CONSUMER_*}),
 * each declared here once with its default; a service declares only what is its own in its own mapping.
 * docs/configuration.md lists them and {@code ConfigurationDocsTest} keeps the two in step.
 */
@ConfigMapping(prefix = "orderflow.consumer")
public interface ConsumerConfig {

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

    WarmUp warmUp();

    /** What the service runs once at start, before it reports ready: see {@code ConsumerWarmUp}. */
    interface WarmUp {

        /**
         * Rounds of made-up events (two orders, every lifecycle event) through the service's handler, each rolled back,
         * so that the first real batches find compiled code; {@code 0} reports ready at once.
         */
        @WithDefault("200")
        int rounds();
    }
}
