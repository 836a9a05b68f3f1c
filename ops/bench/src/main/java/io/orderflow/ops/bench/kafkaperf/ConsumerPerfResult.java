package io.orderflow.ops.bench.kafkaperf;

import java.util.List;
import java.util.Optional;

/**
 * The result line ConsumerPerformance (kafka-consumer-perf-test) prints under its header
 *
 * <pre>
 * start.time, end.time, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec, rebalance.time.ms,
 *     fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec
 * </pre>
 *
 * "MB" is 2^20 bytes. {@code MB.sec} divides by the whole run including joining the consumer group;
 * {@code fetch.MB.sec} leaves the join ({@code rebalance.time.ms}) out, so it is the consuming itself.
 */
record ConsumerPerfResult(
        long records,
        double mbPerSecond,
        double recordsPerSecond,
        double rebalanceMs,
        double fetchMbPerSecond,
        double fetchRecordsPerSecond) {

    private static final String HEADER_START = "start.time, end.time, data.consumed.in.MB";

    /** The line after the header in {@code stdout}, if the run got that far. */
    static Optional<ConsumerPerfResult> parse(String stdout) {
        List<String> lines = stdout.lines().toList();
        for (int i = 0; i < lines.size() - 1; i++) {
            if (lines.get(i).startsWith(HEADER_START)) {
                String[] f = lines.get(i + 1).split(",\\s*");
                if (f.length < 10) {
                    return Optional.empty();
                }
                return Optional.of(new ConsumerPerfResult(
                        Long.parseLong(f[4].trim()),
                        Double.parseDouble(f[3]),
                        Double.parseDouble(f[5]),
                        Double.parseDouble(f[6]),
                        Double.parseDouble(f[8]),
                        Double.parseDouble(f[9])));
            }
        }
        return Optional.empty();
    }

    /** ConsumerPerformance's own warning that it gave up (no records for --timeout) before reading them all. */
    static boolean exitedEarly(String stdout) {
        return stdout.contains("Exiting before consuming the expected number of records");
    }
}
