package io.orderflow.orders.domain;

import java.util.EnumSet;
import java.util.Set;
import java.util.UUID;

/**
 * The state changes an order accepts after its creation; this enum is the whole lifecycle table.
 *
 * <pre>
 *   CREATED --confirm--> CONFIRMED --pay--> PAID --ship--> SHIPPED
 *      |   \                |                 |
 *      |    --reject--> REJECTED               |
 *      +-------cancel-------+--------cancel----+------> CANCELLED
 * </pre>
 *
 * <p>{@code confirm} and {@code reject} are inventory's answer, applied by the saga ({@code InventoryAnswers}) when
 * inventory-service reserved the order's stock or could not; the API offers {@code pay}, {@code ship} and
 * {@code cancel}. An order is paid only once its stock is reserved, and a rejected one can be neither paid, shipped nor
 * cancelled. A cancellation may cross inventory's answer in flight: the order is then CANCELLED, the answer that
 * arrives later changes nothing, and inventory-service releases what it reserved when it reads the OrderCancelled.
 *
 * <p>Each accepted transition raises the order's version by one and is recorded by exactly one event (OrderConfirmed,
 * OrderRejected, OrderPaid, OrderShipped, OrderCancelled); a refused one changes nothing and is answered with 409
 * Conflict. Repeating a transition (paying a PAID order) is refused too: the lifecycle has no self-loops, so a client
 * that retries after a lost response sees 409 and can read the order to learn that its first attempt succeeded.
 */
public enum OrderTransition {
    CONFIRM("confirm", OrderStatus.CONFIRMED, EnumSet.of(OrderStatus.CREATED)),
    REJECT("reject", OrderStatus.REJECTED, EnumSet.of(OrderStatus.CREATED)),
    PAY("pay", OrderStatus.PAID, EnumSet.of(OrderStatus.CONFIRMED)),
    SHIP("ship", OrderStatus.SHIPPED, EnumSet.of(OrderStatus.PAID)),
    CANCEL("cancel", OrderStatus.CANCELLED, EnumSet.of(OrderStatus.CREATED, OrderStatus.CONFIRMED, OrderStatus.PAID));

    private final String verb;
    private final OrderStatus target;
    private final Set<OrderStatus> allowedFrom;

    OrderTransition(String verb, OrderStatus target, Set<OrderStatus> allowedFrom) {
        this.verb = verb;
        this.target = target;
        this.allowedFrom = allowedFrom;
    }

    /** The word used in the API path ({@code POST /orders/{id}/pay}) and in error messages. */
    public String verb() {
        return verb;
    }

    public OrderStatus target() {
        return target;
    }

    public Set<OrderStatus> allowedFrom() {
        return EnumSet.copyOf(allowedFrom);
    }

    public boolean isAllowedFrom(OrderStatus current) {
        return allowedFrom.contains(current);
    }

    /** The status after this transition; {@link IllegalTransitionException} if {@code current} does not allow it. */
    public OrderStatus applyTo(UUID orderId, OrderStatus current) {
        if (!isAllowedFrom(current)) {
            throw new IllegalTransitionException(orderId, current, this);
        }
        return target;
    }
}
