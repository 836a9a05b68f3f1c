package io.orderflow.notification;

import java.util.Optional;

/**
 * Where an event stands in its order's lifecycle (order-service's {@code OrderTransition}: CREATED, then CONFIRMED, PAID
 * and SHIPPED; or REJECTED from CREATED; or CANCELLED from CREATED, CONFIRMED or PAID), which is the order in which one
 * order's mails reach the customer, whatever order the events arrived in. The confirmation comes first because
 * everything else depends on it: it tells the customer what they ordered, and its event is the only one that names the
 * customer, so a later mail cannot even be addressed before it. SHIPPED, CANCELLED and REJECTED each end an order and
 * never two of them happen; the later numbers are put after the earlier so that even an impossible history has one
 * order.
 *
 * <p>The number is stored with each mail ({@code notifications.lifecycle_step}, migration V2), so it is never
 * reassigned; a new step gets the next free number, which is why REJECTED, added last, is 5 although it can only follow
 * CREATED. {@code OrderConfirmed} has no step: it sends no mail (the confirmation mail is the customer's receipt), so no
 * row would ever carry its number.
 */
enum LifecycleStep {
    CREATED("OrderCreated", 1),
    PAID("OrderPaid", 2),
    SHIPPED("OrderShipped", 3),
    CANCELLED("OrderCancelled", 4),
    REJECTED("OrderRejected", 5);

    private final String eventType;
    private final short number;

    LifecycleStep(String eventType, int number) {
        this.eventType = eventType;
        this.number = (short) number;
    }

    /** The step of an event of {@code eventType}; empty for an event that is no step of an order's lifecycle. */
    static Optional<LifecycleStep> of(String eventType) {
        for (LifecycleStep step : values()) {
            if (step.eventType.equals(eventType)) {
                return Optional.of(step);
            }
        }
        return Optional.empty();
    }

    String eventType() {
        return eventType;
    }

    /** The stored number: higher is later in the lifecycle. */
    short number() {
        return number;
    }
}
