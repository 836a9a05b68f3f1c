package io.orderflow.ops.bench.kafkaperf;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Collects each broker's figure for each {@link Measure}, one per run, and prints the medians side by side with
 * the ratio ours / Kafka and the target. Rows appear in the order their measures were first recorded.
 * Failed steps are collected too and printed under the table, so a missing figure always says why.
 *
 * <p>Not thread-safe.
 */
final class ResultTable {
    private final String kafka;
    private final String ours;
    private final int runs;
    private final Map<Measure, Map<String, List<Double>>> values = new LinkedHashMap<>();
    private final List<String> failures = new ArrayList<>();

    /** {@code kafka} and {@code ours} are the brokers' names as recorded; {@code runs} how many were planned. */
    ResultTable(String kafka, String ours, int runs) {
        this.kafka = kafka;
        this.ours = ours;
        this.runs = runs;
    }

    void record(Measure measure, String broker, double value) {
        values.computeIfAbsent(measure, m -> new LinkedHashMap<>())
                .computeIfAbsent(broker, b -> new ArrayList<>())
                .add(value);
    }

    /** Declares a row without a value yet, so that a measure nobody could take still gets its row. */
    void expect(Measure measure) {
        values.computeIfAbsent(measure, m -> new LinkedHashMap<>());
    }

    void fail(String broker, int run, String what) {
        failures.add(broker + ", run " + run + ": " + what);
    }

    List<String> failures() {
        return List.copyOf(failures);
    }

    void print(PrintStream out) {
        out.printf("| measure | %s | %s | ours / Kafka | target | met |%n", kafka, ours);
        out.println("|---|---|---|---|---|---|");
        for (Map.Entry<Measure, Map<String, List<Double>>> row : values.entrySet()) {
            Measure measure = row.getKey();
            List<Double> k = row.getValue().getOrDefault(kafka, List.of());
            List<Double> o = row.getValue().getOrDefault(ours, List.of());
            String ratio = "";
            String met = "";
            if (!k.isEmpty() && !o.isEmpty()) {
                double km = median(k);
                double om = median(o);
                ratio = km == 0 ? "" : String.format(Locale.ROOT, "%.2f", om / km);
                if (!(measure.target() instanceof Measure.None)) {
                    met = measure.target().met(om, km) ? "yes" : "**no**";
                }
            } else if (!o.isEmpty() && measure.target() instanceof Measure.AtMost) {
                met = measure.target().met(median(o), Double.NaN) ? "yes" : "**no**";
            }
            out.printf(
                    "| %s (%s) | %s | %s | %s | %s | %s |%n",
                    measure.name(),
                    measure.unit(),
                    cell(k),
                    cell(o),
                    ratio,
                    measure.target().describe(),
                    met);
        }
        if (!failures.isEmpty()) {
            out.println();
            out.println("Failed steps (their figures are missing above):");
            failures.forEach(f -> out.println("- " + f));
        }
    }

    private String cell(List<Double> measured) {
        if (measured.isEmpty()) {
            return "n/a";
        }
        String median = format(median(measured));
        return measured.size() == runs ? median : median + " (" + measured.size() + " of " + runs + " runs)";
    }

    static String format(double value) {
        double magnitude = Math.abs(value);
        String pattern = magnitude >= 100 || value == Math.rint(value) ? "%,.0f" : magnitude >= 10 ? "%.1f" : "%.2f";
        return String.format(Locale.ROOT, pattern, value);
    }

    static double median(List<Double> values) {
        double[] sorted = values.stream().mapToDouble(Double::doubleValue).toArray();
        Arrays.sort(sorted);
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }
}
