package io.orderflow.orders.domain;

import java.util.UUID;

/** A transition the lifecycle does not allow from the order's current status (HTTP 409). */
public final class IllegalTransitionException extends RuntimeException {

    private final UUID orderId;
    private final OrderStatus current;
    private final OrderTransition transition;

    public IllegalTransitionException(UUID orderId, OrderStatus current, OrderTransition transition) {
        super("cannot " + transition.verb() + " order " + orderId + ": it is " + current + ", and " + transition.verb()
                + " is only allowed from " + transition.allowedFrom());
        this.orderId = orderId;
        this.current = current;
        this.transition = transition;
    }

    public UUID orderId() {
        return orderId;
    }

    public OrderStatus current() {
        return current;
    }

    public OrderTransition transition() {
        return transition;
    }
}
