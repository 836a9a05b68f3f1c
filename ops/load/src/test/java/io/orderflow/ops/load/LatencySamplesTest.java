package io.orderflow.ops.load;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class LatencySamplesTest {

    @Test
    void percentilesAreNearestRankOfAllSamples() {
        LatencySamples samples = new LatencySamples();
        List<Long> values = new ArrayList<>();
        for (long v = 1; v <= 1000; v++) {
            values.add(v * 1000); // 1 ms .. 1000 ms
        }
        Collections.shuffle(values, new Random(7));
        values.forEach(samples::add);

        LatencySamples.Summary summary = samples.summary();

        assertThat(summary.count()).isEqualTo(1000);
        assertThat(summary.percentileMillis(50)).isEqualTo(500.0);
        assertThat(summary.percentileMillis(99)).isEqualTo(990.0);
        assertThat(summary.percentileMillis(100)).isEqualTo(1000.0);
        assertThat(summary.maxMillis()).isEqualTo(1000.0);
    }

    @Test
    void aSingleSampleIsEveryPercentile() {
        LatencySamples samples = new LatencySamples();
        samples.add(2_500);

        assertThat(samples.summary().percentileMillis(50)).isEqualTo(2.5);
        assertThat(samples.summary().percentileMillis(99)).isEqualTo(2.5);
    }

    @Test
    void noSamplesGiveNaNRatherThanZero() {
        LatencySamples.Summary summary = new LatencySamples().summary();

        assertThat(summary.percentileMillis(99)).isNaN();
        assertThat(summary.maxMillis()).isNaN();
    }
}
