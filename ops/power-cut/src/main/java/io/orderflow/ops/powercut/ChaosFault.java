package io.orderflow.ops.powercut;

import java.time.Duration;
import java.util.List;
import java.util.SplittableRandom;

/**
 * One fault of a chaos run: its kind, the process or topic it hits, how long it lasts, and for a burst how many seconds
 * of orders arrive at once. {@code number} is its place in the run, which names the records it writes.
 */
public record ChaosFault(Kind kind, String target, Duration duration, int size, int number) {

    /** What a chaos run does to the platform. */
    public enum Kind {
        /** SIGKILL to a process, a few seconds down, then started again (the launcher's control port). */
        KILL,
        /** SIGSTOP to a process (PostgreSQL: all of its processes) for longer than the group session, then SIGCONT. */
        PAUSE,
        /** A consumer made to handle half the order rate for a while (its drill switch). */
        SLOW_CONSUMER,
        /** Several seconds' worth of orders placed at once. */
        BURST,
        /** A record on {@code orders} that is not an event envelope, which every group dead-letters. */
        POISON,
        /** An {@code OrderCreated} of major version 2, which no consumer reads: every group dead-letters it. */
        UNKNOWN_MAJOR
    }

    /** Every process a chaos run kills or pauses: each service, each relay, the broker, PostgreSQL. */
    public static final List<String> PROCESSES = List.of(
            "order-service",
            "outbox-relay",
            "inventory-service",
            "inventory-outbox-relay",
            "notification-service",
            "analytics-service",
            "log-broker",
            "postgres");

    /** The services whose consumers a chaos run slows down, by their service (and consumer group) names. */
    public static final List<String> CONSUMERS =
            List.of("inventory-service", "notification-service", "analytics-service", "order-service");

    /** The consumers' group session: a pause longer than this costs the paused member its partitions. */
    static final Duration SESSION_TIMEOUT = Duration.ofSeconds(10);

    static ChaosFault draw(Kind kind, int number, SplittableRandom draws) {
        return switch (kind) {
            case KILL -> new ChaosFault(kind, pick(PROCESSES, draws), seconds(1 + draws.nextInt(5)), 0, number);
            case PAUSE ->
                new ChaosFault(
                        kind, pick(PROCESSES, draws), SESSION_TIMEOUT.plus(seconds(2 + draws.nextInt(7))), 0, number);
            case SLOW_CONSUMER ->
                new ChaosFault(kind, pick(CONSUMERS, draws), seconds(15 + draws.nextInt(16)), 0, number);
            case BURST -> new ChaosFault(kind, "order-service", Duration.ZERO, 5 + draws.nextInt(6), number);
            case POISON, UNKNOWN_MAJOR -> new ChaosFault(kind, "orders", Duration.ZERO, 0, number);
        };
    }

    private static String pick(List<String> from, SplittableRandom draws) {
        return from.get(draws.nextInt(from.size()));
    }

    private static Duration seconds(int seconds) {
        return Duration.ofSeconds(seconds);
    }

    /** The key of the record a {@link Kind#POISON} or {@link Kind#UNKNOWN_MAJOR} fault writes: unique in the run. */
    String recordKey(long seed) {
        return "chaos-" + seed + "-" + number + "-" + kind.name().toLowerCase(java.util.Locale.ROOT);
    }

    @Override
    public String toString() {
        return switch (kind) {
            case KILL -> "kill -9 " + target + ", down " + duration.toSeconds() + " s, then started again";
            case PAUSE -> "kill -STOP " + target + " for " + duration.toSeconds() + " s, then kill -CONT";
            case SLOW_CONSUMER ->
                "slow consumer " + target + " (half the order rate) for " + duration.toSeconds() + " s";
            case BURST -> "burst: " + size + " s of orders placed at once";
            case POISON -> "poison record (not JSON) on " + target;
            case UNKNOWN_MAJOR -> "OrderCreated 2.0 (a major no consumer reads) on " + target;
        };
    }
}
