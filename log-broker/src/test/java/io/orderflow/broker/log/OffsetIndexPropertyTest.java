package io.orderflow.broker.log;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.property.Properties;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** The offset index against its oracle, a sorted map, before and after reopening the file. */
class OffsetIndexPropertyTest {
    @Test
    void lookupMatchesASortedMap() {
        Properties.forAll(50, gen -> {
            java.util.List<Integer> gaps = gen.list(0, 200, g -> g.ints(1, 50));
            java.util.List<Integer> probes = gen.list(1, 20, g -> g.ints(0, 12_000));
            Path file = java.nio.file.Files.createDirectories(Path.of("target", "tmp"))
                    .resolve("offset-" + System.nanoTime() + ".index");
            long base = 1_000;
            TreeMap<Long, Integer> oracle = new TreeMap<>();
            try (OffsetIndex index = new OffsetIndex(LogFiles.real(), file, base)) {
                long offset = base;
                int position = 0;
                for (int gap : gaps) {
                    offset += gap;
                    position += gap * 10;
                    index.append(offset, position);
                    oracle.put(offset, position);
                }
                for (int probe : probes) {
                    long target = base + probe;
                    Map.Entry<Long, Integer> expected = oracle.floorEntry(target);
                    assertThat(index.lookup(target)).isEqualTo(expected == null ? 0 : expected.getValue());
                }
            }
            try (OffsetIndex reopened = new OffsetIndex(LogFiles.real(), file, base)) {
                assertThat(reopened.entries()).isEqualTo(oracle.size());
                for (int probe : probes) {
                    Map.Entry<Long, Integer> expected = oracle.floorEntry(base + probe);
                    assertThat(reopened.lookup(base + probe)).isEqualTo(expected == null ? 0 : expected.getValue());
                }
            }
        });
    }
}
