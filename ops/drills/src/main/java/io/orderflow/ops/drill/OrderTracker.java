package io.orderflow.ops.drill;

import java.util.ArrayDeque;
import java.util.Collection;
import java.util.Deque;

/**
 * The orders a drill placed, ticked off as they are seen processed (inventory-service reserved, notification-service
 * mailed): each call asks only about the orders not yet seen, in order, and stops at the first one still pending, so
 * waiting on thousands of orders costs a few requests a reading. Not thread-safe (the drill's thread).
 */
final class OrderTracker {

    private final PlatformProbe probe;
    private final Deque<String> pending;

    OrderTracker(PlatformProbe probe, Collection<String> orders) {
        this.probe = probe;
        this.pending = new ArrayDeque<>(orders);
    }

    /** True once every order has been seen processed. */
    boolean allProcessed() {
        while (!pending.isEmpty()) {
            if (!probe.processed(pending.peekFirst())) {
                return false;
            }
            pending.removeFirst();
        }
        return true;
    }
}
