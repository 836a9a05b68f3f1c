package io.orderflow.ops.bench.kafkaperf;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The summary line ProducerPerformance (kafka-producer-perf-test) prints at the end, e.g.
 *
 * <pre>
 * 200000 records sent, 39729.837108 records/sec (38.80 MB/sec), 621.96 ms avg latency, 1026.00 ms max latency,
 *     588 ms 50th, 908 ms 95th, 968 ms 99th, 998 ms 99.9th.
 * </pre>
 *
 * (one line). "MB" is the tool's: 2^20 bytes. Latencies are per record, from {@code send()} to its
 * acknowledgement, so at full throttle they are mostly time spent queued in the producer.
 */
record ProducerPerfResult(
        long records, double recordsPerSecond, double mbPerSecond, double avgLatencyMs, double p99LatencyMs) {

    private static final Pattern SUMMARY = Pattern.compile(
            "(\\d+) records sent, ([\\d.]+) records/sec \\(([\\d.]+) MB/sec\\), ([\\d.]+) ms avg latency, [\\d.]+ ms max"
                    + " latency, \\d+ ms 50th, \\d+ ms 95th, (\\d+) ms 99th");

    /** The summary of {@code stdout}: its last line that has percentiles (progress lines have none). */
    static Optional<ProducerPerfResult> parse(String stdout) {
        ProducerPerfResult last = null;
        for (String line : stdout.lines().toList()) {
            Matcher m = SUMMARY.matcher(line);
            if (m.find()) {
                last = new ProducerPerfResult(
                        Long.parseLong(m.group(1)),
                        Double.parseDouble(m.group(2)),
                        Double.parseDouble(m.group(3)),
                        Double.parseDouble(m.group(4)),
                        Double.parseDouble(m.group(5)));
            }
        }
        return Optional.ofNullable(last);
    }
}
