package io.orderflow.consumer;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;

/**
 * A consuming service's meters, tagged with its consumer group. In Prometheus:
 * {@code orderflow_consumer_events_total{group,outcome}} (outcome = applied, duplicate, ignored, retried,
 * dead_lettered), {@code orderflow_consumer_latency_seconds} (event time, the envelope's {@code occurredAt}, to the
 * commit of its effect), {@code orderflow_consumer_batch_records} (records per batch) and
 * {@code orderflow_consumer_batch_duration_seconds} (a batch from its first decode to its last acknowledged failure
 * route: the transaction and its commit included; its sum over a period, divided by the period, is the share of time the
 * consumer was busy). Thread-safe.
 */
public final class ConsumerMetrics {

    private final Counter applied;
    private final Counter duplicates;
    private final Counter ignored;
    private final Counter retried;
    private final Counter deadLettered;
    private final Timer latency;
    private final DistributionSummary batchSize;
    private final Timer batchDuration;

    public ConsumerMetrics(MeterRegistry registry, String group) {
        applied = outcome(registry, group, "applied");
        duplicates = outcome(registry, group, "duplicate");
        ignored = outcome(registry, group, "ignored");
        retried = outcome(registry, group, "retried");
        deadLettered = outcome(registry, group, "dead_lettered");
        latency = Timer.builder("orderflow.consumer.latency")
                .description("From the event's occurredAt to the commit of its effect")
                .tag("group", group)
                .publishPercentiles(0.5, 0.99)
                .register(registry);
        batchSize = DistributionSummary.builder("orderflow.consumer.batch.records")
                .description("Records per processed batch")
                .tag("group", group)
                .register(registry);
        batchDuration = Timer.builder("orderflow.consumer.batch.duration")
                .description("Time to process a batch, its transaction's commit and failure routing included")
                .tag("group", group)
                .register(registry);
    }

    private static Counter outcome(MeterRegistry registry, String group, String outcome) {
        return Counter.builder("orderflow.consumer.events")
                .description("Consumed records by what became of them")
                .tag("group", group)
                .tag("outcome", outcome)
                .register(registry);
    }

    void batch(BatchOutcome outcome, Duration took) {
        batchDuration.record(took);
        applied.increment(outcome.applied());
        duplicates.increment(outcome.duplicates());
        ignored.increment(outcome.ignored());
        retried.increment(outcome.retried());
        deadLettered.increment(outcome.deadLettered());
        batchSize.record(outcome.records());
    }

    void latency(Duration sinceEvent) {
        latency.record(sinceEvent.isNegative() ? Duration.ZERO : sinceEvent);
    }

    public double applied() {
        return applied.count();
    }

    public double duplicates() {
        return duplicates.count();
    }

    public double retried() {
        return retried.count();
    }

    public double deadLettered() {
        return deadLettered.count();
    }
}
