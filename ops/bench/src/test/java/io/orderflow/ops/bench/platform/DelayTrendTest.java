package io.orderflow.ops.bench.platform;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.orderflow.property.Properties;
import java.util.Random;
import org.junit.jupiter.api.Test;

class DelayTrendTest {

    /** Orders accepted at {@code rate}/s for {@code seconds}, each delayed {@code base + growth * t} plus noise. */
    private static DelayTrend orders(int rate, int seconds, long baseMicros, double growthMillisPerSecond, long seed) {
        Random random = new Random(seed);
        int n = rate * seconds;
        long[] accepted = new long[n];
        long[] delay = new long[n];
        for (int i = 0; i < n; i++) {
            int at = n - 1 - i; // out of order on purpose: the trend sorts by acceptance
            accepted[at] = 1_000_000_000L + i * 1_000_000L / rate;
            double t = i / (double) rate;
            delay[at] = baseMicros + (long) (growthMillisPerSecond * 1000 * t) + random.nextInt(50_000);
        }
        return DelayTrend.of(accepted, delay);
    }

    @Test
    void readsTheGrowthOfTheDelayWhateverItsNoise() {
        Properties.forAll(50, gen -> {
            int growthMillisPerSecond = gen.ints(0, 200);
            long seed = gen.anyLong();
            DelayTrend trend = orders(100, 60, 150_000, growthMillisPerSecond, seed);

            assertThat(trend.growthMillisPerSecond()).isCloseTo(growthMillisPerSecond, within(2.0));
            assertThat(trend.orders()).isEqualTo(6000);
        });
    }

    @Test
    void aConsumerHoldingItsDelayKeptUpAndOneFallingBehindByFivePercentDidNot() {
        assertThat(orders(600, 45, 400_000, 0, 1).keptUp()).isTrue();
        // 30 records/s short at 600/s: 50 ms more delay every second
        assertThat(orders(600, 45, 400_000, 50, 1).keptUp()).isFalse();
    }

    @Test
    void tooFewOrdersTellNothing() {
        DelayTrend trend = orders(1, 10, 100_000, 0, 1);

        assertThat(trend.growthMillisPerSecond()).isNaN();
        assertThat(trend.keptUp()).isFalse();
    }
}
