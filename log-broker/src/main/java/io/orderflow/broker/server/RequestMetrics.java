package io.orderflow.broker.server;

import io.prometheus.metrics.core.datapoints.DistributionDataPoint;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * {@code orderflow_broker_request_seconds}: time to handle a request, per API, as a classic Prometheus histogram
 * with fixed buckets. An API appears once it has been asked. Thread-safe; recording is one lock-free observation
 * on a series looked up once per API.
 */
final class RequestMetrics {
    static final double[] BUCKETS_SECONDS = {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5
    };

    private final Histogram seconds = Histogram.builder()
            .name("orderflow_broker_request_seconds")
            .help("Time to handle a request, by API.")
            .labelNames("api")
            .classicOnly()
            .classicUpperBounds(BUCKETS_SECONDS)
            .withoutExemplars()
            .build();
    private final AtomicReferenceArray<DistributionDataPoint> byApi =
            new AtomicReferenceArray<>(ApiKeys.values().length);

    void record(ApiKeys api, long nanos) {
        DistributionDataPoint series = byApi.get(api.ordinal());
        if (series == null) {
            series = seconds.labelValues(api.name); // the same series however many threads race here
            byApi.set(api.ordinal(), series);
        }
        series.observe(nanos / 1e9);
    }

    void register(PrometheusRegistry registry) {
        registry.register(seconds);
    }
}
