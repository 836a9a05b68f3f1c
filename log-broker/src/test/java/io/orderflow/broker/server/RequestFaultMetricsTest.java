package io.orderflow.broker.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.broker.handler.ClientInfo;
import io.orderflow.broker.handler.RequestFaults;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import org.apache.kafka.common.protocol.ApiKeys;
import org.junit.jupiter.api.Test;

class RequestFaultMetricsTest {
    private static String exposition(RequestFaults faults) throws IOException {
        PrometheusRegistry registry = new PrometheusRegistry();
        registry.register(new RequestFaultMetrics(faults));
        return new String(MetricsServer.exposition(registry), StandardCharsets.UTF_8);
    }

    @Test
    void eachFailingApiVersionAndStageIsOneCounterSeries() throws IOException {
        RequestFaults faults = new RequestFaults(Clock.systemUTC());
        ClientInfo client = new ClientInfo("conn-1", "kcat", "/127.0.0.1:5000");
        RuntimeException bug = new IllegalStateException("bug");
        faults.record(RequestFaults.Stage.ENCODE, ApiKeys.LIST_OFFSETS, (short) 2, client, bug);
        faults.record(RequestFaults.Stage.ENCODE, ApiKeys.LIST_OFFSETS, (short) 2, client, bug);
        faults.record(RequestFaults.Stage.HANDLE, ApiKeys.FETCH, (short) 11, client, bug);

        assertThat(exposition(faults))
                .contains("# HELP orderflow_broker_request_failures_total Requests answered with an error because"
                        + " the broker failed inside, by API, version and stage.\n")
                .contains("# TYPE orderflow_broker_request_failures_total counter\n")
                .contains(
                        "orderflow_broker_request_failures_total{api=\"Fetch\",stage=\"handle\",version=\"11\"} 1.0\n")
                .contains(
                        "orderflow_broker_request_failures_total{api=\"ListOffsets\",stage=\"encode\",version=\"2\"} 2.0\n");
    }

    /** Prometheus' writer leaves out a metric without samples; to Prometheus that is the same as HELP and TYPE alone. */
    @Test
    void aBrokerWithoutFailuresShowsNoSeries() throws IOException {
        assertThat(exposition(new RequestFaults(Clock.systemUTC())))
                .doesNotContain("orderflow_broker_request_failures_total{");
    }
}
