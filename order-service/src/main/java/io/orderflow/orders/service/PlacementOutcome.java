package io.orderflow.orders.service;

import io.orderflow.orders.domain.IdempotencyKeyReusedException;
import io.orderflow.orders.domain.Order;
import java.util.UUID;

/** What a {@link PlacementBatch} decided for one request; nothing of it is true before the batch commits. */
sealed interface PlacementOutcome {

    /** The request created {@code order} (CREATED, version 1). */
    record Created(Order order) implements PlacementOutcome {}

    /** The request's idempotency key created {@code orderId} before, from the same request: answer with that order. */
    record Replayed(UUID orderId) implements PlacementOutcome {}

    /** The request's idempotency key was first used with another request: nothing was written for it. */
    record Refused(IdempotencyKeyReusedException reason) implements PlacementOutcome {}
}
