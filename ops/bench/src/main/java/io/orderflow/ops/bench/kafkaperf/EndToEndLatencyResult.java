package io.orderflow.ops.bench.kafkaperf;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What EndToEndLatency (kafka-e2e-latency) prints at the end:
 *
 * <pre>
 * Avg latency: 3.7279 ms
 * Percentiles: 50th = 1, 99th = 23, 99.9th = 101
 * </pre>
 *
 * Each sample is one message: {@code send(...).get()} with the producer's acks, then {@code poll()} until the
 * consumer (assigned every partition, fetch.max.wait.ms=0) returns it. The tool truncates each sample to whole
 * milliseconds before taking percentiles, so p50 and p99 are integers; the average is exact.
 */
record EndToEndLatencyResult(double avgMs, double p50Ms, double p99Ms, double p999Ms) {

    private static final Pattern AVERAGE = Pattern.compile("Avg latency: ([\\d.]+) ms");
    private static final Pattern PERCENTILES =
            Pattern.compile("Percentiles: 50th = (\\d+), 99th = (\\d+), 99\\.9th = (\\d+)");

    static Optional<EndToEndLatencyResult> parse(String stdout) {
        Matcher average = AVERAGE.matcher(stdout);
        Matcher percentiles = PERCENTILES.matcher(stdout);
        if (!average.find() || !percentiles.find()) {
            return Optional.empty();
        }
        return Optional.of(new EndToEndLatencyResult(
                Double.parseDouble(average.group(1)),
                Double.parseDouble(percentiles.group(1)),
                Double.parseDouble(percentiles.group(2)),
                Double.parseDouble(percentiles.group(3))));
    }
}
