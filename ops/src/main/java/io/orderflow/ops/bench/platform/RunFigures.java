package io.orderflow.ops.bench.platform;

import io.orderflow.lag.LagStatus;
import io.orderflow.ops.bench.orders.LatencySamples;
import io.orderflow.ops.bench.orders.OpenLoopLoad;
import io.orderflow.ops.bench.orders.OrdersTable;
import java.io.PrintStream;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * One run's figures and their printing; {@link #printMedians} summarises several runs.
 *
 * @param acceptedPerSecond 201s for requests due in the window, per second of it
 * @param lag per consumer group: its lag in the window
 * @param processed per consumer service and for all three ({@code "all"}): accepted -> processed, window orders
 * @param missing accepted orders of the window that not every service processed within the drain
 * @param drainMillis from the end of the window until every service had processed every order, NaN if never
 * @param cores CPU cores each process used in the window
 * @param mails the notification service's mails by status after the drain
 */
record RunFigures(
        double acceptedPerSecond,
        double httpP50,
        double httpP99,
        Map<String, GroupLag> lag,
        Map<String, LatencySamples.Summary> processed,
        long missing,
        double drainMillis,
        Map<String, Double> cores,
        Map<String, Long> mails) {

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
            OpenLoopLoad.Result loaded,
            Duration window,
            List<GroupLagSampler.Sample> lagReadings,
            Map<String, LatencySamples> latencies,
            double drainMillis,
            Map<String, Double> cores,
            Map<String, Long> mails) {
        Map<String, GroupLag> lag = new LinkedHashMap<>();
        PlatformBenchmark.CONSUMERS.forEach(group -> lag.put(group, GroupLag.of(lagReadings, group)));
        Map<String, LatencySamples.Summary> processed = new LinkedHashMap<>();
        latencies.forEach((name, samples) -> processed.put(name, samples.summary()));
        return new RunFigures(
                loaded.accepted() / (window.toNanos() / 1e9),
                loaded.latency().percentileMillis(50),
                loaded.latency().percentileMillis(99),
                lag,
                processed,
                loaded.accepted() - processed.get("all").count(),
                drainMillis,
                cores,
                mails);
    }

    /** Whether every group kept up: its lag grew by less than 2% of the accepted rate, and everything drained. */
    boolean keptUp() {
        return !Double.isNaN(drainMillis)
                && lag.values().stream().allMatch(l -> l.growthPerSecond() < 0.02 * acceptedPerSecond);
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
                "  accepted -> processed %-21s p50 %s, p99 %s, max %s ms (%,d orders)%n",
                name.equals("all") ? "by all three" : name,
                OrdersTable.format(s.percentileMillis(50)),
                OrdersTable.format(s.percentileMillis(99)),
                OrdersTable.format(s.maxMillis()),
                s.count()));
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
        double seconds = window.toNanos() / 1e9;
        cores.forEach((name, c) -> cpu.append(String.format(
                Locale.ROOT,
                " %s %s / %s,",
                name,
                OrdersTable.format(c),
                OrdersTable.format(c * seconds * 1000 / Math.max(1, loaded.accepted())))));
        out.println(cpu.substring(0, cpu.length() - 1));
    }

    static void printMedians(List<RunFigures> runs, PrintStream out) {
        out.println("| figure | median | runs |");
        out.println("|---|---|---|");
        row(out, runs, "accepted orders/s", RunFigures::acceptedPerSecond);
        row(out, runs, "HTTP p99 (ms)", RunFigures::httpP99);
        for (String group : PlatformBenchmark.CONSUMERS) {
            row(out, runs, group + " lag max (records)", r -> r.lag().get(group).max());
            row(
                    out,
                    runs,
                    group + " lag growth (records/s)",
                    r -> r.lag().get(group).growthPerSecond());
        }
        for (String name : List.of("inventory-service", "notification-service", "analytics-service", "all")) {
            String label = name.equals("all") ? "all three" : name;
            row(
                    out,
                    runs,
                    "accepted -> processed by " + label + " p50 (ms)",
                    r -> r.processed().get(name).percentileMillis(50));
            row(
                    out,
                    runs,
                    "accepted -> processed by " + label + " p99 (ms)",
                    r -> r.processed().get(name).percentileMillis(99));
        }
        row(
                out,
                runs,
                "accepted -> processed by all three max (ms)",
                r -> r.processed().get("all").maxMillis());
        row(out, runs, "orders not processed by all three", r -> r.missing());
        row(out, runs, "drain after the window (ms)", RunFigures::drainMillis);
        for (String process : runs.getFirst().cores().keySet()) {
            row(out, runs, "CPU cores: " + process, r -> r.cores().get(process));
        }
        out.println("| every group kept up | "
                + (runs.stream().allMatch(RunFigures::keptUp) ? "yes" : "**no**") + " | "
                + runs.stream().map(r -> r.keptUp() ? "yes" : "no").toList() + " |");
    }

    private static void row(PrintStream out, List<RunFigures> runs, String name, ToDoubleFunction<RunFigures> figure) {
        List<Double> values =
                runs.stream().map(r -> figure.applyAsDouble(r)).sorted().toList();
        int middle = values.size() / 2;
        double median = values.size() % 2 == 1 ? values.get(middle) : (values.get(middle - 1) + values.get(middle)) / 2;
        out.printf(
                "| %s | %s | %s |%n",
                name,
                OrdersTable.format(median),
                runs.stream()
                        .map(r -> OrdersTable.format(figure.applyAsDouble(r)))
                        .toList());
    }
}
