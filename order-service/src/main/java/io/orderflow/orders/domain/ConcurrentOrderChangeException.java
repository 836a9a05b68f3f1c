package io.orderflow.orders.domain;

import java.util.UUID;

/**
 * A write lost a race that the order's advisory lock should have prevented: the row's version was no longer the one
 * that was read (HTTP 409). Seeing it means a writer broke the outbox protocol; the transaction is rolled back, so
 * nothing half-done remains and the client may retry.
 */
public final class ConcurrentOrderChangeException extends RuntimeException {

    private final UUID orderId;

    public ConcurrentOrderChangeException(UUID orderId, Throwable cause) {
        super("order " + orderId + " was changed by another transaction at the same time; retry the request", cause);
        this.orderId = orderId;
    }

    public UUID orderId() {
        return orderId;
    }
}
