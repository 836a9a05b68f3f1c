package io.orderflow.ops.load;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class PrometheusTextTest {
    private static final String EXPOSITION = """
            # HELP outbox_relay_commit_to_ack_seconds From the outbox row's insert to the broker's acknowledgement
            # TYPE outbox_relay_commit_to_ack_seconds summary
            outbox_relay_commit_to_ack_seconds{quantile="0.5"} 0.012582912
            outbox_relay_commit_to_ack_seconds{quantile="0.99"} 0.046137344
            outbox_relay_commit_to_ack_seconds_count 120000.0
            outbox_relay_backlog_rows 17.0
            outbox_relay_backlog_rows_max 3.0
            """;

    @Test
    void readsTheSampleWithTheLabel() {
        assertThat(PrometheusText.value(EXPOSITION, "outbox_relay_commit_to_ack_seconds", "quantile=\"0.99\""))
                .hasValue(0.046137344);
        assertThat(PrometheusText.value(EXPOSITION, "outbox_relay_commit_to_ack_seconds", "quantile=\"0.5\""))
                .hasValue(0.012582912);
    }

    @Test
    void aMetricWithoutLabelsIsNotConfusedWithALongerName() {
        assertThat(PrometheusText.value(EXPOSITION, "outbox_relay_backlog_rows", ""))
                .hasValue(17.0);
        assertThat(PrometheusText.value(EXPOSITION, "outbox_relay_backlog", "")).isEmpty();
    }

    @Test
    void anAbsentMetricIsEmpty() {
        assertThat(PrometheusText.value("", "outbox_relay_commit_to_ack_seconds", ""))
                .isEmpty();
    }

    @Test
    void aSumAddsEverySampleWithTheLabelAndIsEmptyWithoutOne() {
        String client = """
                kafka_consumer_fetch_manager_records_consumed_total{client_id="c",topic="orders"} 5.0
                kafka_consumer_fetch_manager_records_consumed_total{client_id="c-retry",topic="orders"} 100.0
                kafka_consumer_fetch_manager_records_consumed_total{client_id="c",topic="refunds"} 4.0
                """;

        assertThat(PrometheusText.sum(client, "kafka_consumer_fetch_manager_records_consumed_total", "client_id=\"c\""))
                .hasValue(9.0);
        assertThat(PrometheusText.sum(client, "kafka_consumer_fetch_manager_records_consumed_total", "client_id=\"d\""))
                .isEmpty();
    }
}
