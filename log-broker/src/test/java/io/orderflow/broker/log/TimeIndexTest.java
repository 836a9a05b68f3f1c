package io.orderflow.broker.log;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

class TimeIndexTest {
    /**
     * Oracle: batches with random timestamps (not monotonic). A scan starting where the index says must not skip
     * the first batch whose timestamp is at or after the target.
     */
    @Property(tries = 100)
    void scanStartNeverSkipsTheFirstMatchingBatch(
            @ForAll @Size(min = 1, max = 100) List<@IntRange(min = 0, max = 1000) Integer> timestamps,
            @ForAll @IntRange(min = 0, max = 1100) int target)
            throws IOException {
        Path file =
                Files.createDirectories(Path.of("target", "tmp")).resolve("time-" + System.nanoTime() + ".timeindex");
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
    }
}
