package io.orderflow.ops.drill;

import io.orderflow.contracts.EventVersion;
import io.orderflow.contracts.Topics;
import io.orderflow.ops.load.OpenLoopLoad;
import io.orderflow.ops.load.OrderCreatedRecords;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Function;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.utils.Utils;

/**
 * {@code hot-partition}: a producer that keys order events by customer, with one customer placing most of the orders,
 * puts most of the load on one partition; the same load keyed by order id, as order-service's relay keys it, spreads
 * evenly. The report shows each partition's records, the lag monitor's produce rate for it and the groups' largest lag
 * on it, for both phases side by side: what the dashboard's partition table shows while it happens.
 *
 * <p>The drill plays that producer: for {@code phase} it publishes {@code OrderCreated} records on {@code orders} at
 * {@code rate} per second, keyed {@code customer-hot} with probability {@code hotShare} and by one of 100,000 other
 * customers otherwise; then, for {@code phase} again, the same load keyed by order id. Every record is a distinct order
 * of one unit, so the consumers process each. The partition of a key is {@code murmur2(key) % partitions}, Kafka's
 * default partitioner, which the drill also computes to name the hot partition before it starts.
 *
 * <p>With one consumer per group, as {@code ./run-platform} runs them, a hot partition costs no more than the same
 * load spread out: one consumer reads every partition. It matters once a group has several consumers: the one that
 * owns the hot partition does most of the work, and adding consumers does not help (ops/drills/README.md).
 *
 * <p>The lag monitor's produce rates are over its window (60 s by default) and read as each phase ends, so a phase
 * should last at least the window for its rates to be its own.
 *
 * <p>Checks: keyed by customer, the hot customer's partition took more than half the records and the lag monitor
 * showed it as the partition with the highest produce rate; keyed by order id, no partition took more than twice its
 * even share; every order was processed (a reservation and a mail); every group caught up.
 */
public final class HotPartitionDrill {

    public static final String NAME = "hot-partition";
    static final String HOT_CUSTOMER = "customer-hot";
    private static final Duration WITHIN = Duration.ofSeconds(180);

    private final DrillTarget target;
    private final int rate;
    private final Duration phase;
    private final double hotShare;
    private final PlatformProbe probe;
    private final OrderCreatedRecords records = new OrderCreatedRecords("hot-partition-drill");

    public HotPartitionDrill(DrillTarget target, int rate, Duration phase, double hotShare) {
        if (rate < 1 || phase.toSeconds() < 1 || !(hotShare > 0.5 && hotShare <= 1)) {
            throw new IllegalArgumentException("the rate and the phase must be positive and the hot share in (0.5, 1];"
                    + " were " + rate + ", " + phase + ", " + hotShare);
        }
        this.target = target;
        this.rate = rate;
        this.phase = phase;
        this.hotShare = hotShare;
        this.probe = new PlatformProbe(target);
    }

    /** One phase's load: when it ran (seconds of the watch), its orders, and the records each partition received. */
    private record Phase(double from, double to, List<String> orders, Map<Integer, Long> records) {
        long total() {
            return records.values().stream().mapToLong(Long::longValue).sum();
        }
    }

    public DrillReport run() throws Exception {
        DrillReport report = new DrillReport(NAME);
        List<String> groups = target.consumers().keySet().stream().sorted().toList();
        LagWatch lag = new LagWatch(target.lagMonitor(), Topics.ORDERS, groups);
        int partitions =
                TopicRecords.endOffsets(target.cluster(), Topics.ORDERS).size();
        int hot = Utils.toPositive(Utils.murmur2(HOT_CUSTOMER.getBytes(StandardCharsets.UTF_8))) % partitions;
        String sku = "sku-" + (1 + ThreadLocalRandom.current().nextInt(1_000));
        SplittableRandom random = new SplittableRandom(7);
        Phase skewed;
        Phase even;
        try (KafkaProducer<String, byte[]> producer = OrderCreatedRecords.producer(target.cluster())) {
            lag.sample();
            skewed = publish(
                    producer,
                    lag,
                    sku,
                    order -> random.nextDouble() < hotShare ? HOT_CUSTOMER : "customer-" + random.nextInt(100_000));
            report.step(String.format(
                    "published %d OrderCreated/s for %d s keyed by customer, %.0f%% of them by %s (partition %d of %d:"
                            + " murmur2(key) %% %d), from %.0f s",
                    rate, phase.toSeconds(), hotShare * 100, HOT_CUSTOMER, hot, partitions, partitions, skewed.from()));
            even = publish(producer, lag, sku, order -> order);
            report.step(String.format(
                    "published %d OrderCreated/s for %d s keyed by order id, as order-service's relay does, from %.0f s",
                    rate, phase.toSeconds(), even.from()));
        }
        List<String> orders = new ArrayList<>(skewed.orders());
        orders.addAll(even.orders());
        OrderTracker tracker = new OrderTracker(probe, orders);
        PlatformProbe.awaitWhileWatching(lag, WITHIN, () -> lag.allCaughtUp() && tracker.allDone());
        double end = lag.seconds();
        report.step("waited until every group had caught up and every order was processed");
        report.chart(lag.chart(60) + "\n" + table(lag, groups, skewed, even, end));

        Map<Integer, Double> skewedRates = lag.ratesAt(Topics.ORDERS, skewed.to());
        long hotRecords = skewed.records().getOrDefault(hot, 0L);
        report.check(
                "keyed by customer, partition " + hot + " took most of the load",
                hotRecords * 2 > skewed.total(),
                hotRecords + " of " + skewed.total() + " records on partition " + hot);
        int hottest = skewedRates.entrySet().stream()
                .max(Map.Entry.comparingByValue())
                .map(Map.Entry::getKey)
                .orElse(-1);
        report.check(
                "the lag monitor showed partition " + hot + " as the hottest",
                hottest == hot,
                String.format("highest produce rate on partition %d: %s", hottest, rounded(skewedRates)));
        long evenMax = even.records().values().stream()
                .mapToLong(Long::longValue)
                .max()
                .orElse(0);
        report.check(
                "keyed by order id, the load spread evenly",
                evenMax * partitions <= 2 * even.total(),
                evenMax + " records on the busiest partition of " + even.total() + " (even share "
                        + even.total() / partitions + ")");
        report.check(
                "every order was processed",
                tracker.allDone(),
                orders.size() + " orders reserved by inventory-service and mailed by notification-service");
        report.check("every group caught up on " + Topics.ORDERS, lag.allCaughtUp(), lag.latestLags());
        return report;
    }

