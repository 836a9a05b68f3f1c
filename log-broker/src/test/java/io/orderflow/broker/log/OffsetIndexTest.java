package io.orderflow.broker.log;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OffsetIndexTest {
    @TempDir
    Path dir;

    @Test
    void tornTrailingEntryIsCutOffOnOpen() throws IOException {
        Path file = dir.resolve("00000000000000000000.index");
        try (OffsetIndex index = new OffsetIndex(LogFiles.real(), file, 0)) {
            index.append(10, 100);
            index.append(20, 200);
        }
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
            ch.truncate(OffsetIndex.ENTRY_SIZE * 2 - 3);
        }
        try (OffsetIndex index = new OffsetIndex(LogFiles.real(), file, 0)) {
            assertThat(index.entries()).isEqualTo(1);
            assertThat(index.lookup(25)).isEqualTo(100);
        }
    }

    @Test
    void truncateFromRemovesEntriesAtAndAfterTheOffset() {
        try (OffsetIndex index = new OffsetIndex(LogFiles.real(), dir.resolve("x.index"), 0)) {
            index.append(10, 100);
            index.append(20, 200);
            index.append(30, 300);
            index.truncateFrom(20);
            assertThat(index.entries()).isEqualTo(1);
            assertThat(index.lookup(35)).isEqualTo(100);
        }
    }
}
