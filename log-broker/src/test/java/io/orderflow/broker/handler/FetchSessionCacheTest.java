package io.orderflow.broker.handler;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.broker.log.ManualClock;
import java.util.List;
import org.apache.kafka.common.message.FetchRequestData;
import org.junit.jupiter.api.Test;

class FetchSessionCacheTest {
    private static List<FetchRequestData.FetchTopic> topics() {
        return List.of(new FetchRequestData.FetchTopic()
                .setTopic("t")
                .setPartitions(List.of(new FetchRequestData.FetchPartition().setPartition(0))));
    }

    @Test
    void aFullCacheEvictsOnlyASessionIdleForTheEvictionTime() {
        ManualClock clock = new ManualClock(1_000_000);
        FetchSessionCache cache = new FetchSessionCache(2, 120_000, clock);
        var first = cache.create(topics()).orElseThrow();
        var second = cache.create(topics()).orElseThrow();
        assertThat(first.id()).isNotEqualTo(second.id());
        assertThat(cache.create(topics())).as("both used just now").isEmpty();

        clock.advance(60_000);
        cache.find(second.id()); // used: the first is now the least recently used
        clock.advance(60_000);
        var third = cache.create(topics()).orElseThrow();
        assertThat(cache.find(first.id())).as("evicted after two idle minutes").isEmpty();
        assertThat(cache.find(second.id())).isPresent();
        assertThat(cache.find(third.id())).isPresent();
        assertThat(cache.size()).isEqualTo(2);
    }

    @Test
    void aCacheOfNoSlotsMakesNoSession() {
        assertThat(new FetchSessionCache(0, 0, new ManualClock(0)).create(topics()))
                .isEmpty();
    }
}
