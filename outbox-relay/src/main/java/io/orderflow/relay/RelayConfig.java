package io.orderflow.relay;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.time.Duration;

/**
 * The relay's settings, {@code orderflow.outbox-relay.*} (environment: {@code ORDERFLOW_OUTBOX_RELAY_*}), each declared
 * here once with its default; the relay reads them from this mapping, and tests build it through SmallRye Config with
 * the same property names. docs/configuration.md lists them all, and {@code ConfigurationDocsTest} keeps the two in step.
 */
@ConfigMapping(prefix = "orderflow.outbox-relay")
public interface RelayConfig {

    /** Topic the events go to. */
    @WithDefault("orders")
    String topic();

    /** Rows read and published per cycle at most. */
    @WithDefault("500")
    int batchSize();

    /** How long to wait for a commit notification before looking at the table anyway. */
    @WithDefault("500ms")
    Duration pollInterval();

    /** How soon to look again when committed rows wait for an older, still-running transaction. */
    @WithDefault("2ms")
    Duration horizonRetry();

    /** How long published rows are kept before they are deleted. */
    @WithDefault("1h")
    Duration retention();

    /** How often the leader deletes rows past their retention. */
    @WithDefault("1m")
    Duration purgeInterval();

    /** Largest record (key, value, headers) the relay sends; larger rows are quarantined. */
    @WithDefault("1000000")
    int maxRecordBytes();

    /** First back-off after a database error; doubles up to {@link #backoffMax()}. */
    @WithDefault("100ms")
    Duration backoffMin();

    @WithDefault("5s")
    Duration backoffMax();

    /** How often a standby instance tries to take over. */
    @WithDefault("1s")
    Duration standbyRetry();

    /** How long sends may wait for the broker before the relay reports itself not ready. */
    @WithDefault("5s")
    Duration brokerTimeout();

    /** Instances with the same lock id form one relay group: one of them publishes at a time. */
    @WithDefault("1")
    int leaderLockId();
}
