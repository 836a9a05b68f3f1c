package io.orderflow.broker.server;

import io.orderflow.broker.handler.RequestFaults;

/**
 * {@code orderflow_broker_request_failures_total}: requests the broker failed to answer as it should, by API,
 * version and stage ({@code handle} or {@code encode}). Any series here is a broker bug worth a look; the
 * log holds the first stack trace of each.
 */
final class RequestFaultMetrics implements MetricsServer.Section {
    private final RequestFaults faults;

    RequestFaultMetrics(RequestFaults faults) {
        this.faults = faults;
    }

    @Override
    public void accept(StringBuilder out) {
        out.append("# HELP orderflow_broker_request_failures_total Requests answered with an error because the broker"
                + " failed inside, by API, version and stage.\n");
        out.append("# TYPE orderflow_broker_request_failures_total counter\n");
        faults.counts()
                .forEach((key, count) -> out.append("orderflow_broker_request_failures_total{api=\"")
                        .append(key.api().name)
                        .append("\",version=\"")
                        .append(key.version())
                        .append("\",stage=\"")
                        .append(key.stage().label())
                        .append("\"} ")
                        .append(count)
                        .append('\n'));
    }
}
