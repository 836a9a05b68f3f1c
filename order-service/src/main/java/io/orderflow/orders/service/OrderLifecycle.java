package io.orderflow.orders.service;

import io.orderflow.orders.domain.ConcurrentOrderChangeException;
import io.orderflow.orders.domain.IllegalTransitionException;
import io.orderflow.orders.domain.Order;
import io.orderflow.orders.domain.OrderNotFoundException;
import io.orderflow.orders.domain.OrderTransition;
import io.orderflow.orders.outbox.OrderLocks;
import io.orderflow.orders.outbox.OutboxWriter;
import io.orderflow.orders.persistence.OrderRow;
import io.orderflow.outbox.HeldAggregateLocks;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.persistence.OptimisticLockException;
import jakarta.transaction.Transactional;
import java.time.Clock;
import java.time.Instant;
import java.util.UUID;
import java.util.function.Consumer;

/**
 * Reads orders and moves them through their lifecycle ({@link OrderTransition}): pay, ship, cancel. Inventory's answer
 * (confirm, reject) is the saga's, applied by {@code InventoryAnswers} in its consumer's transaction under the same
 * rule.
 *
 * <p>Every transition is one transaction following the outbox rule of {@link OutboxWriter}: take the order's advisory
 * lock (first statement), read the order, check the transition, write the order at version + 1 (guarded by its
 * previous version, see {@link OrderRow}) and append exactly one event. A refused transition
 * ({@link IllegalTransitionException}) or an unknown order ({@link OrderNotFoundException}) writes nothing.
 * Thread-safe (stateless).
 */
@ApplicationScoped
public class OrderLifecycle {

    private final OrderLocks locks;
    private final OutboxWriter outbox;
    private final Clock clock;

    OrderLifecycle(OrderLocks locks, OutboxWriter outbox, Clock clock) {
        this.locks = locks;
        this.outbox = outbox;
        this.clock = clock;
    }

    @Transactional(Transactional.TxType.SUPPORTS)
    public Order get(UUID orderId) {
        return OrderRow.<OrderRow>findByIdOptional(orderId)
                .orElseThrow(() -> new OrderNotFoundException(orderId))
                .toOrder();
    }

    /**
     * CONFIRMED -> PAID (an order is paid once inventory reserved it); records OrderPaid for the order's total.
     * {@code paymentReference} may be null.
     */
    @Transactional
    public Order pay(UUID orderId, String paymentReference, String traceparent) {
        return change(orderId, OrderTransition.PAY, traceparent, row -> row.paymentReference = paymentReference);
    }

    /** PAID -> SHIPPED; records OrderShipped. {@code carrier} and {@code trackingNumber} may be null. */
    @Transactional
    public Order ship(UUID orderId, String carrier, String trackingNumber, String traceparent) {
        return change(orderId, OrderTransition.SHIP, traceparent, row -> {
            row.carrier = carrier;
            row.trackingNumber = trackingNumber;
        });
    }

    /** CREATED, CONFIRMED or PAID -> CANCELLED; records OrderCancelled with {@code reason} (required). */
    @Transactional
    public Order cancel(UUID orderId, String reason, String traceparent) {
        return change(orderId, OrderTransition.CANCEL, traceparent, row -> row.cancellationReason = reason);
    }

    /**
     * The shape of every transition. {@code details} sets the transition's own columns on the row, after the
     * transition was accepted (so a refused one changes nothing); the event is built from the changed order.
     */
    private Order change(UUID orderId, OrderTransition transition, String traceparent, Consumer<OrderRow> details) {
        HeldAggregateLocks lock = locks.acquire(orderId);
        OrderRow row =
                OrderRow.<OrderRow>findByIdOptional(orderId).orElseThrow(() -> new OrderNotFoundException(orderId));
        Instant now = clock.instant();
        row.advance(transition, now);
        details.accept(row);
        try {
            OrderRow.flush();
        } catch (OptimisticLockException e) {
            throw new ConcurrentOrderChangeException(orderId, e);
        }
        Order changed = row.toOrder();
        outbox.append(lock, changed.version(), OrderEvents.of(transition, changed), now, traceparent);
        return changed;
    }
}
