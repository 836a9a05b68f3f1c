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

    /** The consumers whose batches are shown: the three on {@code orders}, then order-service's saga consumer. */
    private static final List<String> BATCHES =
            List.of("inventory-service", "notification-service", "analytics-service", PlatformBenchmark.SAGA_GROUP);
    /** Every process whose CPU is shown, in the order of the order's way round the platform. */
    private static final List<String> CPU_PROCESSES = List.of(
            "order-service",
            "outbox-relay",
            "inventory-service",
            "inventory-outbox-relay",
            "notification-service",
            "analytics-service",
            "postgres",
            "broker",
            "smtp",
            "driver",
            "everything else");

    /**
     * A measure: one figure, or a few read together ("p50 / p99 / max"), each a median, with its ratio ours / Kafka
     * where a ratio means something ({@code compared}: not for a growth, which may be negative or about zero).
     */
    private record Row(String name, String unit, boolean compared, List<ToDoubleFunction<RunFigures>> values) {
        @SafeVarargs
        Row(String name, String unit, ToDoubleFunction<RunFigures>... values) {
            this(name, unit, true, List.of(values));
        }

        @SafeVarargs
        static Row uncompared(String name, String unit, ToDoubleFunction<RunFigures>... values) {
            return new Row(name, unit, false, List.of(values));
        }
    }

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

    /**
     * The table's measures, in reading order: what was sustained and how fast an order went round, whether each part
     * kept up and the backlogs, where the time went, then what it cost.
     */
    private static List<Row> rows() {
        List<Row> rows = new ArrayList<>();
        rows.add(new Row("accepted", "orders/s", RunFigures::acceptedPerSecond));
        rows.add(new Row("HTTP p99, from due time", "ms", RunFigures::httpP99));
        for (String key : List.of(OrderTimings.ALL, OrderTimings.CONFIRMED, OrderTimings.MAILED)) {
            rows.add(new Row(
                    RunFigures.latencyName(key) + ", p50 / p99 / max",
                    "ms",
                    r -> processed(r, key, 50),
                    r -> processed(r, key, 99),
                    r -> r.processed().get(key).maxMillis()));
        }
        for (OrderTimings.Part part : OrderTimings.PARTS) {
            rows.add(Row.uncompared(
                    "delay growth, " + part.delay(),
                    "ms/s; kept up below " + OrdersTable.format(DelayTrend.KEPT_UP_BELOW_MILLIS_PER_SECOND),
                    r -> r.delay().get(part.name()).growthMillisPerSecond()));
        }
        PlatformBenchmark.GROUPS.forEach((group, topic) -> rows.add(Row.uncompared(
                "lag growth, " + group + " on " + topic,
                "records/s",
                r -> r.lag().get(group).growthPerSecond())));
        rows.add(new Row(
                "lag max, largest group",
                "records",
                r -> r.lag().values().stream()
                        .filter(lag -> lag.readings() > 0)
                        .mapToDouble(RunFigures.Backlog::max)
                        .max()
                        .orElse(Double.NaN)));
        rows.add(Row.uncompared(
                "pending mails, growth / max (bounded below 2% of the rate a second)",
                "mails/s / mails",
                r -> r.mails().pending().growthPerSecond(),
                r -> pendingMax(r.mails().pending())));
        rows.add(new Row("mails accepted by SMTP", "mails/s", r -> r.mails().acceptedPerSecond()));
        for (String consumer : PlatformBenchmark.CONSUMERS) {
            rows.add(new Row(
                    RunFigures.latencyName(consumer) + ", p50 / p99",
                    "ms",
                    r -> processed(r, consumer, 50),
                    r -> processed(r, consumer, 99)));
        }
        for (String stage : OrderTimings.STAGES) {
            rows.add(new Row(
                    stage + ", p50 / p99",
                    "ms",
                    r -> r.stages().get(stage).percentileMillis(50),
                    r -> r.stages().get(stage).percentileMillis(99)));
        }
        for (String consumer : BATCHES) {
            rows.add(new Row(
                    consumer + " batches: records / time each",
                    "records / ms",
                    r -> r.batches().get(consumer).recordsPerBatch(),
                    r -> r.batches().get(consumer).millisPerBatch()));
        }
        rows.add(Row.uncompared(
                "orders not processed by all three / not confirmed / not mailed",
                "orders",
                r -> r.missing().notProcessedByAll(),
                r -> r.missing().notConfirmed(),
                r -> r.missing().notMailed()));
        rows.add(new Row("drained, after the window", "ms", RunFigures::drainMillis));
        for (String process : CPU_PROCESSES) {
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

    private static double pendingMax(RunFigures.Backlog pending) {
        return pending.readings() == 0 ? Double.NaN : pending.max();
    }

    /** Ours over Kafka's, or empty where either is missing or Kafka's is zero. */
    private static String ratio(double ours, double kafka) {
        return Double.isNaN(kafka) || Double.isNaN(ours) || kafka == 0
                ? ""
                : String.format(Locale.ROOT, "%.2f", ours / kafka);
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
                List<String> kafka = new ArrayList<>();
                List<String> ours = new ArrayList<>();
                List<String> ratios = new ArrayList<>();
                for (ToDoubleFunction<RunFigures> value : row.values()) {
                    double[] k = values("kafka", rate, value);
                    double[] o = values("ours", rate, value);
                    kafka.add(OrdersTable.cell(k, runs));
                    ours.add(OrdersTable.cell(o, runs));
                    ratios.add(row.compared() ? ratio(OrdersTable.median(o), OrdersTable.median(k)) : "");
                }
                out.printf(
                        "| %s (%s) | %s | %s | %s |%n",
                        row.name(),
                        row.unit(),
                        String.join(" / ", kafka),
                        String.join(" / ", ours),
                        ratios.stream().allMatch(String::isEmpty)
                                ? ""
                                : String.join(
                                        " / ",
                                        ratios.stream()
                                                .map(r -> r.isEmpty() ? "n/a" : r)
                                                .toList()));
            }
            out.printf(
                    "| sustained: everything kept up, >= 95%% accepted | %s | %s | |%n%n",
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
        out.println(
                "Highest offered rate sustained in every run, and at every lower rate (everything kept up: the three"
                        + " consumer groups, inventory's relay, the saga consumer and the mails; >= 95% accepted):");
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
                    "- %,d orders/s with everything keeping up, on our broker: %s (%s; Kafka: %s)%n",
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
            double k = OrdersTable.median(values("kafka", rate, r -> processed(r, OrderTimings.ALL, 99)));
            double o = OrdersTable.median(values("ours", rate, r -> processed(r, OrderTimings.ALL, 99)));
            out.printf(
                    Locale.ROOT,
                    "- accepted -> processed by all three p99, ours <= Kafka at %,d/s (the highest rate both"
                            + " sustained): %s (%s ms against %s ms)%n",
                    rate,
                    o <= k ? "met" : "**not met**",
                    OrdersTable.format(o),
                    OrdersTable.format(k));
            double kc = OrdersTable.median(values("kafka", rate, r -> processed(r, OrderTimings.CONFIRMED, 99)));
            double oc = OrdersTable.median(values("ours", rate, r -> processed(r, OrderTimings.CONFIRMED, 99)));
            out.printf(
                    Locale.ROOT,
                    "- accepted -> confirmed p99 at %,d/s, the saga's whole loop (no target): %s ms against %s ms%s%n",
                    rate,
                    OrdersTable.format(oc),
                    OrdersTable.format(kc),
                    Double.isNaN(oc) || Double.isNaN(kc) || kc == 0
                            ? ""
                            : String.format(Locale.ROOT, ", ours / Kafka %.2f", oc / kc));
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
