package io.orderflow.orders.domain;

/**
 * Where an order is in its lifecycle. The allowed moves between statuses are {@link OrderTransition}'s table;
 * {@code SHIPPED} and {@code CANCELLED} are final. Stored by name in {@code orders.status}, whose CHECK constraint lists
 * the same four names.
 */
public enum OrderStatus {
    CREATED,
    PAID,
    SHIPPED,
    CANCELLED;

    /** True when no transition leaves this status. */
    public boolean isFinal() {
        for (OrderTransition transition : OrderTransition.values()) {
            if (transition.isAllowedFrom(this)) {
                return false;
            }
        }
        return true;
    }
}
