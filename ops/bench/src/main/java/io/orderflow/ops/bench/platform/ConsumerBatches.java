package io.orderflow.ops.bench.platform;

import io.orderflow.ops.load.PrometheusText;
import java.time.Duration;

/**
 * A consuming service's batches as its own meters count them ({@code orderflow_consumer_batch_records} and {@code
 * orderflow_consumer_batch_duration_seconds} on {@code /q/metrics}): how many, how many records, and the time spent in
 * them), and the fetch responses its Kafka client received for them (the client's own {@code
 * kafka_consumer_fetch_manager_fetch_total} and {@code records_consumed_total} of the source channel, client id {@code
 * kafka-consumer-<channel>} as Quarkus Messaging names it: {@value #ORDERS_CHANNEL} for the services that read {@code
 * orders}, {@value #INVENTORY_CHANNEL} for order-service's saga consumer; summed over topics: Micrometer keeps only a
 * client metric's per-topic samples once it has any). Two readings, one at each end of a window, give the window's batches ({@link #since}); the time
 * spent divided by the window is the share of it the consumer was busy. A consumer busy most of the time makes each
 * record wait for the batch before its own: the part of accepted -> processed that is the service's, not the broker's.
 * Records per fetch against records per batch tells whether the batches were small because the broker's responses were.
 *
 * @param batches batches processed
 * @param records records in them
 * @param seconds time spent processing them
 * @param fetches fetch responses the source channel's client received (empty ones included)
 * @param fetchedRecords records in them
 */
record ConsumerBatches(double batches, double records, double seconds, double fetches, double fetchedRecords) {
    /** The source channel of the services that read {@code orders}. */
    static final String ORDERS_CHANNEL = "orders";
    /** The source channel of order-service's saga consumer, which reads {@code inventory}. */
    static final String INVENTORY_CHANNEL = "inventory";

    /** {@code group}'s batches, and the fetches of its source {@code channel}'s Kafka client. */
    static ConsumerBatches parse(String exposition, String group, String channel) {
        String label = "group=\"" + group + "\"";
        String client = "client_id=\"kafka-consumer-" + channel + "\"";
        return new ConsumerBatches(
                PrometheusText.value(exposition, "orderflow_consumer_batch_records_count", label)
                        .orElse(Double.NaN),
                PrometheusText.value(exposition, "orderflow_consumer_batch_records_sum", label)
                        .orElse(Double.NaN),
                PrometheusText.value(exposition, "orderflow_consumer_batch_duration_seconds_sum", label)
                        .orElse(Double.NaN),
                PrometheusText.sum(exposition, "kafka_consumer_fetch_manager_fetch_total", client)
                        .orElse(Double.NaN),
                PrometheusText.sum(exposition, "kafka_consumer_fetch_manager_records_consumed_total", client)
                        .orElse(Double.NaN));
    }

    /** What was counted between {@code earlier} and this reading. */
    ConsumerBatches since(ConsumerBatches earlier) {
        return new ConsumerBatches(
                batches - earlier.batches,
                records - earlier.records,
                seconds - earlier.seconds,
                fetches - earlier.fetches,
                fetchedRecords - earlier.fetchedRecords);
    }

    double recordsPerBatch() {
        return batches == 0 ? Double.NaN : records / batches;
    }

    double recordsPerFetch() {
        return fetches == 0 ? Double.NaN : fetchedRecords / fetches;
    }

    double millisPerBatch() {
        return batches == 0 ? Double.NaN : seconds * 1000 / batches;
    }

    /** The share of {@code window} spent processing batches, 0 to 1. */
    double busyShare(Duration window) {
        return seconds / (window.toNanos() / 1e9);
    }
}
