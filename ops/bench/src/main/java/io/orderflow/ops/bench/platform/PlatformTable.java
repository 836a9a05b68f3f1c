package io.orderflow.ops.bench.platform;

import io.orderflow.ops.bench.orders.OrdersTable;
import io.orderflow.process.ApacheKafkaLauncher;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.ToDoubleFunction;

/**
 * The end of {@code ops/bin/bench/platform}: per offered rate, each broker's median over its runs (with the range when
 * there was more than one) and the ratio ours / Kafka; then the highest rate each broker sustained in every run, and
 * the targets read against those figures. Failed measurements are listed, so a missing figure always says why.
 *
 * <p>Not thread-safe.
 */
final class PlatformTable {
    static final String OURS = "orderflow log-broker";
    static final String KAFKA = ApacheKafkaLauncher.NAME;
    private static final int TARGET_RATE = 2000;

    private record Row(String name, String unit, ToDoubleFunction<RunFigures> value) {}

    private final List<Integer> rates;
    private final List<String> brokers;
    private final int runs;
    private final List<RunFigures> results = new ArrayList<>();
    private final List<String> failures = new ArrayList<>();

    /**
     * @param rates the offered rates, lowest first
     * @param brokers the brokers measured ({@code ours}, {@code kafka})
     * @param runs measurements of each rate on each broker
     */
    PlatformTable(List<Integer> rates, List<String> brokers, int runs) {
        this.rates = List.copyOf(rates);
        this.brokers = List.copyOf(brokers);
        this.runs = runs;
    }

    void add(RunFigures figures) {
        results.add(figures);
    }

    List<String> failures() {
        return List.copyOf(failures);
    }

    void fail(String broker, int rate, int run, String what) {
        failures.add(String.format(Locale.ROOT, "%s at %,d/s, run %d: %s", name(broker), rate, run, what));
    }

    private static List<Row> rows() {
        List<Row> rows = new ArrayList<>();
        rows.add(new Row("accepted", "orders/s", RunFigures::acceptedPerSecond));
        rows.add(new Row("HTTP p99, from due time", "ms", RunFigures::httpP99));
        for (String group : PlatformBenchmark.CONSUMERS) {
            rows.add(new Row(
                    "lag growth, " + group, "records/s", r -> r.lag().get(group).growthPerSecond()));
        }
        for (String group : PlatformBenchmark.CONSUMERS) {
            rows.add(new Row(
                    "accepted -> processed delay growth, " + group,
                    "ms/s",
                    r -> r.delay().get(group).growthMillisPerSecond()));
        }
        rows.add(new Row(
                "lag max, largest group",
                "records",
                r -> r.lag().values().stream()
                        .filter(lag -> lag.readings() > 0)
                        .mapToDouble(RunFigures.GroupLag::max)
                        .max()
                        .orElse(Double.NaN)));
        rows.add(new Row("accepted -> processed by all three p50", "ms", r -> processed(r, "all", 50)));
        rows.add(new Row("accepted -> processed by all three p99", "ms", r -> processed(r, "all", 99)));
        rows.add(new Row(
                "accepted -> processed by all three max",
                "ms",
                r -> r.processed().get("all").maxMillis()));
        for (String consumer : PlatformBenchmark.CONSUMERS) {
            rows.add(new Row("accepted -> processed by " + consumer + " p99", "ms", r -> processed(r, consumer, 99)));
        }
        for (String stage : PlatformBenchmark.STAGES) {
            rows.add(new Row(stage + " p50", "ms", r -> r.stages().get(stage).percentileMillis(50)));
            rows.add(new Row(stage + " p99", "ms", r -> r.stages().get(stage).percentileMillis(99)));
        }
        for (String consumer : PlatformBenchmark.CONSUMERS) {
            rows.add(new Row(
                    "records per batch, " + consumer,
                    "records",
                    r -> r.batches().get(consumer).recordsPerBatch()));
            rows.add(new Row(
                    "time per batch, " + consumer,
                    "ms",
                    r -> r.batches().get(consumer).millisPerBatch()));
        }
        rows.add(new Row("orders not processed by all three", "orders", r -> r.missing()));
        rows.add(new Row("drained, after the window", "ms", RunFigures::drainMillis));
        for (String process : List.of(
                "order-service",
                "outbox-relay",
                "inventory-service",
                "notification-service",
                "analytics-service",
                "postgres",
                "broker",
                "driver",
                "everything else")) {
            rows.add(new Row(
                    "CPU per accepted order, " + process,
                    "ms",
                    r -> r.cpuMillisPerOrder().getOrDefault(process, Double.NaN)));
        }
        rows.add(new Row(
                "CPU per accepted order, whole machine",
                "ms",
                r -> r.cpuMillisPerOrder().getOrDefault("machine busy", Double.NaN)));
        rows.add(new Row(
                "broker RSS, end of the window", "MiB", r -> r.brokerMemory().endOfWindowMiB()));
        rows.add(new Row("broker RSS, peak", "MiB", r -> r.brokerMemory().peakMiB()));
        return rows;
    }

