package io.orderflow.ops.drill;

import io.orderflow.consumer.FailureHeaders;
import io.orderflow.consumer.RetryTopics;
import io.orderflow.contracts.EventVersion;
import io.orderflow.contracts.Topics;
import io.orderflow.ops.load.OpenLoopLoad;
import io.orderflow.ops.load.OrderBodies;
import io.orderflow.ops.load.OrderCreatedRecords;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.header.Header;

/**
 * {@code schema-change}: the producers of {@code OrderCreated} move from version 1.0 to 1.1 mid-stream, then a 2.0
 * appears. The consumers must go on reading every 1.x, dead-letter each 2.0 with a reason that names its version (a
 * consumer must not guess at a breaking change), and nothing else may stop.
 *
 * <p>The drill plays the producers being upgraded: it publishes {@code OrderCreated} records on {@code orders} itself,
 * as a relay does (keyed by order id, the envelope as the value, the event id, type and version as headers): {@code
 * perVersion} at 1.0 (no {@code channel}, the field 1.1 added), then as many at 1.1 (with it, as order-service
 * writes), then {@code perVersion} at 2.0 (a breaking change: the lines are called {@code lines}, prices in cents).
 * Meanwhile order-service takes orders over HTTP at {@code rate} per second. The lag monitor is read once a second.
 *
 * <p>Checks: every 1.0 and 1.1 order was reserved by inventory-service and mailed by notification-service; every 2.0
 * record is on each group's dead-letter topic with a reason naming version 2.0, and none of those orders was reserved or
 * mailed; every order placed over HTTP meanwhile was processed; every group caught up.
 */
public final class SchemaChangeDrill {

    public static final String NAME = "schema-change";
    private static final Duration WITHIN = Duration.ofSeconds(180);
    private static final EventVersion V2_0 = OrderCreatedRecords.V2_0;

    private final DrillTarget target;
    private final int perVersion;
    private final int rate;
    private final Duration duration;
    private final PlatformProbe probe;
    private final OrderCreatedRecords records = new OrderCreatedRecords("schema-change-drill");

    public SchemaChangeDrill(DrillTarget target, int perVersion, int rate, Duration duration) {
        if (perVersion < 1 || rate < 1 || duration.toSeconds() < 3) {
            throw new IllegalArgumentException("records per version and the rate must be positive, the duration at"
                    + " least 3 s; were " + perVersion + ", " + rate + ", " + duration);
        }
        this.target = target;
        this.perVersion = perVersion;
        this.rate = rate;
        this.duration = duration;
        this.probe = new PlatformProbe(target);
    }

