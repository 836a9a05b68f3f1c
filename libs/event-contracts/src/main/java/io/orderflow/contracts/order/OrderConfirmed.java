package io.orderflow.contracts.order;

/**
 * Inventory reserved every line of an order, so order-service confirmed it: the order may now be paid. Published by
 * order-service, through its outbox, when it applies inventory's {@code InventoryReserved}; an order is confirmed at
 * most once.
 */
public record OrderConfirmed(String orderId) implements OrderEvent {

    public OrderConfirmed {
        PayloadFields.requireId(orderId, "OrderConfirmed.orderId");
    }
}
