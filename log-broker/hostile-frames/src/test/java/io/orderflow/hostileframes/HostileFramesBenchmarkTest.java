package io.orderflow.hostileframes;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class HostileFramesBenchmarkTest {
    @Test
    void kafkasCleanerBufferIsAnEighthOfItsHeap() {
        assertThat(HostileFramesBenchmark.dedupeBufferFor("128m")).isEqualTo("log.cleaner.dedupe.buffer.size=16777216");
        assertThat(HostileFramesBenchmark.dedupeBufferFor("1G")).isEqualTo("log.cleaner.dedupe.buffer.size=134217728");
        assertThat(HostileFramesBenchmark.dedupeBufferFor("268435456"))
                .isEqualTo("log.cleaner.dedupe.buffer.size=33554432");
    }
}