    private static double processed(RunFigures figures, String name, int percentile) {
        return figures.processed().get(name).percentileMillis(percentile);
    }

    void print(PrintStream out) {
        for (int rate : rates) {
            out.printf(Locale.ROOT, "Offered %,d orders/s%n%n", rate);
            out.printf("| measure | %s | %s | ours / Kafka |%n", KAFKA, OURS);
            out.println("|---|---|---|---|");
            for (Row row : rows()) {
                double[] kafka = values("kafka", rate, row.value());
                double[] ours = values("ours", rate, row.value());
                double km = OrdersTable.median(kafka);
                double om = OrdersTable.median(ours);
                String ratio = Double.isNaN(km) || Double.isNaN(om) || km == 0
                        ? ""
                        : String.format(Locale.ROOT, "%.2f", om / km);
                out.printf(
                        "| %s (%s) | %s | %s | %s |%n",
                        row.name(), row.unit(), OrdersTable.cell(kafka, runs), OrdersTable.cell(ours, runs), ratio);
            }
            out.printf(
                    "| sustained: every group kept up, >= 95%% accepted | %s | %s | |%n%n",
                    sustainedCell("kafka", rate), sustainedCell("ours", rate));
        }
        printTargets(out);
        if (!failures.isEmpty()) {
            out.println();
            out.println("Failed measurements (their figures are missing above):");
            failures.forEach(f -> out.println("- " + f));
        }
    }

    private void printTargets(PrintStream out) {
        out.println("Highest offered rate sustained in every run, and at every lower rate (every group kept up, >= 95%"
                + " accepted):");
        for (String broker : brokers) {
            out.println("- " + name(broker) + ": " + describe(broker));
        }
        out.println("Targets on this machine:");
        Optional<Integer> ours = highestSustained("ours");
        Optional<Integer> kafka = highestSustained("kafka");
        if (!brokers.contains("ours") || !brokers.contains("kafka")) {
            out.println("- ours against Kafka: not compared (one broker measured)");
        } else if (measured("ours").isEmpty() || measured("kafka").isEmpty()) {
            out.println("- ours against Kafka: not compared (every measurement of "
                    + name(measured("ours").isEmpty() ? "ours" : "kafka") + " failed)");
        } else {
            printComparison(out, ours, kafka);
        }
        if (brokers.contains("ours")) {
            out.printf(
                    Locale.ROOT,
                    "- %,d orders/s with all three consumers keeping up, on our broker: %s (%s; Kafka: %s)%n",
                    TARGET_RATE,
                    ours.orElse(0) >= TARGET_RATE ? "met" : "**not met**",
                    ours.map(r -> String.format(Locale.ROOT, "%,d/s sustained", r))
                            .orElse("no rate sustained"),
                    kafka.map(r -> String.format(Locale.ROOT, "%,d/s", r)).orElse("none"));
        }
    }

