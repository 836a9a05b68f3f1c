package io.orderflow.ops.bench.platform;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class ConsumerBatchesTest {
    private static String exposition(String group, int batches, int records, double seconds) {
        return """
                # HELP orderflow_consumer_batch_records Records per processed batch
                # TYPE orderflow_consumer_batch_records summary
                orderflow_consumer_batch_records_count{group="%1$s"} %2$d.0
                orderflow_consumer_batch_records_sum{group="%1$s"} %3$d.0
                orderflow_consumer_batch_records_max{group="%1$s"} 40.0
                # TYPE orderflow_consumer_batch_duration_seconds summary
                orderflow_consumer_batch_duration_seconds_count{group="%1$s"} %2$d
                orderflow_consumer_batch_duration_seconds_sum{group="%1$s"} %4$s
                orderflow_consumer_batch_duration_seconds_max{group="%1$s"} 0.2
                """.formatted(group, batches, records, seconds);
    }

    private static String clientCounters(int ordersFetches, int ordersRecords, int retryFetches) {
        return """
                # TYPE kafka_consumer_fetch_manager_fetch_total counter
                kafka_consumer_fetch_manager_fetch_total{client_id="kafka-consumer-orders-retry",kafka_version="4.4.0"} %3$d.0
                kafka_consumer_fetch_manager_fetch_total{client_id="kafka-consumer-orders",kafka_version="4.4.0"} %1$d.0
                # TYPE kafka_consumer_fetch_manager_records_consumed_total counter
                kafka_consumer_fetch_manager_records_consumed_total{client_id="kafka-consumer-orders-retry",kafka_version="4.4.0"} 3.0
                kafka_consumer_fetch_manager_records_consumed_total{client_id="kafka-consumer-orders",kafka_version="4.4.0",topic="orders"} %2$d.0
                kafka_consumer_fetch_manager_records_consumed_total{client_id="kafka-consumer-orders",kafka_version="4.4.0",topic="refunds"} 10.0
                """.formatted(ordersFetches, ordersRecords, retryFetches);
    }

    @Test
    void theWindowsFetchesAreTheSourceChannelsClientsOverItsTopicsNotTheRetryChannels() {
        ConsumerBatches start =
                ConsumerBatches.parse(exposition("g", 10, 100, 1.0) + clientCounters(40, 100, 7_000), "g", "orders");
        ConsumerBatches end =
                ConsumerBatches.parse(exposition("g", 30, 300, 2.0) + clientCounters(90, 400, 9_000), "g", "orders");

        ConsumerBatches window = end.since(start);

        assertThat(window.fetches()).isEqualTo(50);
        assertThat(window.fetchedRecords()).isEqualTo(300);
        assertThat(window.recordsPerFetch()).isEqualTo(6);
        assertThat(window.recordsPerBatch()).isEqualTo(10);
    }

    @Test
    void theSagaConsumersFetchesAreItsInventoryChannelsClient() {
        String orderService = exposition("order-service", 10, 100, 1.0) + """
                kafka_consumer_fetch_manager_fetch_total{client_id="kafka-consumer-inventory",kafka_version="4.4.0"} 25.0
                kafka_consumer_fetch_manager_records_consumed_total{client_id="kafka-consumer-inventory",topic="inventory"} 75.0
                """;

        ConsumerBatches read = ConsumerBatches.parse(orderService, "order-service", ConsumerBatches.INVENTORY_CHANNEL);

        assertThat(read.batches()).isEqualTo(10);
        assertThat(read.fetches()).isEqualTo(25);
        assertThat(read.recordsPerFetch()).isEqualTo(3);
        assertThat(ConsumerBatches.parse(orderService, "order-service", ConsumerBatches.ORDERS_CHANNEL)
                        .fetches())
                .isNaN();
    }

    @Test
    void aServiceWithoutClientMetricsHasNoFetchFigures() {
        ConsumerBatches read = ConsumerBatches.parse(exposition("g", 10, 100, 1.0), "g", "orders");

        assertThat(read.fetches()).isNaN();
        assertThat(read.recordsPerFetch()).isNaN();
    }

    @Test
    void aWindowsBatchesAreTheDifferenceOfTwoReadingsOfTheServicesCounters() {
        ConsumerBatches start =
                ConsumerBatches.parse(exposition("inventory-service", 100, 1_000, 2.0), "inventory-service", "orders");
        ConsumerBatches end = ConsumerBatches.parse(
                exposition("inventory-service", 600, 13_000, 32.0), "inventory-service", "orders");

        ConsumerBatches window = end.since(start);

        assertThat(window.batches()).isEqualTo(500);
        assertThat(window.recordsPerBatch()).isEqualTo(24);
        assertThat(window.millisPerBatch()).isCloseTo(60, within(1e-9));
        assertThat(window.busyShare(Duration.ofSeconds(60))).isCloseTo(0.5, within(1e-9));
    }

    @Test
    void anotherGroupsCountersAreNotRead() {
        ConsumerBatches read =
                ConsumerBatches.parse(exposition("analytics-service", 7, 70, 1.0), "inventory-service", "orders");

        assertThat(read.batches()).isNaN();
        assertThat(read.seconds()).isNaN();
    }

    @Test
    void aWindowWithoutBatchesHasNoPerBatchFigures() {
        ConsumerBatches same = ConsumerBatches.parse(exposition("g", 5, 50, 1.0), "g", "orders");

        ConsumerBatches window = same.since(same);

        assertThat(window.recordsPerBatch()).isNaN();
        assertThat(window.millisPerBatch()).isNaN();
        assertThat(window.busyShare(Duration.ofSeconds(10))).isZero();
    }
}
