package io.orderflow.ops.bench.platform;

import io.orderflow.lag.LagStatus;
import io.orderflow.ops.bench.orders.OrdersTable;
import io.orderflow.ops.load.LatencySamples;
import io.orderflow.ops.load.OpenLoopLoad;
import java.io.PrintStream;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * One measurement's figures and their printing; {@link PlatformTable} summarises them.
 *
 * @param broker {@code ours} or {@code kafka}
 * @param offeredPerSecond the rate requests were due at
 * @param acceptedPerSecond 201s for requests due in the window, per second of it
 * @param lag per consumer group: its lag in the window
 * @param processed per consumer service and for all three ({@code "all"}): accepted -> processed, window orders
 * @param delay per consumer service: how its accepted -> processed delay grew over the window
 * @param stages where accepted -> processed went, window orders ({@link PlatformBenchmark#STAGES})
 * @param missing accepted orders of the window that not every service processed within the drain
 * @param drainMillis from the end of the window until every service had processed every order, NaN if never
 * @param cores CPU cores each process used in the window
 * @param batches per consumer service: its batches in the window
 * @param relay the relay's requests to the broker in the window
 * @param cpuMillisPerOrder CPU each process used in the window per order accepted in it, in milliseconds
 * @param brokerMemory the broker's resident memory
 * @param mails the notification service's mails by status after the drain
 */
record RunFigures(
        String broker,
        int offeredPerSecond,
        double acceptedPerSecond,
        double httpP50,
        double httpP99,
        Map<String, GroupLag> lag,
        Map<String, LatencySamples.Summary> processed,
        Map<String, DelayTrend> delay,
        Map<String, LatencySamples.Summary> stages,
        long missing,
        double drainMillis,
        Map<String, Double> cores,
        Map<String, ConsumerBatches> batches,
        ProduceRequests relay,
        Map<String, Double> cpuMillisPerOrder,
        BrokerMemory brokerMemory,
        Map<String, Long> mails) {

    /** The broker's resident memory ({@code VmRSS}) at the end of the window and its peak ({@code VmHWM}), MiB. */
    record BrokerMemory(double endOfWindowMiB, double peakMiB) {}

    /**
     * A group's lag in records over the window: largest and mean reading, and growth (least-squares slope over the
     * readings, records per second; about zero for a group that keeps up, about the shortfall for one that does not).
     */
    record GroupLag(long max, double mean, double growthPerSecond, int readings) {
        static GroupLag of(List<GroupLagSampler.Sample> window, String group) {
            if (window.isEmpty()) {
                return new GroupLag(-1, Double.NaN, Double.NaN, 0);
            }
            List<LagStatus.Reading> readings = window.stream()
                    .map(s -> new LagStatus.Reading(s.atMillis(), -1, s.lag().get(group)))
                    .toList();
            return new GroupLag(
                    readings.stream().mapToLong(LagStatus.Reading::lag).max().orElseThrow(),
                    readings.stream()
                            .mapToLong(LagStatus.Reading::lag)
                            .average()
                            .orElseThrow(),
                    LagStatus.growthPerSecond(readings),
                    readings.size());
        }
    }

    static RunFigures of(
            String broker,
            int offeredPerSecond,
            OpenLoopLoad.Result loaded,
            Duration window,
            List<GroupLagSampler.Sample> lagReadings,
            PlatformBenchmark.Processed processing,
            double drainMillis,
            Map<String, Double> cores,
            Map<String, ConsumerBatches> batches,
            ProduceRequests relay,
            BrokerMemory brokerMemory,
            Map<String, Long> mails) {
        Map<String, GroupLag> lag = new LinkedHashMap<>();
        PlatformBenchmark.CONSUMERS.forEach(group -> lag.put(group, GroupLag.of(lagReadings, group)));
        Map<String, LatencySamples.Summary> processed = new LinkedHashMap<>();
        processing.latencies().forEach((name, samples) -> processed.put(name, samples.summary()));
        Map<String, LatencySamples.Summary> stages = new LinkedHashMap<>();
        processing.stages().forEach((name, samples) -> stages.put(name, samples.summary()));
        double seconds = window.toNanos() / 1e9;
        Map<String, Double> perOrder = new LinkedHashMap<>();
        cores.forEach((name, c) -> perOrder.put(name, c * seconds * 1000 / Math.max(1, loaded.accepted())));
        return new RunFigures(
                broker,
                offeredPerSecond,
                loaded.accepted() / seconds,
                loaded.latency().percentileMillis(50),
                loaded.latency().percentileMillis(99),
                lag,
                processed,
                processing.trends(),
                stages,
                loaded.accepted() - processed.get("all").count(),
                drainMillis,
                cores,
                batches,
                relay,
                perOrder,
                brokerMemory,
                mails);
    }

    /**
     * Whether every group kept up: its accepted -> processed delay grew by less than 20 ms a second over the window (its
     * lag by less than 2% of the rate; see {@link DelayTrend}), and every order was processed within the drain.
     */
    boolean keptUp() {
        return !Double.isNaN(drainMillis) && delay.values().stream().allMatch(DelayTrend::keptUp);
    }

    /**
     * Whether the platform sustained the offered rate: every group kept up, and order-service accepted at least 95% of
     * it (the rest not sent, as at most {@code --max-in-flight} were outstanding, or refused).
     */
    boolean sustained() {
        return keptUp() && acceptedPerSecond >= 0.95 * offeredPerSecond;
    }

    void print(PrintStream out, OpenLoopLoad.Result loaded, Duration window) {
        out.printf(
                Locale.ROOT,
                "  load: %,d due in the %d s window, %,d accepted (%.1f/s), %,d failed %s, %,d not sent; HTTP from due"
                        + " time p50 %s, p99 %s ms%n",
                loaded.scheduled(),
                window.toSeconds(),
                loaded.accepted(),
                acceptedPerSecond,
                loaded.failed(),
                loaded.failures(),
                loaded.notSent(),
                OrdersTable.format(httpP50),
                OrdersTable.format(httpP99));
        lag.forEach((group, l) -> out.printf(
                Locale.ROOT,
                "  lag %-21s max %,d, mean %,.0f records, growth %+.1f records/s (%d readings)%n",
                group,
                l.max(),
                l.mean(),
                l.growthPerSecond(),
                l.readings()));
        processed.forEach((name, s) -> out.printf(
                Locale.ROOT,
                "  accepted -> processed %-21s p50 %s, p99 %s, max %s ms (%,d orders)%s%n",
                name.equals("all") ? "by all three" : name,
                OrdersTable.format(s.percentileMillis(50)),
                OrdersTable.format(s.percentileMillis(99)),
                OrdersTable.format(s.maxMillis()),
                s.count(),
                delay.containsKey(name)
                        ? String.format(
                                Locale.ROOT,
                                ", delay growth %+.1f ms/s",
                                delay.get(name).growthMillisPerSecond())
                        : ""));
        stages.forEach((name, s) -> out.printf(
                Locale.ROOT,
                "  stage %-45s p50 %s, p99 %s ms (%,d orders)%n",
                name,
                OrdersTable.format(s.percentileMillis(50)),
                OrdersTable.format(s.percentileMillis(99)),
                s.count()));
        out.printf(
                Locale.ROOT,
                "  relay requests %,.0f of %s records%n",
                relay.requests(),
                OrdersTable.format(relay.recordsPerRequest()));
        batches.forEach((consumer, b) -> out.printf(
                Locale.ROOT,
                "  batches %-21s %,.0f of %s records, %s ms each, busy %s of the window; %,.0f fetches of %s records%n",
                consumer,
                b.batches(),
                OrdersTable.format(b.recordsPerBatch()),
                OrdersTable.format(b.millisPerBatch()),
                OrdersTable.format(b.busyShare(window)),
                b.fetches(),
                OrdersTable.format(b.recordsPerFetch())));
        out.printf(
                Locale.ROOT,
                "  %,d accepted orders not processed by all three; drained %s; every group kept up: %s; mails %s%n",
                missing,
                Double.isNaN(drainMillis)
                        ? "NOT within the drain period"
                        : OrdersTable.format(drainMillis) + " ms after the window",
                keptUp() ? "yes" : "NO",
                mails);
        StringBuilder cpu = new StringBuilder("  CPU in the window (cores of "
                + Runtime.getRuntime().availableProcessors() + ") and per accepted order (ms):");
        cores.forEach((name, c) -> cpu.append(String.format(
                Locale.ROOT,
                " %s %s / %s,",
                name,
                OrdersTable.format(c),
                OrdersTable.format(cpuMillisPerOrder.get(name)))));
        out.println(cpu.substring(0, cpu.length() - 1));
        out.printf(
                Locale.ROOT,
                "  broker RSS %s MiB at the end of the window, peak %s MiB; sustained %,d/s: %s%n",
                OrdersTable.format(brokerMemory.endOfWindowMiB()),
                OrdersTable.format(brokerMemory.peakMiB()),
                offeredPerSecond,
                sustained() ? "yes" : "NO");
    }
}
