package io.orderflow.broker.log;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TransactionIndexTest {
    @TempDir
    Path dir;

    private Path file() {
        return dir.resolve(LogSegment.fileName(0, TransactionIndex.SUFFIX));
    }

    @Test
    void entriesAreAppendedAndReadBack() {
        TransactionIndex index = TransactionIndex.open(LogFiles.real(), file());
        index.append(new AbortedTxn(0, 0, 3));
        index.append(new AbortedTxn(5, 4, 9));
        index.close();
        assertThat(TransactionIndex.open(LogFiles.real(), file()).entries())
                .containsExactly(new AbortedTxn(0, 0, 3), new AbortedTxn(5, 4, 9));
    }

    @Test
    void aZeroFilledOrTornTailIsNotReadAsEntries() throws Exception {
        TransactionIndex index = TransactionIndex.open(LogFiles.real(), file());
        index.append(new AbortedTxn(0, 0, 3));
        index.close();
        try (FileChannel ch = FileChannel.open(file(), StandardOpenOption.WRITE, StandardOpenOption.APPEND)) {
            ch.write(ByteBuffer.allocate(24)); // what a power loss can leave: zeros where an entry was being written
            ch.write(ByteBuffer.allocate(10));
        }
        TransactionIndex reopened = TransactionIndex.open(LogFiles.real(), file());
        assertThat(reopened.entries()).containsExactly(new AbortedTxn(0, 0, 3));
        reopened.append(new AbortedTxn(7, 5, 8));
        reopened.close();
        assertThat(TransactionIndex.open(LogFiles.real(), file()).entries())
                .as("the next entry takes the place of the torn one")
                .containsExactly(new AbortedTxn(0, 0, 3), new AbortedTxn(7, 5, 8));
    }

    @Test
    void truncatingOnlyShortensTheFile() throws Exception {
        TransactionIndex index = TransactionIndex.open(LogFiles.real(), file());
        index.append(new AbortedTxn(1, 0, 3));
        index.append(new AbortedTxn(2, 4, 9));
        index.truncateFrom(5);
        assertThat(index.entries()).containsExactly(new AbortedTxn(1, 0, 3));
        assertThat(Files.size(file())).isEqualTo(24);
        index.close();
    }
}
