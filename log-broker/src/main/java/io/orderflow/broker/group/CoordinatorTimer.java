package io.orderflow.broker.group;

import java.util.HashMap;
import java.util.Map;
import java.util.TreeSet;

/**
 * The coordinator's timeouts (session expiry, rebalance and sync timeouts, the initial rebalance delay) as
 * keyed deadlines on the coordinator's clock. Scheduling a key again replaces its deadline, as Kafka's
 * coordinator timer does, so "reset the session timer" is one call. Nothing fires by itself: {@link
 * #runDue(long)}, called from the coordinator's {@code tick()}, runs every task whose deadline has passed, in
 * deadline order. Tests move a manual clock and tick instead of sleeping.
 *
 * <p>Not thread-safe: guarded by the coordinator's lock. Tasks may schedule and cancel keys while running.
 */
final class CoordinatorTimer {
    private record Entry(String key, long deadlineMs, long sequence, Runnable task) implements Comparable<Entry> {
        @Override
        public int compareTo(Entry o) {
            int byDeadline = Long.compare(deadlineMs, o.deadlineMs);
            return byDeadline != 0 ? byDeadline : Long.compare(sequence, o.sequence);
        }
    }

    private final Map<String, Entry> byKey = new HashMap<>();
    private final TreeSet<Entry> byDeadline = new TreeSet<>();
    private long sequence;

    /** Runs {@code task} at {@code deadlineMs} unless the key is scheduled again or cancelled first. */
    void schedule(String key, long deadlineMs, Runnable task) {
        cancel(key);
        Entry entry = new Entry(key, deadlineMs, sequence++, task);
        byKey.put(key, entry);
        byDeadline.add(entry);
    }

    void cancel(String key) {
        Entry old = byKey.remove(key);
        if (old != null) {
            byDeadline.remove(old);
        }
    }

    boolean isScheduled(String key) {
        return byKey.containsKey(key);
    }

    /** The deadline of {@code key}, or -1 when it is not scheduled; for tests and metrics. */
    long deadline(String key) {
        Entry e = byKey.get(key);
        return e == null ? -1 : e.deadlineMs();
    }

    /** Runs the tasks due at {@code nowMs}, earliest first, including tasks that due ones schedule for now. */
    int runDue(long nowMs) {
        int ran = 0;
        while (!byDeadline.isEmpty() && byDeadline.first().deadlineMs() <= nowMs) {
            Entry due = byDeadline.pollFirst();
            byKey.remove(due.key());
            due.task().run();
            ran++;
        }
        return ran;
    }

    int size() {
        return byKey.size();
    }
}
