package io.orderflow.ops.load;

import java.time.Instant;

/**
 * The wall clock in microseconds since the epoch, the unit every latency of this benchmark is taken in. Wall time,
 * not {@link System#nanoTime()}, because one end of the commit-to-readable latency is a timestamp written by another
 * process (the order service's {@code occurredAt}); both processes read the same kernel clock on this machine.
 */
public final class WallClock {
    private WallClock() {}

    public static long micros() {
        return micros(Instant.now());
    }

    public static long micros(Instant instant) {
        return instant.getEpochSecond() * 1_000_000L + instant.getNano() / 1_000;
    }
}
