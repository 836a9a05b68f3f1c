package io.orderflow.ops.bench.platform;

import io.orderflow.ops.load.PrometheusText;

/**
 * A relay's requests to the broker as its Kafka producer counts them ({@code kafka_producer_request_total} and {@code
 * kafka_producer_record_send_total} of client {@value #RELAY_CLIENT} on {@code /q/metrics}; both relays, order-service's
 * to {@code orders} and inventory's to {@code inventory}, name their producer so, each in its own process): how many
 * requests the window's records went in. Two readings, one at each end of a window, give the window's ({@link #since}). With the
 * consumers' fetches ({@link ConsumerBatches}) it tells whether a consumer's responses were as many as the relay's
 * requests, or more.
 *
 * @param requests requests the producer sent (Produce, and the rare Metadata)
 * @param records records it sent in them
 */
record ProduceRequests(double requests, double records) {
    static final String RELAY_CLIENT = "outbox-relay";
    private static final String LABEL = "client_id=\"" + RELAY_CLIENT + "\"";

    static ProduceRequests parse(String exposition) {
        return new ProduceRequests(
                PrometheusText.sum(exposition, "kafka_producer_request_total", LABEL)
                        .orElse(Double.NaN),
                PrometheusText.sum(exposition, "kafka_producer_record_send_total", LABEL)
                        .orElse(Double.NaN));
    }

    /** What was counted between {@code earlier} and this reading. */
    ProduceRequests since(ProduceRequests earlier) {
        return new ProduceRequests(requests - earlier.requests, records - earlier.records);
    }

    double recordsPerRequest() {
        return requests == 0 ? Double.NaN : records / requests;
    }
}
