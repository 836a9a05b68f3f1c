package io.orderflow.ops.load;

import java.util.OptionalDouble;
import java.util.stream.DoubleStream;

/**
 * Reads one value out of a Prometheus text exposition ({@code /q/metrics}): the first sample of a metric whose label
 * set contains a given label, e.g. {@code outbox_relay_commit_to_ack_seconds{quantile="0.99"}}. Enough for the two
 * or three figures the benchmark quotes from the services themselves; not a general parser. Stateless.
 */
public final class PrometheusText {
    private PrometheusText() {}

    /** The value of {@code metric} with {@code label} (e.g. {@code quantile="0.99"}, or "" for any). */
    public static OptionalDouble value(String exposition, String metric, String label) {
        return samples(exposition, metric, label).findFirst();
    }

    /**
     * The sum of every sample of {@code metric} with {@code label}, empty if there is none: a Kafka client's total
     * over its topics, e.g., as Micrometer keeps only the per-topic samples of a metric once there are any.
     */
    public static OptionalDouble sum(String exposition, String metric, String label) {
        return samples(exposition, metric, label).reduce(Double::sum);
    }

    private static DoubleStream samples(String exposition, String metric, String label) {
        DoubleStream.Builder found = DoubleStream.builder();
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
            if (!labels.contains(label)) {
                continue;
            }
            String[] parts = rest.trim().split("\\s+");
            try {
                found.add(Double.parseDouble(parts[0]));
            } catch (NumberFormatException e) {
                // not a number: not a sample this reader can use
            }
        }
        return found.build();
    }
}
