package io.orderflow.orders.config;

import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import java.time.Clock;
import java.time.Duration;

/**
 * The one clock of the service, so that code reading the time takes it as a dependency instead of calling now().
 *
 * <p>It ticks in microseconds, PostgreSQL's timestamp precision: an instant the service answers with is then exactly
 * the one it stored, and a later read shows the same {@code createdAt} as the response that created the order.
 */
public class ClockProducer {

    @Produces
    @Singleton
    Clock clock() {
        return Clock.tick(Clock.systemUTC(), Duration.ofNanos(1_000));
    }
}
