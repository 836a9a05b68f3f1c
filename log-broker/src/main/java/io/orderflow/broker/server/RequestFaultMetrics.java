package io.orderflow.broker.server;

import io.orderflow.broker.handler.RequestFaults;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.CounterSnapshot.CounterDataPointSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;

/**
 * {@code orderflow_broker_request_failures_total}: requests the broker failed to answer as it should, by API,
 * version and stage ({@code handle} or {@code encode}), read from {@link RequestFaults} at scrape time. Any series
 * here is a broker bug worth a look; the log holds the first stack trace of each.
 */
final class RequestFaultMetrics implements MultiCollector {
    static final String FAILURES = "orderflow_broker_request_failures_total";

    private final RequestFaults faults;

    RequestFaultMetrics(RequestFaults faults) {
        this.faults = faults;
    }

    @Override
    public MetricSnapshots collect() {
        var failures = CounterSnapshot.builder()
                .name(FAILURES)
                .help("Requests answered with an error because the broker failed inside, by API, version and"
                        + " stage.");
        faults.counts()
                .forEach((key, count) -> failures.dataPoint(CounterDataPointSnapshot.builder()
                        .labels(Labels.of(
                                "api",
                                key.api().name,
                                "version",
                                Short.toString(key.version()),
                                "stage",
                                key.stage().label()))
                        .value(count)
                        .build()));
        return MetricSnapshots.of(failures.build());
    }
}
