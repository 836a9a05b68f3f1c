package io.orderflow.orders.service;

import io.quarkus.narayana.jta.QuarkusTransaction;
import io.quarkus.scheduler.Scheduled;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Clock;
import java.time.Instant;
import org.jboss.logging.Logger;

/**
 * Deletes idempotency keys past their retention, every {@code order-service.idempotency.purge-every}, so that the table
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

    IdempotencyKeyPurge(IdempotencyKeys keys, Clock clock) {
        this.keys = keys;
        this.clock = clock;
    }

    @Scheduled(
            identity = "idempotency-key-purge",
            every = "${order-service.idempotency.purge-every}",
            concurrentExecution = Scheduled.ConcurrentExecution.SKIP)
    void scheduled() {
        purge();
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
