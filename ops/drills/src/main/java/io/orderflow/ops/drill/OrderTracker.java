package io.orderflow.ops.drill;

import java.util.ArrayDeque;
import java.util.Collection;
import java.util.Deque;
import java.util.function.Predicate;

/**
 * The orders a drill placed, ticked off as they are seen done (by default processed: inventory-service reserved or
 * rejected it, notification-service mailed; or whatever the drill waits for, such as order-service's answer): each
 * call asks only about the orders not yet seen done, in order, and stops at the first one still pending, so waiting on
 * thousands of orders costs a few requests a reading. What is done must stay done. Not thread-safe (the drill's
 * thread).
 */
final class OrderTracker {

    private final Predicate<String> done;
    private final Deque<String> pending;

    /** Tracks until each order was processed: a reservation and a mail ({@link PlatformProbe#processed}). */
    OrderTracker(PlatformProbe probe, Collection<String> orders) {
        this(orders, probe::processed);
    }

    OrderTracker(Collection<String> orders, Predicate<String> done) {
        this.done = done;
        this.pending = new ArrayDeque<>(orders);
    }

    /** True once every order has been seen done. */
    boolean allDone() {
        while (!pending.isEmpty()) {
            if (!done.test(pending.peekFirst())) {
                return false;
            }
            pending.removeFirst();
        }
        return true;
    }
}
