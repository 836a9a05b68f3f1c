package io.orderflow.broker.quota;

/**
 * How fast one client (or group of clients sharing a quota) uses something, measured the way Apache Kafka's quota
 * sensors measure it, so that a quota throttles here as it does there: the values recorded in the last {@code
 * samples} windows of {@code windowMs} each, divided by the time they span.
 *
 * <p>A window starts at the first record after the previous one is complete; a window whose last record is {@code
 * samples} windows old is reset. The time spanned is measured from the start of the oldest window, but never less
 * than {@code samples - 1} whole windows: a client that has just begun is measured as if it had been quiet before,
 * which is what lets it send up to {@code samples - 1} windows' worth of its quota at once (Kafka's well-known
 * initial burst). {@code QuotaRateTest} checks this against kafka-clients' own {@code Rate} for random sequences.
 *
 * <p>Thread-safety: every method is synchronised; one instance is shared by the connections of one quota entity.
 */
final class QuotaRate {
    private final int samples;
    private final long windowMs;
    /** One slot more than {@code samples}: the window that overlaps the start of the measured span. */
    private final long[] startMs;

    private final long[] lastRecordMs;
    private final double[] value;
    private int used;
    private int current;

    QuotaRate(int samples, long windowMs) {
        if (samples < 1 || windowMs < 1) {
            throw new IllegalArgumentException("samples and window must be positive: " + samples + ", " + windowMs);
        }
        this.samples = samples;
        this.windowMs = windowMs;
        this.startMs = new long[samples + 1];
        this.lastRecordMs = new long[samples + 1];
        this.value = new double[samples + 1];
    }

    /** Adds {@code amount} (negative to take back what was recorded) at {@code nowMs}. */
    synchronized void record(double amount, long nowMs) {
        int sample = currentSample(nowMs);
        if (nowMs - startMs[sample] >= windowMs) {
            current = (current + 1) % (samples + 1);
            if (current >= used) {
                used++;
            }
            reset(current, nowMs);
            sample = current;
        }
        value[sample] += amount;
        lastRecordMs[sample] = nowMs;
    }

    /** The rate at {@code nowMs}, per second. */
    synchronized double perSecond(long nowMs) {
        purge(nowMs);
        double total = 0;
        for (int i = 0; i < used; i++) {
            total += value[i];
        }
        return total / (spanMs(nowMs) / 1000.0);
    }

    /**
     * How long the client must wait, from {@code nowMs}, for the rate to come back down to {@code bound} if it
     * records nothing more: {@code (rate - bound) / bound} of the measured span, rounded; 0 within the bound.
     */
    synchronized long throttleMs(double bound, long nowMs) {
        double rate = perSecond(nowMs);
        if (rate <= bound) {
            return 0;
        }
        return Math.round((rate - bound) / bound * spanMs(nowMs));
    }

    /** Whether nothing was recorded for so long that the rate is zero and the instance may be dropped. */
    synchronized boolean idleSince(long nowMs) {
        long last = Long.MIN_VALUE;
        for (int i = 0; i < used; i++) {
            last = Math.max(last, lastRecordMs[i]);
        }
        return used == 0 || nowMs - last >= (long) samples * windowMs;
    }

    private int currentSample(long nowMs) {
        if (used == 0) {
            used = 1;
            current = 0;
            reset(0, nowMs);
        }
        return current;
    }

    private long spanMs(long nowMs) {
        purge(nowMs);
        long oldest = startMs[currentSample(nowMs)];
        for (int i = 0; i < used; i++) {
            oldest = Math.min(oldest, startMs[i]);
        }
        long span = nowMs - oldest;
        long fullWindows = span / windowMs;
        if (fullWindows < samples - 1) {
            span += (samples - 1 - fullWindows) * windowMs;
        }
        return Math.max(span, 1);
    }

    private void purge(long nowMs) {
        long expireAge = (long) samples * windowMs;
        for (int i = 0; i < used; i++) {
            if (nowMs - lastRecordMs[i] >= expireAge) {
                reset(i, nowMs);
            }
        }
    }

    private void reset(int sample, long nowMs) {
        startMs[sample] = nowMs;
        lastRecordMs[sample] = nowMs;
        value[sample] = 0;
    }
}
