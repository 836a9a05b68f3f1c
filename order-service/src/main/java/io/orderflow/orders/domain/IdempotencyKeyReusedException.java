package io.orderflow.orders.domain;

import java.util.UUID;

/**
 * An {@code Idempotency-Key} came back with a request that differs from the one it was first used with (HTTP 422).
 * Replaying it would return an order the client did not ask for, and creating a new one would break the key's promise.
 */
public final class IdempotencyKeyReusedException extends RuntimeException {

    private final String key;
    private final UUID orderId;

    public IdempotencyKeyReusedException(String key, UUID orderId) {
        super("Idempotency-Key '" + key + "' was first used with a different request, which created order " + orderId
                + "; send that request again to get its order, or use a new key for a new order");
        this.key = key;
        this.orderId = orderId;
    }

    public String key() {
        return key;
    }

    public UUID orderId() {
        return orderId;
    }
}
