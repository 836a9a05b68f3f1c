package io.orderflow.broker.handler;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.util.List;
import org.apache.kafka.common.message.FetchRequestData;
import org.junit.jupiter.api.Test;

class FetchSessionCacheTest {
    /** A clock the test moves. */
    private static final class MovableClock extends Clock {
        long millis = 1_000_000;

        @Override
        public long millis() {
            return millis;
        }

        @Override
        public Instant instant() {
            return Instant.ofEpochMilli(millis);
        }

        @Override
        public ZoneId getZone() {
            return ZoneId.of("UTC");
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }
    }

    private static List<FetchRequestData.FetchTopic> topics() {
        return List.of(new FetchRequestData.FetchTopic()
                .setTopic("t")
                .setPartitions(List.of(new FetchRequestData.FetchPartition().setPartition(0))));
    }

    @Test
    void aFullCacheEvictsOnlyASessionIdleForTheEvictionTime() {
        MovableClock clock = new MovableClock();
        FetchSessionCache cache = new FetchSessionCache(2, 120_000, clock);
        var first = cache.create(topics()).orElseThrow();
        var second = cache.create(topics()).orElseThrow();
        assertThat(first.id()).isNotEqualTo(second.id());
        assertThat(cache.create(topics())).as("both used just now").isEmpty();

        clock.millis += 60_000;
        cache.find(second.id()); // used: the first is now the least recently used
        clock.millis += 60_000;
        var third = cache.create(topics()).orElseThrow();
        assertThat(cache.find(first.id())).as("evicted after two idle minutes").isEmpty();
        assertThat(cache.find(second.id())).isPresent();
        assertThat(cache.find(third.id())).isPresent();
        assertThat(cache.size()).isEqualTo(2);
    }

    @Test
    void aCacheOfNoSlotsMakesNoSession() {
        assertThat(new FetchSessionCache(0, 0, new MovableClock()).create(topics()))
                .isEmpty();
    }
}
