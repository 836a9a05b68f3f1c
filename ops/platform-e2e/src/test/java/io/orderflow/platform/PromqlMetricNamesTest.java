package io.orderflow.platform;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class PromqlMetricNamesTest {

    @Test
    void findsTheMetricsAndNotTheFunctionsLabelsOrMatchers() {
        assertThat(
                        PromqlMetricNames.of(
                                "sum by (topic) (increase(kafka_topic_partition_current_offset{topic=~\"dead-letter-topic-.+\"}[5m])) > 0"))
                .containsExactly("kafka_topic_partition_current_offset");
        assertThat(
                        PromqlMetricNames.of(
                                "max by (consumergroup) (orderflow_consumergroup_status{status=\"WARN\"}) == 1 and on (job) up"))
                .containsExactly("orderflow_consumergroup_status", "up");
        assertThat(PromqlMetricNames.of(
                        "histogram_quantile(0.99, sum by (le) (rate(http_server_requests_seconds_bucket[1m]))) * 1e3"))
                .containsExactly("http_server_requests_seconds_bucket");
    }
}
