package io.orderflow.ops.replay;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The counters read from a service's {@code /q/metrics}, as Micrometer's Prometheus registry writes them. */
class ConsumerCountersTest {

    private static final String EXPOSITION = """
            # HELP orderflow_consumer_events_total Events consumed, by outcome
            # TYPE orderflow_consumer_events_total counter
            orderflow_consumer_events_total{group="analytics-service",outcome="applied"} 12.0
            orderflow_consumer_events_total{group="analytics-service",outcome="dead_lettered"} 1.0
            orderflow_consumer_events_total{group="analytics-service",outcome="duplicate"} 7200.0
            orderflow_consumer_events_total{outcome="ignored",group="analytics-service"} 3.0
            orderflow_consumer_events_total{group="analytics-service",outcome="retried"} 2.0
            orderflow_consumer_events_total_created{group="analytics-service",outcome="applied"} 1.7E9
            orderflow_consumer_latency_seconds_count{group="analytics-service"} 12.0
            """;

    @Test
    void readsEachOutcomeOfTheGroupWhateverTheLabelsOrder() {
        assertThat(ConsumerCounters.parse(EXPOSITION, "analytics-service"))
                .contains(new ConsumerCounters(12, 7200, 3, 2, 1));
        assertThat(new ConsumerCounters(12, 7200, 3, 2, 1).describe())
                .isEqualTo("7200 duplicate (skipped), 12 applied, 3 ignored, 2 retried, 1 dead-lettered");
    }

    @Test
    void anotherGroupsMetricsHaveNoCountersOfThisGroup() {
        assertThat(ConsumerCounters.parse(EXPOSITION, "inventory-service")).isEmpty();
        assertThat(ConsumerCounters.parse("", "analytics-service")).isEmpty();
    }
}