    /** Publishes {@code rate} records a second for {@code phase}, reading the lag once a second meanwhile. */
    private Phase publish(
            KafkaProducer<String, byte[]> producer, LagWatch lag, String sku, Function<String, String> keyOf)
            throws Exception {
        Map<Integer, Long> before = TopicRecords.endOffsets(target.cluster(), Topics.ORDERS);
        double from = lag.seconds();
        long start = System.nanoTime();
        long nextReading = start + 1_000_000_000L;
        List<String> orders = new ArrayList<>();
        List<Future<RecordMetadata>> sent = new ArrayList<>();
        long total = rate * phase.toSeconds();
        for (long i = 0; i < total; i++) {
            OpenLoopLoad.sleepUntil(start + i * 1_000_000_000L / rate);
            String order = UUID.randomUUID().toString();
            sent.add(producer.send(records.record(order, "drill-hot", sku, EventVersion.V1_1, keyOf.apply(order))));
            orders.add(order);
            if (System.nanoTime() >= nextReading) {
                lag.sample();
                nextReading += 1_000_000_000L;
            }
        }
        for (Future<RecordMetadata> send : sent) {
            send.get();
        }
        double to = lag.seconds();
        Map<Integer, Long> after = TopicRecords.endOffsets(target.cluster(), Topics.ORDERS);
        Map<Integer, Long> received = new TreeMap<>();
        after.forEach((partition, offset) -> received.put(partition, offset - before.getOrDefault(partition, 0L)));
        return new Phase(from, to, orders, received);
    }

    /** Per partition, both phases: records received, the monitor's peak produce rate, the groups' largest lag. */
    private static String table(LagWatch lag, List<String> groups, Phase skewed, Phase even, double end) {
        StringBuilder table = new StringBuilder(String.format(
                "  %-10s %28s   %28s%n  %-10s %8s %10s %8s   %8s %10s %8s%n",
                "",
                "keyed by customer",
                "keyed by order id",
                "partition",
                "records",
                "rate/s",
                "max lag",
                "records",
                "rate/s",
                "max lag"));
        Map<Integer, Double> skewedRates = lag.ratesAt(Topics.ORDERS, skewed.to());
        Map<Integer, Double> evenRates = lag.ratesAt(Topics.ORDERS, even.to());
        for (int partition : skewed.records().keySet()) {
            table.append(String.format(
                    "  %-10d %8d %10.1f %8d   %8d %10.1f %8d%n",
                    partition,
                    skewed.records().get(partition),
                    skewedRates.getOrDefault(partition, 0.0),
                    maxLag(lag, groups, partition, skewed.from(), even.from()),
                    even.records().getOrDefault(partition, 0L),
                    evenRates.getOrDefault(partition, 0.0),
                    maxLag(lag, groups, partition, even.from(), end)));
        }
        table.append("  (rate/s: the lag monitor's produce rate over its window, read as the phase ended; max lag: the"
                + " largest of any group on the partition during the phase)\n");
        return table.toString();
    }

    private static long maxLag(LagWatch lag, List<String> groups, int partition, double from, double to) {
        return groups.stream()
                .mapToLong(group -> lag.peakPartitionLag(group, from, to).getOrDefault(partition, 0L))
                .max()
                .orElse(0);
    }

    private static String rounded(Map<Integer, Double> rates) {
        Map<Integer, String> shown = new TreeMap<>();
        rates.forEach((partition, rate) -> shown.put(partition, String.format("%.1f/s", rate)));
        return shown.toString();
    }
}
