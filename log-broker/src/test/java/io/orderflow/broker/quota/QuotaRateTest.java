package io.orderflow.broker.quota;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.orderflow.property.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.metrics.MetricConfig;
import org.apache.kafka.common.metrics.stats.Rate;
import org.junit.jupiter.api.Test;

/**
 * {@link QuotaRate} against its oracle, the {@code Rate} of kafka-clients' metrics library that Apache Kafka's
 * quota managers use: the same records at the same times give the same rate and the same throttle time
 * ({@code (rate - bound) / bound} of the rate's window, Kafka's {@code QuotaUtils.throttleTime}).
 */
class QuotaRateTest {
    @Test
    void measuresAndThrottlesAsKafkasRateDoes() {
        Properties.forAll(200, gen -> {
            int samples = gen.ints(1, 12);
            long windowMs = gen.oneOf(1L, 100L, 1000L);
            double bound = gen.ints(1, 5_000);
            MetricConfig config = new MetricConfig().samples(samples).timeWindow(windowMs, TimeUnit.MILLISECONDS);
            Rate oracle = new Rate();
            QuotaRate rate = new QuotaRate(samples, windowMs);
            long now = gen.longs(0, 1_000_000);
            for (int step : gen.list(1, 200, g -> g.ints(0, 3_000))) {
                now += gen.chance(0.05) ? (long) step * 20 : step / 10;
                double amount = gen.chance(0.1) ? -gen.ints(0, 500) : gen.ints(0, 2_000);
                oracle.record(config, amount, now);
                rate.record(amount, now);
                long probe = now + (gen.chance(0.3) ? gen.ints(0, 5_000) : 0);
                double expected = oracle.measure(config, probe);
                assertThat(rate.perSecond(probe)).isCloseTo(expected, within(1e-6 * Math.max(1, Math.abs(expected))));
                long expectedThrottle = expected <= bound
                        ? 0
                        : Math.round((expected - bound) / bound * oracle.windowSize(config, probe));
                assertThat(rate.throttleMs(bound, probe)).isEqualTo(expectedThrottle);
            }
        });
    }

    @Test
    void aNewClientMayBurstUpToAllButOneWindowOfItsQuota() {
        QuotaRate rate = new QuotaRate(11, 1_000);
        rate.record(10_000, 0);
        assertThat(rate.throttleMs(1_000, 0)).isZero();
        rate.record(1_000, 0);
        // 11,000 bytes over the ten windows assumed: 1,100 per second, 10 % over a 1,000 bound: a second's wait.
        assertThat(rate.throttleMs(1_000, 0)).isEqualTo(1_000);
    }

    @Test
    void isIdleOnceEveryWindowHasAged() {
        QuotaRate rate = new QuotaRate(3, 1_000);
        assertThat(rate.idleSince(0)).isTrue();
        rate.record(5, 100);
        assertThat(rate.idleSince(3_099)).isFalse();
        assertThat(rate.idleSince(3_100)).isTrue();
        assertThat(rate.perSecond(3_100)).isZero();
    }
}
