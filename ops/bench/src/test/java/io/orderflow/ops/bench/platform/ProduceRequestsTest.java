package io.orderflow.ops.bench.platform;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ProduceRequestsTest {
    private static String exposition(int requests, int ordersRecords) {
        return """
                # TYPE kafka_producer_request_total counter
                kafka_producer_request_total{client_id="outbox-relay",kafka_version="4.4.0"} %1$d.0
                kafka_producer_request_total{client_id="inventory-service-failures",kafka_version="4.4.0"} 999.0
                # TYPE kafka_producer_record_send_total counter
                kafka_producer_record_send_total{client_id="outbox-relay",kafka_version="4.4.0",topic="orders"} %2$d.0
                kafka_producer_record_send_total{client_id="outbox-relay",kafka_version="4.4.0",topic="refunds"} 5.0
                """.formatted(requests, ordersRecords);
    }

    @Test
    void aWindowsRequestsAreTheDifferenceOfTwoReadingsOfTheRelaysProducer() {
        ProduceRequests window =
                ProduceRequests.parse(exposition(250, 2_000)).since(ProduceRequests.parse(exposition(50, 400)));

        assertThat(window.requests()).isEqualTo(200);
        assertThat(window.records()).isEqualTo(1_600);
        assertThat(window.recordsPerRequest()).isEqualTo(8);
    }

    @Test
    void aRelayWithoutProducerMetricsHasNoFigures() {
        ProduceRequests read = ProduceRequests.parse("outbox_relay_leader 1.0\n");

        assertThat(read.requests()).isNaN();
        assertThat(read.recordsPerRequest()).isNaN();
    }
}
