package io.orderflow.orders.outbox;

import java.util.UUID;

/**
 * Proof that the current transaction holds an order's advisory lock: only {@link OrderLocks#acquire} makes one, and
 * {@link OutboxWriter#append} demands one for the order it writes about, from the same transaction.
 *
 * @param transactionKey the JTA transaction the lock was taken in (locks are released when it ends)
 */
public record HeldOrderLock(UUID orderId, Object transactionKey) {}
