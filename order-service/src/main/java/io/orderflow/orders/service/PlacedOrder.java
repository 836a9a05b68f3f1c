package io.orderflow.orders.service;

import io.orderflow.orders.domain.Order;

/**
 * The answer to a placement: the order, and whether it was created by this request or by an earlier one with the same
 * {@code Idempotency-Key} ({@code replayed}; nothing was written then).
 */
public record PlacedOrder(Order order, boolean replayed) {}
