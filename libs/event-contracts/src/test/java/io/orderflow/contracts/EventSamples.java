package io.orderflow.contracts;

import io.orderflow.contracts.order.OrderEvent;
import io.orderflow.contracts.order.OrderEventSamples;
import io.orderflow.property.Gen;
import java.time.Instant;
import java.util.UUID;

/** Envelopes around valid order events, as this build's producers write them, drawn from a {@link Gen}. */
final class EventSamples {

    private static final long YEAR_2000 = Instant.parse("2000-01-01T00:00:00Z").getEpochSecond();
    private static final long YEAR_2100 = Instant.parse("2100-01-01T00:00:00Z").getEpochSecond();
    private static final String HEX = "0123456789abcdef";

    private EventSamples() {}

    /** Any 128 bits, not only version 4 UUIDs; the all-zero and all-one ids among them. */
    static UUID eventId(Gen gen) {
        return new UUID(gen.anyLong(), gen.anyLong());
    }

    /** An instant of this century, half of them on a whole second, the others to the nanosecond. */
    static Instant instant(Gen gen) {
        long seconds = gen.longs(YEAR_2000, YEAR_2100);
        int nanos = gen.bool() ? 0 : gen.ints(0, 999_999_999);
        return Instant.ofEpochSecond(seconds, nanos);
    }

    /** Valid traceparents, or (three times in ten) null for an event produced without trace context. */
    static String traceparent(Gen gen) {
        return gen.chance(0.3) ? null : validTraceparent(gen);
    }

    /** A valid traceparent: version 00, a non-zero trace id and parent id, any flags. */
    static String validTraceparent(Gen gen) {
        String trace = nonZeroHex(gen, 32);
        String parent = nonZeroHex(gen, 16);
        String flags = hex(gen, 2);
        return "00-" + trace + "-" + parent + "-" + flags;
    }

    /** An envelope around any event of the current catalogue. */
    static EventEnvelope envelope(Gen gen, EventCodec codec) {
        return envelope(gen, codec, OrderEventSamples.orderEvent(gen));
    }

    /** An envelope around {@code event}, with drawn id, time, producer and trace context. */
    static EventEnvelope envelope(Gen gen, EventCodec codec, OrderEvent event) {
        return codec.wrap(
                event,
                eventId(gen),
                instant(gen),
                gen.oneOf("order-service", "outbox-relay", "ops-drill"),
                traceparent(gen));
    }

    private static String nonZeroHex(Gen gen, int length) {
        String zero = "0".repeat(length);
        String value;
        do {
            value = hex(gen, length);
        } while (value.equals(zero));
        return value;
    }

    /**
     * {@code length} lower-case hex digits, each equally likely; now and then an edge instead: one digit repeated
     * (all zeros, all f's, ...) or zeros ending in one digit (the smallest non-zero values).
     */
    private static String hex(Gen gen, int length) {
        if (gen.chance(Gen.EDGE_PROBABILITY)) {
            char digit = HEX.charAt(gen.ints(0, HEX.length() - 1));
            return gen.bool() ? String.valueOf(digit).repeat(length) : "0".repeat(length - 1) + digit;
        }
        return gen.string(length, length, HEX);
    }
}
