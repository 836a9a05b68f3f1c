package io.orderflow.orders.service;

import io.orderflow.orders.config.OrderServiceConfig;
import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.runtime.StartupEvent;
import io.quarkus.scheduler.Scheduled;
import io.quarkus.scheduler.Scheduler;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import org.jboss.logging.Logger;

/**
 * Deletes idempotency keys past their retention, every {@code orderflow.order-service.idempotency.purge-every}, so that the table
 * does not grow without bound. Batches of {@link #BATCH} rows, each in its own short transaction, so a large backlog
 * never holds many row locks or one long transaction (which would also hold back the outbox relay's horizon).
 *
 * <p>Correctness does not depend on it: a key past its retention already counts as unknown
 * ({@link IdempotencyKeys#find}). Runs skip while one is still running. Thread-safe (stateless).
 */
@ApplicationScoped
public class IdempotencyKeyPurge {
    static final int BATCH = 10_000;
    private static final Logger log = Logger.getLogger(IdempotencyKeyPurge.class);

    private final IdempotencyKeys keys;
    private final Clock clock;
    private final Duration every;
    private final Scheduler scheduler;

    IdempotencyKeyPurge(IdempotencyKeys keys, Clock clock, OrderServiceConfig config, Scheduler scheduler) {
        this.keys = keys;
        this.clock = clock;
        this.every = config.idempotency().purgeEvery();
        this.scheduler = scheduler;
    }

    /** Schedules the purge every {@code purge-every}, unless that is zero. */
    void schedule(@Observes StartupEvent started) {
        if (every.isZero() || every.isNegative()) {
            return;
        }
        scheduler
                .newJob("idempotency-key-purge")
                .setInterval(every.toString())
                .setConcurrentExecution(Scheduled.ConcurrentExecution.SKIP)
                .setTask(execution -> purge())
                .schedule();
    }

    /** Deletes every key past its retention now; returns how many. */
    public long purge() {
        Instant now = clock.instant();
        long total = 0;
        int deleted;
        do {
            deleted = QuarkusTransaction.requiringNew().call(() -> keys.purgeExpired(now, BATCH));
            total += deleted;
        } while (deleted == BATCH);
        if (total > 0) {
            log.infof("Deleted %d idempotency keys past their retention", total);
        }
        return total;
    }
}
