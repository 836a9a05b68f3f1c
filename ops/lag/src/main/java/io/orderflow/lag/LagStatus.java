package io.orderflow.lag;

import java.util.List;

/**
 * A consumer group's (or one of its partitions') health, from a sliding window of readings of its committed offset
 * and lag, in the spirit of Burrow's evaluation rules. Worst first: a group's status is the worst of its partitions'.
 *
 * <ul>
 *   <li>{@code STOP}: lag > 0 and nobody can commit: the group has no members.
 *   <li>{@code STALL}: lag > 0, the group has members, and its committed offset has not moved for the whole window.
 *   <li>{@code REWIND}: the committed offset went backwards within the window (a reset, or a consumer committing an
 *       older position).
 *   <li>{@code WARN}: lag > 0 at every reading of the window and growing: more at the end than at the start, and the
 *       least-squares slope over the window positive.
 *   <li>{@code OK}: anything else, including any reading of the window at lag 0 (the group caught up at least once).
 * </ul>
 *
 * <p>Evaluated in this order: lag 0 now is OK; a rewind within the window is REWIND even without members (resetting a
 * group's offsets needs it empty); then STOP; then lag 0 at any reading of the window is OK (as Burrow's first rule:
 * a partition idle at lag 0 is not stalled when its next record arrives); then STALL, WARN. The window is time-based ({@code orderflow.lag-monitor.window}); a partition whose readings do not yet span it is
 * judged on what there is, except {@code STALL}, which needs the whole window. Stateless.
 */
public enum LagStatus {
    STOP,
    STALL,
    REWIND,
    WARN,
    OK;

    /** One reading of a partition: when, the group's committed offset there (-1 if none), and its lag in records. */
    public record Reading(long atMillis, long committed, long lag) {}

    /**
     * The status of one partition of a group from its readings in the window, oldest first.
     *
     * @param windowMillis the window's length: a STALL must last that long
     * @param hasMembers whether the group has members now
     */
    public static LagStatus of(List<Reading> window, long windowMillis, boolean hasMembers) {
        if (window.isEmpty()) {
            return OK;
        }
        Reading last = window.getLast();
        if (last.lag() == 0) {
            return OK;
        }
        for (int i = 1; i < window.size(); i++) {
            if (window.get(i).committed() < window.get(i - 1).committed()) {
                return REWIND;
            }
        }
        if (!hasMembers) {
            return STOP;
        }
        if (window.stream().anyMatch(r -> r.lag() == 0)) {
            return OK; // caught up within the window: an idle partition's first new record is no stall
        }
        Reading first = window.getFirst();
        boolean spansWindow = last.atMillis() - first.atMillis() >= windowMillis;
        if (spansWindow && window.stream().allMatch(r -> r.committed() == first.committed())) {
            return STALL;
        }
        if (window.size() >= 2 && last.lag() > first.lag() && growthPerSecond(window) > 0) {
            return WARN;
        }
        return OK;
    }

    /** The least-squares slope of lag over time, records per second; 0 with fewer than two readings. */
    public static double growthPerSecond(List<Reading> window) {
        int n = window.size();
        if (n < 2) {
            return 0;
        }
        double t0 = window.getFirst().atMillis();
        double sumT = 0;
        double sumL = 0;
        double sumTT = 0;
        double sumTL = 0;
        for (Reading reading : window) {
            double t = (reading.atMillis() - t0) / 1000.0;
            sumT += t;
            sumL += reading.lag();
            sumTT += t * t;
            sumTL += t * reading.lag();
        }
        double denominator = n * sumTT - sumT * sumT;
        return denominator == 0 ? 0 : (n * sumTL - sumT * sumL) / denominator;
    }

    /** The worse of two statuses. */
    public LagStatus worst(LagStatus other) {
        return ordinal() <= other.ordinal() ? this : other;
    }
}