    public DrillReport run() throws Exception {
        DrillReport report = new DrillReport(NAME);
        List<String> groups = target.consumers().keySet().stream().sorted().toList();
        LagWatch lag = new LagWatch(target.lagMonitor(), Topics.ORDERS, groups);
        long startedMillis = System.currentTimeMillis() - 1_000;
        String sku = "sku-" + (1 + ThreadLocalRandom.current().nextInt(1_000));
        Map<EventVersion, List<String>> published = new LinkedHashMap<>();
        Queue<String> placed = new ConcurrentLinkedQueue<>();
        OpenLoopLoad.Result load;
        try (OpenLoopLoad orders = new OpenLoopLoad(
                        target.orderService(), rate, 256, false, 1, OrderBodies.uniform(), placed::add);
                KafkaProducer<String, byte[]> producer = OrderCreatedRecords.producer(target.cluster())) {
            long start = System.nanoTime() + 500_000_000L;
            CompletableFuture<OpenLoopLoad.Result> done = orders.runInBackground(start, Duration.ZERO, duration);
            report.step(String.format(
                    "sent %d orders/s through POST /orders for %d s; meanwhile, as a producer being upgraded:",
                    rate, duration.toSeconds()));
            List<EventVersion> versions = List.of(EventVersion.V1_0, EventVersion.V1_1, V2_0);
            for (int i = 0; i < versions.size(); i++) {
                lag.watchUntil(start + duration.toNanos() * (i + 1) / (versions.size() + 1));
                EventVersion version = versions.get(i);
                published.put(version, publish(producer, version, sku));
                report.step(String.format(
                        "at %.0f s published %d OrderCreated %s records of %s on %s",
                        lag.seconds(), perVersion, version, sku, Topics.ORDERS));
            }
            lag.watchWhile(() -> !done.isDone());
            load = done.get();
        }
        List<String> readable = new ArrayList<>(published.get(EventVersion.V1_0));
        readable.addAll(published.get(EventVersion.V1_1));
        List<String> breaking = published.get(V2_0);
        List<String> overHttp = List.copyOf(placed);
        OrderTracker tracker = new OrderTracker(probe, concat(readable, overHttp));
        Map<String, Map<String, String>> deadLettered = new HashMap<>();
        PlatformProbe.awaitWhileWatching(lag, WITHIN, () -> {
            if (!lag.allCaughtUp() || !tracker.allDone()) {
                return false;
            }
            deadLettered.clear();
            deadLettered.putAll(deadLetters(groups, Set.copyOf(breaking), startedMillis));
            return groups.stream()
                    .allMatch(
                            group -> deadLettered.getOrDefault(group, Map.of()).size() == breaking.size());
        });
        report.step("waited until every group had caught up, every 1.x order and every order placed over HTTP was"
                + " processed, and every group had dead-lettered every 2.0 record");
        report.chart(lag.chart(60));

        report.check(
                "every OrderCreated 1.0 and 1.1 was processed",
                tracker.allDone(),
                readable.size() + " orders (" + perVersion + " at 1.0, " + perVersion
                        + " at 1.1) reserved by inventory-service and mailed by notification-service");
        for (String group : groups) {
            Map<String, String> reasons = deadLettered.getOrDefault(group, Map.of());
            boolean named = reasons.size() == breaking.size()
                    && reasons.values().stream().allMatch(reason -> reason.contains("version 2.0"));
            report.check(
                    group + " dead-lettered every 2.0 with its reason",
                    named,
                    reasons.size() + " of " + breaking.size() + " on " + deadLetterTopic(group) + "; reason: "
                            + reasons.values().stream().findFirst().orElse("-"));
        }
        int applied = 0;
        for (String order : breaking) {
            if (probe.reservation(order) != null || probe.mails(order) > 0) {
                applied++;
            }
        }
        report.check(
                "no 2.0 record was acted on",
                applied == 0,
                applied + " of " + breaking.size() + " 2.0 orders have a reservation or a mail");
        long failed = load.failed() + load.notSent() + load.unanswered();
        report.check(
                "nothing else stopped",
                failed == 0 && lag.allCaughtUp(),
                overHttp.size() + " orders placed over HTTP meanwhile, all processed; " + failed
                        + " refused or unanswered; every group caught up");
        return report;
    }

    /** Publishes {@code perVersion} OrderCreated records at {@code version}; returns their order ids. */
    private List<String> publish(KafkaProducer<String, byte[]> producer, EventVersion version, String sku)
            throws Exception {
        List<String> orders = new ArrayList<>();
        List<Future<RecordMetadata>> sent = new ArrayList<>();
        for (int i = 0; i < perVersion; i++) {
            String order = UUID.randomUUID().toString();
            sent.add(producer.send(records.record(order, "drill-schema", sku, version, order)));
            orders.add(order);
        }
        for (Future<RecordMetadata> send : sent) {
            send.get();
        }
        return orders;
    }

    /** Per group: the reason header of each of {@code orders}' records on its dead-letter topic since then. */
    private Map<String, Map<String, String>> deadLetters(List<String> groups, Set<String> orders, long sinceMillis) {
        Map<String, Map<String, String>> found = new HashMap<>();
        for (String group : groups) {
            Map<String, String> reasons = new LinkedHashMap<>();
            for (ConsumerRecord<byte[], byte[]> record :
                    TopicRecords.since(target.cluster(), deadLetterTopic(group), sinceMillis, Duration.ofSeconds(30))) {
                String key = record.key() == null ? "" : new String(record.key(), StandardCharsets.UTF_8);
                Header reason = record.headers().lastHeader(FailureHeaders.DEAD_LETTER_REASON);
                if (orders.contains(key)) {
                    reasons.put(key, reason == null ? "" : new String(reason.value(), StandardCharsets.UTF_8));
                }
            }
            found.put(group, reasons);
        }
        return found;
    }

    private static String deadLetterTopic(String group) {
        return RetryTopics.of(group, List.of(Duration.ofSeconds(1))).deadLetterTopic();
    }

    private static List<String> concat(List<String> first, List<String> second) {
        List<String> all = new ArrayList<>(first);
        all.addAll(second);
        return all;
    }
}
