package io.orderflow.orders.domain;

import java.util.UUID;

/** No order has this id (HTTP 404). */
public final class OrderNotFoundException extends RuntimeException {

    private final UUID orderId;

    public OrderNotFoundException(UUID orderId) {
        super("order " + orderId + " does not exist");
        this.orderId = orderId;
    }

    public UUID orderId() {
        return orderId;
    }
}
