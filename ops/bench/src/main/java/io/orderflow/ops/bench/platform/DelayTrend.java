package io.orderflow.ops.bench.platform;

import java.util.Arrays;
import java.util.Comparator;

/**
 * Whether a consumer kept up, read from the orders themselves: how its accepted -> processed delay changed over the
 * window. The window's orders are put in order of acceptance and cut in thirds; the figure is the median delay of the
 * last third minus that of the first, per second between the two thirds' median acceptance times.
 *
 * <p>A consumer that keeps up holds its delay (a growth about 0); one that falls behind by {@code g} records/s while
 * {@code r} orders/s are accepted adds about {@code g / r} seconds of delay every second ({@code g / (r - g)}
 * exactly), so "lag grows by less than 2% of the rate" is about "delay grows by less than 20 ms per second". The lag in records read from committed offsets says the
 * same in principle, but it saw-tooths with the consumers' 5 s commit interval, and over a one-minute window the slope
 * of that saw-tooth is as large as the 2% it would have to resolve; each order's {@code processed_at} has no such
 * step.
 *
 * @param growthMillisPerSecond milliseconds of delay gained per second of the window; NaN with fewer than
 *     {@link #MIN_ORDERS} orders
 * @param orders the orders it was read from
 */
record DelayTrend(double growthMillisPerSecond, int orders) {
    static final int MIN_ORDERS = 30;
    /** 2% of the rate, as delay: 20 ms per second. */
    static final double KEPT_UP_BELOW_MILLIS_PER_SECOND = 20;

    /**
     * @param acceptedAtMicros when each order was accepted
     * @param delayMicros the same orders' accepted -> processed delay, index for index
     */
    static DelayTrend of(long[] acceptedAtMicros, long[] delayMicros) {
        int n = acceptedAtMicros.length;
        if (n != delayMicros.length) {
            throw new IllegalArgumentException(n + " acceptance times for " + delayMicros.length + " delays");
        }
        if (n < MIN_ORDERS) {
            return new DelayTrend(Double.NaN, n);
        }
        Integer[] byAcceptance = new Integer[n];
        for (int i = 0; i < n; i++) {
            byAcceptance[i] = i;
        }
        Arrays.sort(byAcceptance, Comparator.comparingLong(i -> acceptedAtMicros[i]));
        int third = n / 3;
        double firstAt = median(acceptedAtMicros, byAcceptance, 0, third);
        double lastAt = median(acceptedAtMicros, byAcceptance, n - third, n);
        if (lastAt <= firstAt) {
            return new DelayTrend(Double.NaN, n);
        }
        double firstDelay = median(delayMicros, byAcceptance, 0, third);
        double lastDelay = median(delayMicros, byAcceptance, n - third, n);
        return new DelayTrend((lastDelay - firstDelay) / 1000.0 / ((lastAt - firstAt) / 1e6), n);
    }

    boolean keptUp() {
        return growthMillisPerSecond < KEPT_UP_BELOW_MILLIS_PER_SECOND;
    }

    /** The median of {@code values} at the indexes {@code order[from..to)}. */
    private static double median(long[] values, Integer[] order, int from, int to) {
        long[] slice = new long[to - from];
        for (int i = from; i < to; i++) {
            slice[i - from] = values[order[i]];
        }
        Arrays.sort(slice);
        int m = slice.length / 2;
        return slice.length % 2 == 1 ? slice[m] : (slice[m - 1] + slice[m]) / 2.0;
    }
}
