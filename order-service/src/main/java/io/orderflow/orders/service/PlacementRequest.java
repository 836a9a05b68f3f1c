package io.orderflow.orders.service;

import io.orderflow.orders.domain.NewOrder;
import java.util.Objects;
import java.util.UUID;

/**
 * One {@code POST /orders} waiting to be written: the order, the id it gets if it is created (drawn up front, because
 * the batch locks every order it may create before its first write), and its optional idempotency key with the digest
 * of the request ({@link RequestFingerprint}); both null without a key. {@code traceparent} may be null.
 */
record PlacementRequest(NewOrder order, UUID orderId, String idempotencyKey, String fingerprint, String traceparent) {

    PlacementRequest {
        Objects.requireNonNull(order, "order");
        Objects.requireNonNull(orderId, "orderId");
        if ((idempotencyKey == null) != (fingerprint == null)) {
            throw new IllegalArgumentException("an idempotency key goes with the request's fingerprint");
        }
    }

    static PlacementRequest of(NewOrder order, String idempotencyKey, String traceparent) {
        return new PlacementRequest(
                order,
                UUID.randomUUID(),
                idempotencyKey,
                idempotencyKey == null ? null : RequestFingerprint.of(order),
                traceparent);
    }
}
