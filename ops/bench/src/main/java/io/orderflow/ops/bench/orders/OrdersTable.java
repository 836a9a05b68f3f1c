package io.orderflow.ops.bench.orders;

import io.orderflow.process.ApacheKafkaLauncher;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.DoublePredicate;
import java.util.function.ToDoubleFunction;

/**
 * The final table: per measure, each broker's median over its runs (with the range when there was more than one),
 * the ratio ours / Kafka, the target and whether each broker's median meets it. Failed starts are listed
 * under it, so a missing figure always says why.
 *
 * <p>Not thread-safe.
 */
public final class OrdersTable {
    static final String OURS = "orderflow log-broker";
    static final String KAFKA = ApacheKafkaLauncher.NAME;

    /** What the issue asks of a measure; {@code met} is judged on one broker's median. */
    record Target(String describe, DoublePredicate met) {
        static final Target NONE = new Target("", v -> true);
    }

    record Row(String name, String unit, ToDoubleFunction<RunResult> value, Target target) {}

    private final List<Row> rows;
    private final List<RunResult> results = new ArrayList<>();
    private final List<String> failures = new ArrayList<>();

    OrdersTable(List<Row> rows) {
        this.rows = List.copyOf(rows);
    }

    /** The rows of {@code ops/bin/bench/orders}; the backlog bound is one second of arrivals at {@code rate}. */
    static OrdersTable forRate(int rate) {
        Target zero = new Target("0", v -> v == 0);
        return new OrdersTable(List.of(
                new Row("offered", "orders/s", RunResult::offeredPerSecond, Target.NONE),
                new Row(
                        "accepted (201)",
                        "orders/s",
                        RunResult::acceptedPerSecond,
                        new Target(">= 2,000", v -> v >= 2000)),
                new Row("not accepted (errors, not sent)", "requests", RunResult::unsuccessful, Target.NONE),
                new Row("HTTP latency p50, from due time", "ms", RunResult::httpP50, Target.NONE),
                new Row("HTTP latency p99, from due time", "ms", RunResult::httpP99, Target.NONE),
                new Row("commit-to-readable p50 (from occurredAt)", "ms", RunResult::readableP50, Target.NONE),
                new Row(
                        "commit-to-readable p99 (from occurredAt)",
                        "ms",
                        RunResult::readableP99,
                        new Target("< 100", v -> v < 100)),
                new Row("commit-to-readable max (from occurredAt)", "ms", RunResult::readableMax, Target.NONE),
                new Row(
                        "commit-to-readable p50, lower bound (from the 201)",
                        "ms",
                        RunResult::readableLowerP50,
                        Target.NONE),
                new Row(
                        "commit-to-readable p99, lower bound (from the 201)",
                        "ms",
                        RunResult::readableLowerP99,
                        Target.NONE),
                new Row("accepted orders whose event never arrived", "orders", RunResult::missing, zero),
                new Row(
                        "outbox backlog, max of 1 s readings",
                        "rows",
                        RunResult::backlogMax,
                        new Target(String.format(Locale.ROOT, "<= %,d (1 s of orders)", rate), v -> v <= rate)),
                new Row("outbox backlog, mean of 1 s readings", "rows", RunResult::backlogMean, Target.NONE),
                new Row("oldest unpublished row, max", "ms", RunResult::oldestPendingMax, Target.NONE),
                new Row("outbox backlog after the drain", "rows", RunResult::backlogAfterDrain, zero),
                new Row("all events arrived, after the last request", "ms", RunResult::drainMillis, Target.NONE),
                cpu("order-service"),
                cpu("outbox-relay"),
                cpu("postgres"),
                cpu("broker"),
                cpu("driver"),
                cpu("everything else"),
                cpu("machine busy")));
    }

    private static Row cpu(String process) {
        return new Row("CPU, " + process, "cores", r -> r.cores(process), Target.NONE);
    }

    void add(RunResult result) {
        results.add(result);
    }

    void fail(String broker, int run, String what) {
        failures.add(broker + ", run " + run + ": " + what);
    }

    List<String> failures() {
        return List.copyOf(failures);
    }

    void print(PrintStream out, int runs) {
        out.printf("| measure | %s | %s | ours / Kafka | target | met: ours | met: Kafka |%n", KAFKA, OURS);
        out.println("|---|---|---|---|---|---|---|");
        for (Row row : rows) {
            double[] kafka = values(KAFKA, row);
            double[] ours = values(OURS, row);
            double km = median(kafka);
            double om = median(ours);
            String ratio =
                    Double.isNaN(km) || Double.isNaN(om) || km == 0 ? "" : String.format(Locale.ROOT, "%.2f", om / km);
            out.printf(
                    "| %s (%s) | %s | %s | %s | %s | %s | %s |%n",
                    row.name(),
                    row.unit(),
                    cell(kafka, runs),
                    cell(ours, runs),
                    ratio,
                    row.target().describe(),
                    met(row.target(), om),
                    met(row.target(), km));
        }
        if (!failures.isEmpty()) {
            out.println();
            out.println("Failed starts (their figures are missing above):");
            failures.forEach(f -> out.println("- " + f));
        }
    }

    private double[] values(String broker, Row row) {
        return results.stream()
                .filter(r -> r.broker().equals(broker))
                .mapToDouble(row.value())
                .filter(v -> !Double.isNaN(v))
                .toArray();
    }

    private static String met(Target target, double median) {
        if (target == Target.NONE || Double.isNaN(median)) {
            return "";
        }
        return target.met().test(median) ? "yes" : "**no**";
    }

    /** The median, with the range of the runs when they differ, and how many runs there were if some failed. */
    public static String cell(double[] values, int runs) {
        if (values.length == 0) {
            return "n/a";
        }
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        String text = format(median(sorted));
        if (sorted[0] != sorted[sorted.length - 1]) {
            text += " (" + format(sorted[0]) + "-" + format(sorted[sorted.length - 1]) + ")";
        }
        return sorted.length == runs ? text : text + " [" + sorted.length + " of " + runs + " runs]";
    }

    public static double median(double[] values) {
        if (values.length == 0) {
            return Double.NaN;
        }
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    /** Three significant figures or whole numbers with thousands separators: 0.42, 12.3, 1,999. */
    public static String format(double value) {
        if (Double.isNaN(value)) {
            return "n/a";
        }
        double magnitude = Math.abs(value);
        String pattern = magnitude >= 100 || value == Math.rint(value) ? "%,.0f" : magnitude >= 10 ? "%.1f" : "%.2f";
        return String.format(Locale.ROOT, pattern, value);
    }
}
