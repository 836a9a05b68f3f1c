package io.orderflow.broker.log;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.property.Properties;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class TimeIndexTest {
    /**
     * Oracle: batches with random timestamps (not monotonic). A scan starting where the index says must not skip
     * the first batch whose timestamp is at or after the target.
     */
    @Test
    void scanStartNeverSkipsTheFirstMatchingBatch() {
        Properties.forAll(100, gen -> {
            List<Integer> timestamps = gen.list(1, 100, g -> g.ints(0, 1000));
            int target = gen.ints(0, 1100);
            Path file = Files.createDirectories(Path.of("target", "tmp"))
                    .resolve("time-" + System.nanoTime() + ".timeindex");
            try (TimeIndex index = new TimeIndex(LogFiles.real(), file, 0)) {
                long max = -1;
                for (int i = 0; i < timestamps.size(); i++) {
                    max = Math.max(max, timestamps.get(i));
                    if (i % 3 == 0) { // sparse, like the real index
                        index.maybeAppend(max, i);
                    }
                }
                long start = index.scanStartFor(target);
                int firstMatch = -1;
                for (int i = 0; i < timestamps.size(); i++) {
                    if (timestamps.get(i) >= target) {
                        firstMatch = i;
                        break;
                    }
                }
                if (firstMatch >= 0) {
                    assertThat(start).isLessThanOrEqualTo(firstMatch);
                }
            }
        });
    }
}
