package io.orderflow.relay;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.orderflow.outbox.OutboxBacklog;
import io.orderflow.outbox.OutboxRow;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The relay's meters: backlog (rows), age of the oldest unpublished row, publish rate, commit-to-acknowledged
 * latency, quarantined rows, and whether this instance leads. Names follow Prometheus conventions once the registry
 * renders them ({@code outbox_relay_published_total}, {@code outbox_relay_commit_to_ack_seconds}, ...).
 *
 * <p>Thread-safe: the relay thread updates, scrapes read.
 */
public final class RelayMetrics {

    private final Counter published;
    private final Counter quarantined;
    private final Timer commitToAck;
    private final AtomicReference<OutboxBacklog> backlog = new AtomicReference<>(OutboxBacklog.EMPTY);
    private volatile boolean leader;

    public RelayMetrics(MeterRegistry registry) {
        published = Counter.builder("outbox.relay.published")
                .description("Outbox rows acknowledged by the broker and marked published")
                .register(registry);
        quarantined = Counter.builder("outbox.relay.quarantined")
                .description("Outbox rows set aside because they can never be published")
                .register(registry);
        commitToAck = Timer.builder("outbox.relay.commit.to.ack")
                .description("From the outbox row's insert to the broker's acknowledgement")
                .publishPercentiles(0.5, 0.99)
                .publishPercentileHistogram()
                .register(registry);
        Gauge.builder("outbox.relay.backlog.rows", backlog, b -> b.get().pendingRows())
                .description("Outbox rows not yet published")
                .register(registry);
        Gauge.builder(
                        "outbox.relay.oldest.pending.age.seconds",
                        backlog,
                        b -> b.get().oldestPendingAge().toMillis() / 1000.0)
                .description("Age of the oldest unpublished outbox row")
                .register(registry);
        Gauge.builder("outbox.relay.quarantined.rows", backlog, b -> b.get().quarantinedRows())
                .description("Outbox rows in quarantine now")
                .register(registry);
        Gauge.builder("outbox.relay.leader", this, m -> m.leader ? 1 : 0)
                .description("1 if this instance is the publishing leader, else 0")
                .register(registry);
    }

    void published(OutboxRow row, Duration sinceInsert) {
        published.increment();
        commitToAck.record(sinceInsert.isNegative() ? Duration.ZERO : sinceInsert);
    }

    void quarantined() {
        quarantined.increment();
    }

    void backlog(OutboxBacklog value) {
        backlog.set(value);
    }

    void leader(boolean value) {
        leader = value;
    }

    public OutboxBacklog backlog() {
        return backlog.get();
    }

    public double publishedTotal() {
        return published.count();
    }

    public double quarantinedTotal() {
        return quarantined.count();
    }

    public Timer commitToAck() {
        return commitToAck;
    }
}
