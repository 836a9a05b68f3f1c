package io.orderflow.hostileframes;

import java.util.ArrayList;
import java.util.List;

/**
 * Every probe of a run: how many passed and failed, the latency of those the broker answered (percentiles over
 * them; a probe that got no answer has no latency, only a failure), the first failures with the frame count at which
 * each was taken, and how many failed in a row lately (the run gives up after too many). Thread-safe.
 */
final class ProbeLatencies {
    private static final int FAILURES_KEPT = 5;

    /** What the result block prints. */
    record Summary(
            long ok,
            long failed,
            long firstFailureAtFrame,
            List<String> firstFailures,
            double p50Millis,
            double p99Millis,
            double maxMillis) {}

    private final List<Long> answeredNanos = new ArrayList<>();
    private final List<String> firstFailures = new ArrayList<>();
    private long ok;
    private long failed;
    private long firstFailureAtFrame = -1;
    private int failedInARow;

    synchronized void record(LivenessProbe.Outcome outcome) {
        if (outcome.answered()) {
            answeredNanos.add(outcome.nanos());
        }
        if (outcome.ok()) {
            ok++;
            failedInARow = 0;
            return;
        }
        failed++;
        failedInARow++;
        if (firstFailureAtFrame < 0) {
            firstFailureAtFrame = outcome.atFrame();
        }
        if (firstFailures.size() < FAILURES_KEPT) {
            firstFailures.add("at frame " + outcome.atFrame() + ": " + outcome.failure());
        }
    }

    synchronized int failedInARow() {
        return failedInARow;
    }

    synchronized Summary summary() {
        long[] sorted =
                answeredNanos.stream().mapToLong(Long::longValue).sorted().toArray();
        return new Summary(
                ok,
                failed,
                firstFailureAtFrame,
                List.copyOf(firstFailures),
                percentile(sorted, 0.50),
                percentile(sorted, 0.99),
                sorted.length == 0 ? Double.NaN : sorted[sorted.length - 1] / 1e6);
    }

    /** The nearest-rank percentile, in milliseconds; NaN when nothing was answered. */
    static double percentile(long[] sortedNanos, double quantile) {
        if (sortedNanos.length == 0) {
            return Double.NaN;
        }
        int rank = (int) Math.ceil(quantile * sortedNanos.length);
        return sortedNanos[Math.max(0, Math.min(sortedNanos.length - 1, rank - 1))] / 1e6;
    }
}
