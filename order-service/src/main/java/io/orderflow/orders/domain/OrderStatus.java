package io.orderflow.orders.domain;

/**
 * Where an order is in its lifecycle. The allowed moves between statuses are {@link OrderTransition}'s table;
 * {@code SHIPPED}, {@code CANCELLED} and {@code REJECTED} are final. An order is {@code CREATED} until inventory's
 * answer reaches it ({@code CONFIRMED} or {@code REJECTED}: the saga, docs/saga.md). Stored by name in
 * {@code orders.status}, whose CHECK constraint lists the same six names.
 */
public enum OrderStatus {
    CREATED,
    CONFIRMED,
    REJECTED,
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
