package io.orderflow.ops.drill;

import com.fasterxml.jackson.databind.JsonNode;
import io.orderflow.contracts.EventHeaders;
import io.orderflow.contracts.Topics;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * {@code duplicate-event}: the same event published twice, and a relay re-sending a whole batch (what a relay does
 * after a crash between the broker's acknowledgement and marking its rows published), must have one effect everywhere:
 * in the three services consuming {@code orders}, and in order-service's saga step, which consumes inventory's
 * answers on {@code inventory}.
 *
 * <p>The drill places orders of one SKU over HTTP and waits until the three groups have processed them and
 * order-service has confirmed each. It then copies, with the same key, value and headers (so the same partition and
 * event ids), their {@code OrderCreated} records on {@code orders} (the event every group acts on): the first once
 * more, then all of them again in log order; and inventory-service's {@code InventoryReserved} answers to them on
 * {@code inventory} the same way, byte for byte. It then checks that each order's reservation and mails are unchanged,
 * the SKU's reserved stock is unchanged, each order is still CONFIRMED at the same version with exactly one
 * OrderConfirmed on {@code orders}, and each group counted every copy it reads as a duplicate
 * ({@code orderflow_consumer_events_total{outcome="duplicate"}} rose by at least the number of copies: a batch
 * redelivered after a rebalance meanwhile adds its own). Other traffic may run meanwhile; the checks concern the
 * drill's own orders and SKU only, so the SKU should be one no other load orders (a random one of the 1,000).
 */
public final class DuplicateEventDrill {

    public static final String NAME = "duplicate-event";
    private static final Duration WITHIN = Duration.ofSeconds(120);

    private final DrillTarget target;
    private final int orderCount;
    private final PlatformProbe probe;

    public DuplicateEventDrill(DrillTarget target, int orderCount) {
        this.target = target;
        this.orderCount = orderCount;
        this.probe = new PlatformProbe(target);
    }

    public DrillReport run() throws Exception {
        DrillReport report = new DrillReport(NAME);
        List<String> groups = target.allConsumers().keySet().stream().sorted().toList();
        LagWatch lag = LagWatch.of(target.lagMonitor(), groups);
        String sku = "sku-" + (1 + ThreadLocalRandom.current().nextInt(1_000));
        long startedMillis = System.currentTimeMillis() - 1_000;

        List<String> orders = new ArrayList<>();
        for (int i = 0; i < orderCount; i++) {
            orders.add(probe.placeOrder("drill-duplicate", sku));
        }
        report.step("placed " + orderCount + " orders of " + sku + " through POST /orders");
        PlatformProbe.awaitWhileWatching(
                lag,
                WITHIN,
                () -> orders.stream()
                                .allMatch(
                                        order -> probe.processed(order) && probe.hasStatus(order, Set.of("CONFIRMED")))
                        && lag.allCaughtUp());
        report.step("waited until inventory reserved, notification recorded a mail for and order-service confirmed"
                + " each of them, and every group committed past them");

        Map<String, String> reservations = new LinkedHashMap<>();
        Map<String, Integer> mails = new LinkedHashMap<>();
        Map<String, Long> versions = new LinkedHashMap<>();
        for (String order : orders) {
            reservations.put(order, probe.reservation(order));
            mails.put(order, probe.mails(order));
            versions.put(order, probe.order(order).path("version").asLong());
        }
        JsonNode stockBefore = probe.stock(sku);
        Map<String, Double> duplicatesBefore = probe.duplicates();

        List<ConsumerRecord<byte[], byte[]>> created =
                read(Topics.ORDERS, "OrderCreated", Set.copyOf(orders), startedMillis);
        List<ConsumerRecord<byte[], byte[]>> reserved =
                read(Topics.INVENTORY, "InventoryReserved", Set.copyOf(orders), startedMillis);
        int createdCopies = resend(created);
        int reservedCopies = resend(reserved);
        report.step("published the first order's OrderCreated (" + Topics.ORDERS + " " + at(created.getFirst())
                + ") once more, then all " + created.size() + " of the drill's OrderCreated records again in log"
                + " order: " + createdCopies + " copies");
        report.step("published the first order's InventoryReserved (" + Topics.INVENTORY + " "
                + at(reserved.getFirst()) + ") once more, then all " + reserved.size()
                + " of inventory's answers to the drill's orders again in log order: " + reservedCopies + " copies");
        Map<String, Integer> copiesRead = new LinkedHashMap<>();
        for (String group : groups) {
            copiesRead.put(group, DrillTarget.topicOf(group).equals(Topics.INVENTORY) ? reservedCopies : createdCopies);
        }

        PlatformProbe.awaitWhileWatching(
                lag, WITHIN, () -> lag.allCaughtUp() && duplicatesSince(duplicatesBefore, copiesRead));
        report.step("waited until every group had committed past the copies");
        for (int i = 0; i < 3; i++) {
            lag.sample(); // a few readings after the copies, so the chart shows the groups at rest
        }
        // The lag monitor reads end offsets and commits on its own schedule: a reading of 0 can predate the copies'
        // end offsets, and the groups' commits of them can follow a reading that has them. Lag must drain, so wait
        // for a reading at rest taken after these, within the drill's time, before judging it below.
        try {
            PlatformProbe.awaitWhileWatching(lag, WITHIN, lag::allCaughtUp);
        } catch (IllegalStateException notDrained) {
            // judged by the check below, with the latest lags
        }
        report.chart(lag.chart(60));

        List<String> changedReservations = new ArrayList<>();
        List<String> changedMails = new ArrayList<>();
        List<String> changedOrders = new ArrayList<>();
        OrderTopicEvents answers = OrderTopicEvents.since(target.cluster(), startedMillis, WITHIN);
        for (String order : orders) {
            if (!reservations.get(order).equals(probe.reservation(order))) {
                changedReservations.add(order);
            }
            if (probe.mails(order) != mails.get(order)) {
                changedMails.add(order);
            }
            JsonNode now = probe.order(order);
            if (now == null
                    || !now.path("status").asText().equals("CONFIRMED")
                    || now.path("version").asLong() != versions.get(order)
                    || versions.get(order) != 2
                    || !answers.of(order, OrderTopicEvents.ANSWERS).equals(List.of("OrderConfirmed"))) {
                changedOrders.add(order);
            }
        }
        JsonNode stockAfter = probe.stock(sku);
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
        report.check(
                "order-service confirmed each order once",
                changedOrders.isEmpty(),
                (orderCount - changedOrders.size()) + " of " + orderCount + " orders CONFIRMED with one version change"
                        + " since their creation (version 2, as before the copies) and one OrderConfirmed on "
                        + Topics.ORDERS + (changedOrders.isEmpty() ? "" : "; not so: " + changedOrders));
        Map<String, Double> duplicatesAfter = probe.duplicates();
        for (String group : groups) {
            double counted = duplicatesAfter.getOrDefault(group, 0.0) - duplicatesBefore.getOrDefault(group, 0.0);
            report.check(
                    group + " skipped every copy as a duplicate",
                    counted >= copiesRead.get(group),
                    String.format(
                            "%.0f duplicates counted for %d copies on %s",
                            counted, copiesRead.get(group), DrillTarget.topicOf(group)));
        }
        report.check("every group caught up", lag.allCaughtUp(), lag.latestLags());
        return report;
    }

    private boolean duplicatesSince(Map<String, Double> before, Map<String, Integer> copies) {
        try {
            Map<String, Double> now = probe.duplicates();
            return copies.keySet().stream()
                    .allMatch(group ->
                            now.getOrDefault(group, 0.0) - before.getOrDefault(group, 0.0) >= copies.get(group));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** The records of {@code type} for the drill's orders on {@code topic} from {@code sinceMillis} on, in log order. */
    private List<ConsumerRecord<byte[], byte[]>> read(String topic, String type, Set<String> orders, long sinceMillis) {
        List<ConsumerRecord<byte[], byte[]>> records =
                TopicRecords.since(target.cluster(), topic, sinceMillis, WITHIN).stream()
                        .filter(record -> record.key() != null
                                && orders.contains(new String(record.key(), StandardCharsets.UTF_8))
                                && type.equals(header(record, EventHeaders.EVENT_TYPE)))
                        .toList();
        if (records.size() < orders.size()) {
            throw new IllegalStateException(
                    "found " + records.size() + " " + type + " records of " + orders.size() + " orders on " + topic);
        }
        return records;
    }

    private static String header(ConsumerRecord<byte[], byte[]> record, String name) {
        Header header = record.headers().lastHeader(name);
        return header == null ? null : new String(header.value(), StandardCharsets.UTF_8);
    }

    private static String at(ConsumerRecord<byte[], byte[]> record) {
        return record.partition() + "@" + record.offset();
    }

    /** The first record once more, then every record again in order; returns the number of copies sent. */
    private int resend(List<ConsumerRecord<byte[], byte[]>> records) throws InterruptedException, ExecutionException {
        List<ConsumerRecord<byte[], byte[]>> copies = new ArrayList<>();
        copies.add(records.getFirst());
        copies.addAll(records);
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(
                target.cluster().producer(Map.of(ProducerConfig.ACKS_CONFIG, "all")),
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
}
