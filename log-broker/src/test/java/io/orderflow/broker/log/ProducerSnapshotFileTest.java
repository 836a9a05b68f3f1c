package io.orderflow.broker.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProducerSnapshotFileTest {
    private static final long T0 = 1_700_000_000_000L;

    @TempDir
    Path dir;

    private final LogFiles files = LogFiles.real();

    /** A table holding producers 1..{@code producers}, producer p with p batches (so some hold all five). */
    private static ProducerStateTable tableWith(int producers, long[] logEnd) {
        ProducerStateTable table = new ProducerStateTable("orders-3");
        long offset = logEnd[0];
        for (int p = 1; p <= producers; p++) {
            for (int i = 0; i < p; i++) {
                BatchHeader h = ProducerStateTableTest.header(p, (short) p, 3 * i, 3, offset, T0 + offset);
                table.replay(h);
                offset = h.nextOffset();
            }
        }
        logEnd[0] = offset;
        return table;
    }

    private static ProducerStateTable tableWith(int producers) {
        return tableWith(producers, new long[] {0});
    }

    private List<Long> snapshotOffsets() throws IOException {
        return List.copyOf(ProducerSnapshotFile.list(dir).keySet());
    }

    @Test
    void roundTripsEveryProducerWithAllItsRetainedBatches() {
        long[] logEnd = {0};
        ProducerStateTable table = tableWith(7, logEnd);
        table.writeSnapshot(files, dir, logEnd[0]);

        ProducerStateTable loaded = new ProducerStateTable("orders-3");
        assertThat(loaded.loadLatestSnapshot(files, dir, logEnd[0])).isEqualTo(logEnd[0]);
        assertThat(loaded.entries()).isEqualTo(table.entries());
        assertThat(loaded.entry(7).orElseThrow().batches()).hasSize(5);
        assertThat(Files.exists(dir.resolve(LogSegment.fileName(logEnd[0], ".snapshot"))))
                .isTrue();
    }

    @Test
    void keepsTheFirstOffsetOfAnOpenTransaction() throws ProducerSnapshotFile.CorruptSnapshotException {
        BatchMetadata batch = new BatchMetadata(0, 1, 40, 41, 1_000);
        List<ProducerEntry> entries = List.of(
                new ProducerEntry(3, (short) 2, 1_000, List.of(batch), 40),
                new ProducerEntry(4, (short) 0, 1_000, List.of(batch)));
        assertThat(ProducerSnapshotFile.decode(ProducerSnapshotFile.encode(42, entries), 42))
                .isEqualTo(entries);
    }

    @Test
    void readsAVersionOneSnapshotAsHavingNoTransactionOpen() throws ProducerSnapshotFile.CorruptSnapshotException {
        // Version 1, as brokers before transactions wrote it: no txnFirstOffset field.
        java.nio.ByteBuffer v1 = java.nio.ByteBuffer.allocate(2 + 8 + 4 + 8 + 2 + 8 + 1 + 32 + 4)
                .putShort((short) 1)
                .putLong(42)
                .putInt(1)
                .putLong(3)
                .putShort((short) 2)
                .putLong(1_000)
                .put((byte) 1)
                .putInt(0)
                .putInt(1)
                .putLong(40)
                .putLong(41)
                .putLong(1_000);
        java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
        crc.update(v1.duplicate().flip());
        v1.putInt((int) crc.getValue()).flip();
        assertThat(ProducerSnapshotFile.decode(v1, 42))
                .containsExactly(new ProducerEntry(
                        3,
                        (short) 2,
                        1_000,
                        List.of(new BatchMetadata(0, 1, 40, 41, 1_000)),
                        ProducerEntry.NO_TRANSACTION));
    }

    @Test
    void aRetryIsStillRecognisedAfterARestart() {
        ProducerStateTable table = tableWith(6);
        table.writeSnapshot(files, dir, 1000);
        ProducerStateTable loaded = new ProducerStateTable("orders-3");
        loaded.loadLatestSnapshot(files, dir, 1000);

        BatchMetadata oldestRetained = loaded.entry(6).orElseThrow().batches().getFirst();
        BatchMetadata original = loaded.prepare()
                .check(ProducerStateTableTest.header(6, (short) 6, oldestRetained.firstSequence(), 3, 1000, T0));
        assertThat(original).isEqualTo(oldestRetained);
    }

    @Test
    void roundTripsAnEmptyTable() {
        new ProducerStateTable("orders-3").writeSnapshot(files, dir, 0);
        ProducerStateTable loaded = tableWith(2);
        assertThat(loaded.loadLatestSnapshot(files, dir, 0)).isZero();
        assertThat(loaded.producerCount()).isZero();
    }

    @Test
    void loadingReplacesWhateverTheTableHeld() {
        tableWith(1).writeSnapshot(files, dir, 10);
        ProducerStateTable loaded = tableWith(3);
        loaded.loadLatestSnapshot(files, dir, 10);
        assertThat(loaded.entries()).extracting(ProducerEntry::producerId).containsExactly(1L);
    }

    @Test
    void writingAtTheSameOffsetReplacesTheSnapshotAndLeavesNoTemporaryFile() throws IOException {
        tableWith(1).writeSnapshot(files, dir, 10);
        tableWith(2).writeSnapshot(files, dir, 10);
        try (var listing = Files.list(dir)) {
            assertThat(listing.map(p -> p.getFileName().toString()))
                    .containsExactly(LogSegment.fileName(10, ".snapshot"));
        }
        ProducerStateTable loaded = new ProducerStateTable("orders-3");
        loaded.loadLatestSnapshot(files, dir, 10);
        assertThat(loaded.producerCount()).isEqualTo(2);
    }

    @Test
    void returnsMinusOneAndEmptiesTheTableWhenThereIsNoSnapshot() throws IOException {
        Files.writeString(dir.resolve("00000000000000000000.log"), "not a snapshot");
        Files.writeString(dir.resolve("00000000000000000005.snapshot.tmp"), "an unfinished snapshot");
        ProducerStateTable table = tableWith(2);
        assertThat(table.loadLatestSnapshot(files, dir, 100)).isEqualTo(-1);
        assertThat(table.producerCount()).isZero();
    }

    @Test
    void fallsBackToTheOlderSnapshotWhenAByteIsFlippedInTheNewest() throws IOException {
        tableWith(1).writeSnapshot(files, dir, 10);
        tableWith(3).writeSnapshot(files, dir, 20);
        Path newest = ProducerSnapshotFile.path(dir, 20);
        byte[] bytes = Files.readAllBytes(newest);
        bytes[bytes.length / 2] ^= 0x04;
        Files.write(newest, bytes);

        ProducerStateTable loaded = new ProducerStateTable("orders-3");
        assertThat(loaded.loadLatestSnapshot(files, dir, 20)).isEqualTo(10);
        assertThat(loaded.producerCount()).isEqualTo(1);
        assertThat(snapshotOffsets()).as("the corrupt snapshot is deleted").containsExactly(10L);
    }

    @Test
    void returnsMinusOneWhenTheOnlySnapshotIsTruncated() throws IOException {
        tableWith(3).writeSnapshot(files, dir, 20);
        Path only = ProducerSnapshotFile.path(dir, 20);
        try (FileChannel channel = FileChannel.open(only, StandardOpenOption.WRITE)) {
            channel.truncate(channel.size() - 7);
        }
        ProducerStateTable loaded = tableWith(1);
        assertThat(loaded.loadLatestSnapshot(files, dir, 20)).isEqualTo(-1);
        assertThat(loaded.producerCount()).isZero();
        assertThat(snapshotOffsets()).isEmpty();
    }

    @Test
    void deletesSnapshotsAboveTheLogEndAndLoadsTheNewestAtOrBelowIt() throws IOException {
        tableWith(1).writeSnapshot(files, dir, 10);
        tableWith(2).writeSnapshot(files, dir, 20);
        tableWith(3).writeSnapshot(files, dir, 30);
        tableWith(4).writeSnapshot(files, dir, 40);

        ProducerStateTable loaded = new ProducerStateTable("orders-3");
        assertThat(loaded.loadLatestSnapshot(files, dir, 30)).isEqualTo(30);
        assertThat(loaded.producerCount()).isEqualTo(3);
        assertThat(snapshotOffsets()).containsExactly(10L, 20L, 30L);

        assertThat(loaded.loadLatestSnapshot(files, dir, 25)).isEqualTo(20);
        assertThat(loaded.producerCount()).isEqualTo(2);
        assertThat(snapshotOffsets()).containsExactly(10L, 20L);
    }

    @Test
    void makesTheDeletionOfSnapshotsDurable() {
        tableWith(1).writeSnapshot(files, dir, 10);
        tableWith(2).writeSnapshot(files, dir, 20);
        tableWith(3).writeSnapshot(files, dir, 30);
        List<String> synced = new ArrayList<>();
        LogFiles recording = new LogFiles() {
            @Override
            public FileChannel open(Path path, OpenOption... options) throws IOException {
                return FileChannel.open(path, options);
            }

            @Override
            public void syncDirectory(Path synchronizedDir) {
                synced.add(synchronizedDir.getFileName() + " " + snapshotOffsetsUnchecked());
            }
        };

        new ProducerStateTable("orders-3").loadLatestSnapshot(recording, dir, 25);
        new ProducerStateTable("orders-3").deleteSnapshotsBelow(recording, dir, 20);

        assertThat(synced)
                .as("a directory fsync after each deletion, so a stale snapshot cannot come back after a crash")
                .containsExactly(dir.getFileName() + " [10, 20]", dir.getFileName() + " [20]");
    }

    private List<Long> snapshotOffsetsUnchecked() {
        try {
            return snapshotOffsets();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void ignoresASnapshotRenamedToAnotherOffset() throws IOException {
        tableWith(1).writeSnapshot(files, dir, 10);
        tableWith(2).writeSnapshot(files, dir, 20);
        Files.copy(ProducerSnapshotFile.path(dir, 10), ProducerSnapshotFile.path(dir, 30));
        ProducerStateTable loaded = new ProducerStateTable("orders-3");
        assertThat(loaded.loadLatestSnapshot(files, dir, 30)).isEqualTo(20);
    }

    @Test
    void rejectsAnUnknownVersion() {
        ByteBuffer encoded = ProducerSnapshotFile.encode(10, tableWith(2).entries());
        encoded.putShort(0, (short) 3);
        assertThatThrownBy(() -> ProducerSnapshotFile.decode(encoded, 10))
                .isInstanceOf(ProducerSnapshotFile.CorruptSnapshotException.class)
                .hasMessageContaining("version 3");
    }

    @Test
    void detectsEveryTruncationAndEveryDamagedByte() throws ProducerSnapshotFile.CorruptSnapshotException {
        ByteBuffer encoded = ProducerSnapshotFile.encode(10, tableWith(6).entries());
        assertThat(ProducerSnapshotFile.decode(encoded.duplicate(), 10)).hasSize(6);
        Random random = new Random(42);
        for (int length = 0; length < encoded.limit(); length++) {
            ByteBuffer prefix = encoded.duplicate().limit(length);
            assertThatThrownBy(() -> ProducerSnapshotFile.decode(prefix, 10))
                    .as("cut to %d bytes", length)
                    .isInstanceOf(ProducerSnapshotFile.CorruptSnapshotException.class);
        }
        for (int position = 0; position < encoded.limit(); position++) {
            ByteBuffer damaged = ByteBuffer.allocate(encoded.limit())
                    .put(encoded.duplicate())
                    .flip();
            damaged.put(position, (byte) (damaged.get(position) ^ (1 + random.nextInt(255))));
            assertThatThrownBy(() -> ProducerSnapshotFile.decode(damaged, 10))
                    .as("byte %d damaged", position)
                    .isInstanceOf(ProducerSnapshotFile.CorruptSnapshotException.class);
        }
    }

    @Test
    void deletesSnapshotsBelowTheGivenOffsetAndKeepsTheOneAtIt() throws IOException {
        for (long offset : new long[] {10, 20, 30, 40}) {
            tableWith(1).writeSnapshot(files, dir, offset);
        }
        ProducerStateTable table = new ProducerStateTable("orders-3");
        assertThat(table.deleteSnapshotsBelow(files, dir, 30)).isEqualTo(2);
        assertThat(snapshotOffsets()).containsExactly(30L, 40L);
        assertThat(table.deleteSnapshotsBelow(files, dir, 30)).isZero();
    }

    @Test
    void aPowerLossWhileWritingASnapshotLeavesThePreviousOne() throws IOException {
        tableWith(1).writeSnapshot(files, dir, 10);
        PowerLossFiles dying = new PowerLossFiles();
        dying.beforeForce(path -> {
            try {
                dying.powerLoss(new Random(7));
            } catch (IOException e) {
                throw new AssertionError(e);
            }
        });
        assertThatThrownBy(() -> tableWith(3).writeSnapshot(dying, dir, 20)).isInstanceOf(LogStorageException.class);

        ProducerStateTable loaded = new ProducerStateTable("orders-3");
        assertThat(loaded.loadLatestSnapshot(files, dir, 20)).isEqualTo(10);
        assertThat(loaded.producerCount()).isEqualTo(1);
    }

    @Test
    void aSnapshotWrittenBeforeAPowerLossSurvivesIt() throws IOException {
        PowerLossFiles dying = new PowerLossFiles();
        tableWith(3).writeSnapshot(dying, dir, 20);
        dying.powerLossKeepingOnlyWhatWasSynced();

        ProducerStateTable loaded = new ProducerStateTable("orders-3");
        assertThat(loaded.loadLatestSnapshot(files, dir, 20)).isEqualTo(20);
        assertThat(loaded.entries()).isEqualTo(tableWith(3).entries());
    }
}
