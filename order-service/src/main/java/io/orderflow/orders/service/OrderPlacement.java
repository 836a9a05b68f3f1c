package io.orderflow.orders.service;

import io.orderflow.orders.domain.IdempotencyKeyReusedException;
import io.orderflow.orders.domain.NewOrder;
import io.orderflow.orders.domain.Order;
import io.orderflow.orders.outbox.HeldOrderLock;
import io.orderflow.orders.outbox.OrderLocks;
import io.orderflow.orders.outbox.OutboxWriter;
import io.orderflow.orders.persistence.IdempotencyKeyRow;
import io.orderflow.orders.persistence.OrderRow;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.transaction.Transactional;
import java.time.Clock;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;

/**
 * Creates orders, once per {@code Idempotency-Key}.
 *
 * <p>One transaction, in this order (the outbox rule of {@link OutboxWriter}): lock the new order's id; if the request
 * has a key, lock the key and look it up; if it was used before, replay (same request) or refuse (different request)
 * without writing anything; otherwise insert the order and its lines, the key, and the OrderCreated outbox row at
 * version 1. A failure anywhere rolls all of it back.
 *
 * <p><b>Replays</b> return the order the key created, as it is now (it may have been paid since), and the REST layer
 * answers them like the original: 201 with the same Location. Thread-safe (stateless).
 */
@ApplicationScoped
public class OrderPlacement {

    private final OrderLocks locks;
    private final IdempotencyKeys keys;
    private final OutboxWriter outbox;
    private final Clock clock;

    OrderPlacement(OrderLocks locks, IdempotencyKeys keys, OutboxWriter outbox, Clock clock) {
        this.locks = locks;
        this.keys = keys;
        this.outbox = outbox;
        this.clock = clock;
    }

    /**
     * Creates {@code order}, or returns the one {@code idempotencyKey} created before. {@code idempotencyKey} may be
     * empty (no idempotency), {@code traceparent} null.
     *
     * @throws IdempotencyKeyReusedException if the key was first used with a different request
     */
    @Transactional
    public PlacedOrder place(NewOrder order, Optional<String> idempotencyKey, String traceparent) {
        UUID orderId = UUID.randomUUID();
        HeldOrderLock lock = locks.acquire(orderId);
        Optional<String> fingerprint = idempotencyKey.map(key -> RequestFingerprint.of(order));
        Instant now = clock.instant();
        if (idempotencyKey.isPresent()) {
            keys.lock(idempotencyKey.get());
            Optional<IdempotencyKeyRow> earlier = keys.find(idempotencyKey.get(), now);
            if (earlier.isPresent()) {
                return replay(earlier.get(), fingerprint.get());
            }
        }
        OrderRow row = OrderRow.create(orderId, order, now);
        row.persist();
        idempotencyKey.ifPresent(key -> keys.record(key, fingerprint.get(), orderId, now));
        OrderRow.flush();
        Order created = row.toOrder();
        outbox.append(lock, created.version(), OrderEvents.created(created), now, traceparent);
        return new PlacedOrder(created, false);
    }

    private static PlacedOrder replay(IdempotencyKeyRow earlier, String fingerprint) {
        if (!earlier.requestHash.equals(fingerprint)) {
            throw new IdempotencyKeyReusedException(earlier.key, earlier.orderId);
        }
        OrderRow original = OrderRow.findById(earlier.orderId);
        return new PlacedOrder(original.toOrder(), true);
    }
}
