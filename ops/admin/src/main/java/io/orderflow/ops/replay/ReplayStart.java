package io.orderflow.ops.replay;

import java.time.Duration;
import java.time.Instant;
import org.apache.kafka.clients.admin.OffsetSpec;

/**
 * Where a replay starts in each partition, as {@code kafka-consumer-groups --reset-offsets} names it: the earliest
 * offset still in the log ({@code --to-earliest}), the first record at or after a time ({@code --to-datetime}), or
 * the first record at or after a time that long before now ({@code --by-duration}). Times are the records'
 * timestamps: CreateTime, as the producers (the outbox relays) stamp them. "Now" is a parameter, read once per replay
 * from an injected clock, so that a test chooses it. Immutable.
 */
public sealed interface ReplayStart {

    /** The ListOffsets question that finds the start in a partition, asked at {@code now}. */
    OffsetSpec offsetSpec(Instant now);

    /** How the report names the start, e.g. "the earliest offset" or "2026-12-01T10:00:00Z". */
    String describe(Instant now);

    /** The earliest offset still in the log: everything the broker still holds is read again. */
    record Earliest() implements ReplayStart {
        @Override
        public OffsetSpec offsetSpec(Instant now) {
            return OffsetSpec.earliest();
        }

        @Override
        public String describe(Instant now) {
            return "the earliest offset";
        }
    }

    /** The first record whose timestamp is at or after {@code time}. */
    record AtTime(Instant time) implements ReplayStart {
        @Override
        public OffsetSpec offsetSpec(Instant now) {
            return OffsetSpec.forTimestamp(time.toEpochMilli());
        }

        @Override
        public String describe(Instant now) {
            return "the first record at or after " + time;
        }
    }

    /** The first record whose timestamp is at or after now minus {@code duration}. */
    record Before(Duration duration) implements ReplayStart {
        @Override
        public OffsetSpec offsetSpec(Instant now) {
            return OffsetSpec.forTimestamp(now.minus(duration).toEpochMilli());
        }

        @Override
        public String describe(Instant now) {
            return "the first record at or after " + now.minus(duration) + " (" + duration + " before now)";
        }
    }
}
