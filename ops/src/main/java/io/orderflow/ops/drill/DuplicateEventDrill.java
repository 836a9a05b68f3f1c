package io.orderflow.ops.drill;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.orderflow.contracts.Topics;
import io.orderflow.ops.bench.orders.PrometheusText;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * {@code duplicate-event}: the same event published twice, and a relay re-sending a whole batch (what a relay does
 * after a crash between the broker's acknowledgement and marking its rows published), must have one effect everywhere.
 *
 * <p>The drill places orders of one SKU over HTTP, waits until the three groups have processed them, then copies their
 * records on the {@code orders} topic: the first one once more, then all of them again in log order (the same key,
 * value and headers, so the same partition and event ids). It then checks that each order's reservation and mails are
 * unchanged, the SKU's reserved stock is unchanged, and each group counted every copy as a duplicate
 * ({@code orderflow_consumer_events_total{outcome="duplicate"}} rose by at least the number of copies: a batch
 * redelivered after a rebalance meanwhile adds its own). Other traffic may run meanwhile; the checks concern the
 * drill's own orders and SKU only, so the SKU should be one no other load orders (a random one of the 1,000).
 */
public final class DuplicateEventDrill {

    public static final String NAME = "duplicate-event";
    private static final Duration WITHIN = Duration.ofSeconds(120);

    private final DrillTarget target;
    private final int orderCount;
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final ObjectMapper json = new ObjectMapper();

    public DuplicateEventDrill(DrillTarget target, int orderCount) {
        this.target = target;
        this.orderCount = orderCount;
    }

    public DrillReport run() throws Exception {
        DrillReport report = new DrillReport(NAME);
        List<String> groups =
                List.copyOf(target.consumers().keySet()).stream().sorted().toList();
        LagWatch lag = new LagWatch(target.lagMonitor(), Topics.ORDERS, groups);
        String sku = "sku-" + (1 + ThreadLocalRandom.current().nextInt(1_000));
        long startedMillis = System.currentTimeMillis() - 1_000;

        List<String> orders = new ArrayList<>();
        for (int i = 0; i < orderCount; i++) {
            orders.add(placeOrder(sku));
        }
        report.step("placed " + orderCount + " orders of " + sku + " through POST /orders");
        awaitWhileWatching(lag, () -> orders.stream().allMatch(this::processedEverywhere) && lag.allCaughtUp());
        report.step("waited until inventory reserved, notification recorded a mail for, and every group committed"
                + " past each of them");

        Map<String, String> reservations = new LinkedHashMap<>();
        Map<String, Integer> mails = new LinkedHashMap<>();
        for (String order : orders) {
            reservations.put(order, get(target.inventoryService().resolve("/reservations/" + order)));
            mails.put(order, json.readTree(get(notifications(order))).size());
        }
        JsonNode stockBefore = json.readTree(get(target.inventoryService().resolve("/inventory/" + sku)));
        Map<String, Double> duplicatesBefore = duplicates();

        List<ConsumerRecord<byte[], byte[]>> published = read(Set.copyOf(orders), startedMillis);
        int resent = resend(published);
        report.step("published the first order's " + published.getFirst().partition() + "@"
                + published.getFirst().offset() + " once more, then all " + published.size()
                + " of the drill's records again in log order: " + resent + " copies");

        awaitWhileWatching(lag, () -> lag.allCaughtUp() && duplicatesSince(duplicatesBefore, resent));
        report.step("waited until every group had committed past the copies");
        for (int i = 0; i < 3; i++) {
            lag.sample(); // a few readings after the copies, so the chart shows the groups at rest
        }
        report.chart(lag.chart(60));

        List<String> changedReservations = new ArrayList<>();
        List<String> changedMails = new ArrayList<>();
        for (String order : orders) {
            if (!get(target.inventoryService().resolve("/reservations/" + order))
                    .equals(reservations.get(order))) {
                changedReservations.add(order);
            }
            if (json.readTree(get(notifications(order))).size() != mails.get(order)) {
                changedMails.add(order);
            }
        }
        JsonNode stockAfter = json.readTree(get(target.inventoryService().resolve("/inventory/" + sku)));
        report.check(
                "inventory-service reserved each order once",
                changedReservations.isEmpty() && stockAfter.equals(stockBefore),
                changedReservations.size() + " of " + orderCount + " reservations changed; " + sku + " before "
                        + stockBefore + ", after " + stockAfter);
        report.check(
                "notification-service sent each mail once",
                changedMails.isEmpty(),
                changedMails.size() + " of " + orderCount + " orders have another number of mails than before ("
                        + mails.values().stream().mapToInt(Integer::intValue).sum() + " mails before)");
        Map<String, Double> duplicatesAfter = duplicates();
        for (String group : groups) {
            double counted = duplicatesAfter.get(group) - duplicatesBefore.get(group);
            report.check(
                    group + " skipped every copy as a duplicate",
                    counted >= resent,
                    String.format("%.0f duplicates counted for %d copies", counted, resent));
        }
        report.check(
                "every group caught up on " + Topics.ORDERS,
                lag.allCaughtUp(),
                groups.stream()
                        .map(group -> group + " lag "
                                + lag.latest(group).map(LagWatch.Reading::lag).orElse(-1L))
                        .toList()
                        .toString());
        return report;
    }

    private URI notifications(String order) {
        return target.notificationService().resolve("/notifications?orderId=" + order);
    }

    private String placeOrder(String sku) throws IOException, InterruptedException {
        HttpResponse<String> created = http.send(
                HttpRequest.newBuilder(target.orderService().resolve("/orders"))
                        .timeout(Duration.ofSeconds(30))
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString("{\"customerId\":\"drill-duplicate\","
                                + "\"currency\":\"EUR\",\"items\":[{\"sku\":\"" + sku
                                + "\",\"quantity\":1,\"unitPrice\":\"1.00\"}]}"))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        if (created.statusCode() != 201) {
            throw new IllegalStateException("POST /orders answered " + created.statusCode() + ": " + created.body());
        }
        return json.readTree(created.body()).get("id").asText();
    }

    private boolean processedEverywhere(String order) {
        try {
            return status(target.inventoryService().resolve("/reservations/" + order)) == 200
                    && json.readTree(get(notifications(order))).size() > 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Each consuming service's count of records it skipped as duplicates, by group. */
    private Map<String, Double> duplicates() throws IOException, InterruptedException {
        Map<String, Double> counts = new HashMap<>();
        for (Map.Entry<String, URI> service : target.consumers().entrySet()) {
            String metrics = get(service.getValue().resolve("/q/metrics"));
            counts.put(
                    service.getKey(),
                    PrometheusText.value(metrics, "orderflow_consumer_events_total", "outcome=\"duplicate\"")
                            .orElse(0));
        }
        return counts;
    }

    private boolean duplicatesSince(Map<String, Double> before, int copies) {
        try {
            Map<String, Double> now = duplicates();
            return before.keySet().stream().allMatch(group -> now.get(group) - before.get(group) >= copies);
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** The drill's records on the orders topic, from {@code sinceMillis} on, in each partition's order. */
    private List<ConsumerRecord<byte[], byte[]>> read(Set<String> orders, long sinceMillis) {
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(
                Map.of(
                        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                        target.bootstrapServers(),
                        ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
                        false),
                new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = consumer.partitionsFor(Topics.ORDERS).stream()
                    .map(info -> new TopicPartition(info.topic(), info.partition()))
                    .toList();
            consumer.assign(partitions);
            Map<TopicPartition, Long> since = new HashMap<>();
            partitions.forEach(partition -> since.put(partition, sinceMillis));
            Map<TopicPartition, OffsetAndTimestamp> from = consumer.offsetsForTimes(since);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
            for (TopicPartition partition : partitions) {
                OffsetAndTimestamp offset = from.get(partition);
                consumer.seek(partition, offset == null ? end.get(partition) : offset.offset());
            }
            List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
            long deadline = System.nanoTime() + WITHIN.toNanos();
            while (partitions.stream().anyMatch(p -> consumer.position(p) < end.get(p))) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("could not read " + Topics.ORDERS + " to its end");
                }
                for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                    if (record.key() != null && orders.contains(new String(record.key()))) {
                        records.add(record);
                    }
                }
            }
            if (records.size() < orders.size()) {
                throw new IllegalStateException(
                        "found " + records.size() + " records of " + orders.size() + " orders on " + Topics.ORDERS);
            }
            return records;
        }
    }

    /** The first record once more, then every record again in order; returns the number of copies sent. */
    private int resend(List<ConsumerRecord<byte[], byte[]>> records) throws InterruptedException, ExecutionException {
        List<ConsumerRecord<byte[], byte[]>> copies = new ArrayList<>();
        copies.add(records.getFirst());
        copies.addAll(records);
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(
                Map.of(
                        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                        target.bootstrapServers(),
                        ProducerConfig.ACKS_CONFIG,
                        "all"),
                new ByteArraySerializer(),
                new ByteArraySerializer())) {
            List<Future<RecordMetadata>> sent = new ArrayList<>();
            for (ConsumerRecord<byte[], byte[]> record : copies) {
                sent.add(producer.send(new ProducerRecord<>(
                        record.topic(), record.partition(), record.key(), record.value(), record.headers())));
            }
            for (Future<RecordMetadata> send : sent) {
                send.get();
            }
        }
        return copies.size();
    }

    /** Samples the lag once a second until {@code done} or {@link #WITHIN} has passed (then fails). */
    private static void awaitWhileWatching(LagWatch lag, BooleanSupplier done) throws InterruptedException {
        long deadline = System.nanoTime() + WITHIN.toNanos();
        while (true) {
            lag.sample();
            if (done.getAsBoolean()) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the platform did not get there within " + WITHIN.toSeconds() + " s");
            }
            Thread.sleep(1_000); // the drill's reading cadence: one lag reading a second
        }
    }

    private String get(URI uri) throws IOException, InterruptedException {
        return fetch(uri).body();
    }

    private int status(URI uri) throws IOException, InterruptedException {
        return fetch(uri).statusCode();
    }

    private HttpResponse<String> fetch(URI uri) throws IOException, InterruptedException {
        return http.send(
                HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
