package io.orderflow.ops.bench.orders;

import java.util.OptionalDouble;

/**
 * Reads one value out of a Prometheus text exposition ({@code /q/metrics}): the first sample of a metric whose label
 * set contains a given label, e.g. {@code outbox_relay_commit_to_ack_seconds{quantile="0.99"}}. Enough for the two
 * or three figures the benchmark quotes from the services themselves; not a general parser. Stateless.
 */
public final class PrometheusText {
    private PrometheusText() {}

    /** The value of {@code metric} with {@code label} (e.g. {@code quantile="0.99"}, or "" for any). */
    public static OptionalDouble value(String exposition, String metric, String label) {
        return value(exposition, metric, label, null);
    }

    /**
     * As {@link #value(String, String, String)}, skipping samples that also carry the label named {@code without}: a
     * Kafka client's total, e.g., beside its per-topic samples of the same metric.
     */
    public static OptionalDouble value(String exposition, String metric, String label, String without) {
        for (String line : exposition.split("\n")) {
            if (line.startsWith("#") || !line.startsWith(metric)) {
                continue;
            }
            String rest = line.substring(metric.length());
            String labels = "";
            if (rest.startsWith("{")) {
                int end = rest.indexOf('}');
                if (end < 0) {
                    continue;
                }
                labels = rest.substring(1, end);
                rest = rest.substring(end + 1);
            } else if (!rest.startsWith(" ")) {
                continue; // a longer metric name with the same prefix
            }
            if (!labels.contains(label) || (without != null && hasLabel(labels, without))) {
                continue;
            }
            String[] parts = rest.trim().split("\\s+");
            try {
                return OptionalDouble.of(Double.parseDouble(parts[0]));
            } catch (NumberFormatException e) {
                return OptionalDouble.empty();
            }
        }
        return OptionalDouble.empty();
    }

    private static boolean hasLabel(String labels, String name) {
        return labels.startsWith(name + "=") || labels.contains("," + name + "=");
    }
}
