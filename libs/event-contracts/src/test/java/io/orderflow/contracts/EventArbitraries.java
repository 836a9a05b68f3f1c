package io.orderflow.contracts;

import io.orderflow.contracts.order.OrderEvent;
import io.orderflow.contracts.order.OrderEventArbitraries;
import java.time.Instant;
import java.util.UUID;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;

/** Generators of envelopes around valid order events, as this build's producers write them. */
final class EventArbitraries {

    private static final long YEAR_2000 = Instant.parse("2000-01-01T00:00:00Z").getEpochSecond();
    private static final long YEAR_2100 = Instant.parse("2100-01-01T00:00:00Z").getEpochSecond();

    private EventArbitraries() {}

    static Arbitrary<UUID> eventIds() {
        return Arbitraries.longs().tuple2().map(t -> new UUID(t.get1(), t.get2()));
    }

    static Arbitrary<Instant> instants() {
        return Combinators.combine(
                        Arbitraries.longs().between(YEAR_2000, YEAR_2100),
                        Arbitraries.oneOf(
                                Arbitraries.just(0), Arbitraries.integers().between(0, 999_999_999)))
                .as(Instant::ofEpochSecond);
    }

    /** Valid traceparents, or null for an event produced without trace context. */
    static Arbitrary<String> traceparents() {
        Arbitrary<String> traceIds = hex(32).filter(id -> !id.equals("0".repeat(32)));
        Arbitrary<String> parentIds = hex(16).filter(id -> !id.equals("0".repeat(16)));
        return Combinators.combine(traceIds, parentIds, hex(2))
                .as((trace, parent, flags) -> "00-" + trace + "-" + parent + "-" + flags)
                .injectNull(0.3);
    }

    static Arbitrary<EventEnvelope> envelopes(EventCodec codec) {
        return envelopes(codec, OrderEventArbitraries.orderEvents());
    }

    static Arbitrary<EventEnvelope> envelopes(EventCodec codec, Arbitrary<? extends OrderEvent> events) {
        return Combinators.combine(
                        events,
                        eventIds(),
                        instants(),
                        Arbitraries.of("order-service", "outbox-relay", "ops-drill"),
                        traceparents())
                .as(codec::wrap);
    }

    private static Arbitrary<String> hex(int length) {
        return Arbitraries.strings().withChars("0123456789abcdef").ofLength(length);
    }
}
