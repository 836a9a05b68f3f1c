package io.orderflow.contracts.order;

/** An order was cancelled; {@code reason} is a short human-readable explanation, always given. */
public record OrderCancelled(String orderId, String reason) implements OrderEvent {

    public OrderCancelled {
        PayloadFields.requireId(orderId, "OrderCancelled.orderId");
        PayloadFields.requireText(reason, "OrderCancelled.reason", PayloadFields.MAX_REASON_LENGTH);
    }
}