    private void printComparison(PrintStream out, Optional<Integer> ours, Optional<Integer> kafka) {
        if (ours.isEmpty() && kafka.isEmpty()) {
            out.println("- throughput, ours >= Kafka: not comparable (neither sustained the lowest rate, "
                    + String.format(Locale.ROOT, "%,d/s", rates.getFirst()) + ")");
        } else {
            boolean top = ours.equals(Optional.of(rates.getLast())) && kafka.equals(ours);
            out.printf(
                    Locale.ROOT,
                    "- throughput, ours >= Kafka: %s (%s against %s%s)%n",
                    ours.orElse(0) >= kafka.orElse(0) ? "met" : "**not met**",
                    ours.map(r -> String.format(Locale.ROOT, "%,d/s", r)).orElse("none"),
                    kafka.map(r -> String.format(Locale.ROOT, "%,d/s", r)).orElse("none"),
                    top ? "; both sustained the highest rate measured, so a higher one would tell them apart" : "");
        }
        Optional<Integer> both =
                ours.isEmpty() || kafka.isEmpty() ? Optional.empty() : Optional.of(Math.min(ours.get(), kafka.get()));
        if (both.isPresent()) {
            int rate = both.get();
            double k = OrdersTable.median(values("kafka", rate, r -> processed(r, "all", 99)));
            double o = OrdersTable.median(values("ours", rate, r -> processed(r, "all", 99)));
            out.printf(
                    Locale.ROOT,
                    "- accepted -> processed by all three p99, ours <= Kafka at %,d/s (the highest rate both"
                            + " sustained): %s (%s ms against %s ms)%n",
                    rate,
                    o <= k ? "met" : "**not met**",
                    OrdersTable.format(o),
                    OrdersTable.format(k));
        } else {
            out.println("- accepted -> processed p99, ours <= Kafka: not comparable (no rate both brokers sustained)");
        }
    }

    private String describe(String broker) {
        Optional<Integer> rate = highestSustained(broker);
        String text;
        if (rate.isEmpty()) {
            text = "none of " + rates;
        } else {
            double accepted = OrdersTable.median(values(broker, rate.get(), RunFigures::acceptedPerSecond));
            text = String.format(Locale.ROOT, "%,d/s (median accepted %s/s)", rate.get(), OrdersTable.format(accepted));
        }
        List<Integer> above = rates.stream()
                .filter(r -> r > rate.orElse(0) && sustainedInEveryRun(broker, r))
                .toList();
        if (!above.isEmpty()) {
            text += "; also sustained " + above + " above a rate it did not: noise, measure with more --runs";
        }
        return text;
    }

    /**
     * The highest offered rate {@code broker} sustained in every run, with every lower rate sustained too; empty if it
     * did not sustain the lowest. A rate sustained above one that was not is noise, not capacity.
     */
    Optional<Integer> highestSustained(String broker) {
        Optional<Integer> highest = Optional.empty();
        for (int rate : rates) {
            if (!sustainedInEveryRun(broker, rate)) {
                break;
            }
            highest = Optional.of(rate);
        }
        return highest;
    }

    private boolean sustainedInEveryRun(String broker, int rate) {
        List<RunFigures> measured = measured(broker, rate);
        return measured.size() == runs && measured.stream().allMatch(RunFigures::sustained);
    }

    private String sustainedCell(String broker, int rate) {
        List<RunFigures> measured = measured(broker, rate);
        if (measured.isEmpty()) {
            return "n/a";
        }
        long sustained = measured.stream().filter(RunFigures::sustained).count();
        return sustained + " of " + runs + " runs";
    }

    private List<RunFigures> measured(String broker) {
        return results.stream().filter(r -> r.broker().equals(broker)).toList();
    }

    private List<RunFigures> measured(String broker, int rate) {
        return results.stream()
                .filter(r -> r.broker().equals(broker) && r.offeredPerSecond() == rate)
                .toList();
    }

    private double[] values(String broker, int rate, ToDoubleFunction<RunFigures> value) {
        return measured(broker, rate).stream()
                .mapToDouble(value)
                .filter(v -> !Double.isNaN(v))
                .toArray();
    }

    private static String name(String broker) {
        return broker.equals("ours") ? OURS : KAFKA;
    }
}
