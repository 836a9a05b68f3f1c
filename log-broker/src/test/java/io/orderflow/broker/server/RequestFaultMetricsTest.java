package io.orderflow.broker.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.broker.handler.ClientInfo;
import io.orderflow.broker.handler.RequestFaults;
import java.time.Clock;
import org.apache.kafka.common.protocol.ApiKeys;
import org.junit.jupiter.api.Test;

class RequestFaultMetricsTest {
    @Test
    void eachFailingApiVersionAndStageIsOneCounterSeries() {
        RequestFaults faults = new RequestFaults(Clock.systemUTC());
        ClientInfo client = new ClientInfo("conn-1", "kcat", "/127.0.0.1:5000");
        RuntimeException bug = new IllegalStateException("bug");
        faults.record(RequestFaults.Stage.ENCODE, ApiKeys.LIST_OFFSETS, (short) 2, client, bug);
        faults.record(RequestFaults.Stage.ENCODE, ApiKeys.LIST_OFFSETS, (short) 2, client, bug);
        faults.record(RequestFaults.Stage.HANDLE, ApiKeys.FETCH, (short) 11, client, bug);

        StringBuilder out = new StringBuilder();
        new RequestFaultMetrics(faults).accept(out);

        assertThat(out.toString())
                .contains("# TYPE orderflow_broker_request_failures_total counter\n")
                .contains("orderflow_broker_request_failures_total{api=\"Fetch\",version=\"11\",stage=\"handle\"} 1\n")
                .contains(
                        "orderflow_broker_request_failures_total{api=\"ListOffsets\",version=\"2\",stage=\"encode\"} 2\n");
    }

    @Test
    void aBrokerWithoutFailuresShowsTheMetricWithoutSeries() {
        StringBuilder out = new StringBuilder();
        new RequestFaultMetrics(new RequestFaults(Clock.systemUTC())).accept(out);
        assertThat(out.toString()).doesNotContain("orderflow_broker_request_failures_total{");
        assertThat(out.toString()).contains("# HELP orderflow_broker_request_failures_total");
    }
}
