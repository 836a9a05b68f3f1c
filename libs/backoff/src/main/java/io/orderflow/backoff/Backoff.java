package io.orderflow.backoff;

import java.time.Duration;

/**
 * Exponential back-off for a loop that retries until it succeeds or is stopped: after each failure it waits
 * {@link #failed()}, which starts at {@code min} and doubles up to {@code max}; a success ({@link #succeeded()})
 * starts it at {@code min} again. No jitter: each loop is one thread against one dependency (PostgreSQL, the broker,
 * an SMTP server), and the delays are short enough that instances retrying in step do no harm.
 *
 * <p>Not thread-safe: one per loop.
 */
public final class Backoff {
    private final Duration min;
    private final Duration max;
    private Duration next;

    public Backoff(Duration min, Duration max) {
        if (min.isNegative() || min.isZero() || max.compareTo(min) < 0) {
            throw new IllegalArgumentException("back-off needs 0 < min <= max, was min " + min + ", max " + max);
        }
        this.min = min;
        this.max = max;
        this.next = min;
    }

    /** The delay to wait after a failure; the one after the next failure is twice as long, at most {@code max}. */
    public Duration failed() {
        Duration delay = next;
        Duration doubled = next.multipliedBy(2);
        next = doubled.compareTo(max) > 0 ? max : doubled;
        return delay;
    }

    /** The loop got through: the next failure waits {@code min} again. */
    public void succeeded() {
        next = min;
    }

    /** What the next failure will wait, without counting a failure. */
    public Duration next() {
        return next;
    }

    /** Sleeps for {@link #failed()}: the wait after a failure, not synchronisation. */
    public void pauseAfterFailure() throws InterruptedException {
        Thread.sleep(failed().toMillis());
    }

    @Override
    public String toString() {
        return "Backoff[min=" + min + ", max=" + max + ", next=" + next + "]";
    }
}
