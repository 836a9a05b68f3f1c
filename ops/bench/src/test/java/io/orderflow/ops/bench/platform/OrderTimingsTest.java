package io.orderflow.ops.bench.platform;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class OrderTimingsTest {
    private static final long SECOND = 1_000_000;

    /** Orders and their moments as the benchmark reads them, microseconds of one clock. */
    private static final class Platform {
        final Map<String, Long> accepted = new LinkedHashMap<>();
        final Map<String, UUID> created = new HashMap<>();
        final Map<String, Long> published = new HashMap<>();
        final Map<String, Long> readable = new HashMap<>();
        final Map<String, Map<UUID, Long>> processed = new LinkedHashMap<>();
        final Map<String, Long> answerWritten = new HashMap<>();
        final Map<String, Long> answerPublished = new HashMap<>();
        final Map<String, Long> confirmed = new HashMap<>();
        final Map<UUID, Long> mailed = new HashMap<>();

        Platform() {
            PlatformBenchmark.CONSUMERS.forEach(consumer -> processed.put(consumer, new HashMap<>()));
        }

        /**
         * An order accepted at {@code at} that went round the whole loop: published 10 ms later, readable at 20 ms,
         * processed by every service at 50 ms, inventory's answer written at 50 ms and published at 60 ms, confirmed at
         * 80 ms, and its mail accepted {@code mailAfterMillis} after it was accepted.
         */
        UUID order(String id, long at, long mailAfterMillis) {
            UUID event = UUID.randomUUID();
            accepted.put(id, at);
            created.put(id, event);
            published.put(id, at + 10_000);
            readable.put(id, at + 20_000);
            processed.values().forEach(service -> service.put(event, at + 50_000));
            answerWritten.put(id, at + 50_000);
            answerPublished.put(id, at + 60_000);
            confirmed.put(id, at + 80_000);
            mailed.put(event, at + mailAfterMillis * 1000);
            return event;
        }

        OrderTimings.Processed timings() {
            return OrderTimings.of(new OrderTimings.Moments(
                    accepted,
                    created,
                    published,
                    readable::get,
                    processed,
                    answerWritten,
                    answerPublished,
                    confirmed,
                    mailed::get));
        }
    }

    @Test
    void eachStageRunsFromOneMomentOfTheOrderToTheNext() {
        Platform platform = new Platform();
        platform.order("o-1", 10 * SECOND, 300);

        OrderTimings.Processed timings = platform.timings();

        assertThat(timings.latencies().get(OrderTimings.ALL).summary().maxMillis())
                .isEqualTo(50);
        assertThat(timings.latencies().get(OrderTimings.CONFIRMED).summary().maxMillis())
                .isEqualTo(80);
        assertThat(timings.latencies().get(OrderTimings.MAILED).summary().maxMillis())
                .isEqualTo(300);
        Map<String, Double> stages = new LinkedHashMap<>();
        timings.stages()
                .forEach((stage, samples) -> stages.put(stage, samples.summary().maxMillis()));
        assertThat(stages)
                .containsEntry("accepted -> published", 10.0)
                .containsEntry("accepted -> readable", 20.0)
                .containsEntry("readable -> processed by notification-service", 30.0)
                .containsEntry("answer written -> published by inventory's relay", 10.0)
                .containsEntry("answer published -> confirmed", 20.0)
                .containsEntry("processed by notification-service -> mail accepted", 250.0);
    }

    @Test
    void anOrderThatWasNotMailedCountsInEveryFigureButTheMails() {
        Platform platform = new Platform();
        platform.order("o-1", 10 * SECOND, 300);
        UUID unmailed = platform.order("o-2", 11 * SECOND, 300);
        platform.mailed.remove(unmailed);
        platform.confirmed.remove("o-1");

        OrderTimings.Processed timings = platform.timings();

        assertThat(timings.latencies().get(OrderTimings.ALL).summary().count()).isEqualTo(2);
        assertThat(timings.latencies().get(OrderTimings.CONFIRMED).summary().count())
                .isEqualTo(1);
        assertThat(timings.latencies().get(OrderTimings.MAILED).summary().count())
                .isEqualTo(1);
        assertThat(timings.stages()
                        .get("processed by notification-service -> mail accepted")
                        .summary()
                        .count())
                .isEqualTo(1);
    }

    @Test
    void mailsFallingBehindShowInTheMailsTrendAloneWhileTheSagaKeepsUp() {
        Platform platform = new Platform();
        for (int i = 0; i < 600; i++) {
            long at = 10 * SECOND + i * SECOND / 10; // 10 orders a second for a minute
            platform.order("o-" + i, at, 200 + 50L * i / 10); // each second's mails 50 ms later than the last's
        }

        OrderTimings.Processed timings = platform.timings();

        assertThat(timings.trends().get(OrderTimings.MAILS).growthMillisPerSecond())
                .isCloseTo(50, within(1.0));
        assertThat(timings.trends().get(OrderTimings.MAILS).keptUp()).isFalse();
        for (String part : new String[] {"inventory-service", OrderTimings.INVENTORY_RELAY, OrderTimings.SAGA}) {
            assertThat(timings.trends().get(part).growthMillisPerSecond())
                    .as(part)
                    .isZero();
            assertThat(timings.trends().get(part).keptUp()).as(part).isTrue();
        }
    }
}
