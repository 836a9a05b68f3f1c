package io.orderflow.broker.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Damage on disk: a flipped byte inside a stored batch is detected by its CRC and reported
 * ({@link CorruptBatchException} naming the file and position), never served as data; the batches around it
 * stay readable; and recovery tells such media damage (valid batches follow) from a torn tail (cut off).
 *
 * <p>Every batch holds two records, so batch {@code b} holds offsets {@code 2b} and {@code 2b+1}.
 */
class CorruptionTest {
    private static final long T0 = 1_700_000_000_000L;
    private static final LogConfig CONFIG = LogConfig.defaults().with(LogConfig.INDEX_INTERVAL_BYTES, "128");

    @TempDir
    Path dir;

    private final ManualClock clock = new ManualClock(T0);
    private final ExecutorService flusher = Executors.newSingleThreadExecutor();
    private final List<PartitionLog> opened = new ArrayList<>();

    @AfterEach
    void tearDown() {
        opened.forEach(PartitionLog::closeUncleanly);
        flusher.shutdownNow();
    }

    private PartitionLog open() {
        PartitionLog log = PartitionLog.open("orders-0", dir, CONFIG, clock, LogFiles.real(), flusher);
        opened.add(log);
        return log;
    }

    private static void appendBatches(PartitionLog log, int batches) {
        for (int i = 0; i < batches; i++) {
            long offset = log.logEndOffset();
            AppendResult r = log.append(TestBatches.batch(T0, null, "v" + offset, null, "v" + (offset + 1)));
            log.awaitDurable(r.endOffset()).join();
        }
    }

    private Path segment(long baseOffset) {
        return dir.resolve(LogSegment.fileName(baseOffset, LogSegment.LOG_SUFFIX));
    }

    /** File positions of the batches in a segment, by walking their length fields. */
    private static List<Integer> batchPositions(Path segment) throws IOException {
        ByteBuffer bytes = ByteBuffer.wrap(Files.readAllBytes(segment));
        List<Integer> positions = new ArrayList<>();
        int position = 0;
        while (position + BatchHeader.SIZE <= bytes.limit()) {
            positions.add(position);
            position += bytes.getInt(position + BatchHeader.LENGTH_OFFSET) + BatchHeader.LOG_OVERHEAD;
        }
        return positions;
    }

    private static void flipByte(Path file, long position) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer one = ByteBuffer.allocate(1);
            ch.read(one, position);
            one.put(0, (byte) (one.get(0) ^ 0x04)).rewind();
            ch.write(one, position);
        }
    }

    /** The offsets of the records a read from {@code offset} returns; every batch is CRC-checked. */
    private static List<Long> offsetsReadFrom(PartitionLog log, long offset) {
        ByteBuffer region = log.read(offset, Integer.MAX_VALUE, false).records().read();
        return TestBatches.decode(region).stream().map(TestBatches.Read::offset).toList();
    }

    private static List<Long> range(long fromInclusive, long toExclusive) {
        return LongStream.range(fromInclusive, toExclusive).boxed().toList();
    }

    /** Where to flip a byte inside a batch: a record, or a header field the CRC covers (its last byte). */
    enum Damage {
        RECORDS(BatchHeader.SIZE + 5),
        MAGIC(BatchHeader.MAGIC_OFFSET),
        CRC(BatchHeader.CRC_OFFSET + 3),
        ATTRIBUTES(BatchHeader.ATTRIBUTES_OFFSET + 1),
        LAST_OFFSET_DELTA(26),
        BASE_TIMESTAMP(34),
        MAX_TIMESTAMP(42),
        PRODUCER_ID(50),
        BASE_SEQUENCE(56),
        RECORD_COUNT(60);

        final int at;

        Damage(int at) {
            this.at = at;
        }
    }

    /** Segment 0 holds batches 0..19 (offsets 0..39) and is sealed; segment 40 holds offsets 40..49. */
    private PartitionLog sealedSegmentThenActive() {
        PartitionLog log = open();
        appendBatches(log, 20);
        log.forceRoll();
        appendBatches(log, 5);
        return log;
    }

    @Test
    void readsBeforeADamagedBatchInASealedSegmentStopAtIt() throws IOException {
        sealedSegmentThenActive().close();
        flipByte(segment(0), batchPositions(segment(0)).get(10) + Damage.RECORDS.at);

        PartitionLog log = open();

        assertThat(log.recoveredCleanly()).isTrue();
        assertThat(offsetsReadFrom(log, 0)).isEqualTo(range(0, 20));
        assertThat(offsetsReadFrom(log, 7)).isEqualTo(range(6, 20));
    }

    @Test
    void readingTheDamagedBatchThrowsNamingTheFileAndPosition() throws IOException {
        sealedSegmentThenActive().close();
        int damaged = batchPositions(segment(0)).get(10);
        flipByte(segment(0), damaged + Damage.RECORDS.at);

        PartitionLog log = open();

        for (long offset : new long[] {20, 21, 20}) {
            CorruptBatchException e =
                    catchThrowableOfType(CorruptBatchException.class, () -> log.read(offset, 1 << 20, false));
            assertThat(e).as("reading offset %d", offset).isNotNull();
            assertThat(e.file()).isEqualTo(segment(0));
            assertThat(e.position()).isEqualTo(damaged);
            assertThat(e.getMessage()).contains(segment(0).toString()).contains("position " + damaged);
        }
    }

    @Test
    void batchesAfterADamagedBatchStayReadableByOffset() throws IOException {
        sealedSegmentThenActive().close();
        flipByte(segment(0), batchPositions(segment(0)).get(10) + Damage.RECORDS.at);

        PartitionLog log = open();

        assertThat(offsetsReadFrom(log, 22))
                .as("before any read found the damage")
                .isEqualTo(range(22, 40));
        assertThat(offsetsReadFrom(log, 0)).isEqualTo(range(0, 20));
        assertThat(offsetsReadFrom(log, 22)).as("after a read found the damage").isEqualTo(range(22, 40));
        assertThat(offsetsReadFrom(log, 35)).isEqualTo(range(34, 40));
        assertThat(offsetsReadFrom(log, 40)).isEqualTo(range(40, 50));
    }

    @Test
    void damageInASealedSegmentSurvivesAnUncleanRestartUntouched() throws IOException {
        PartitionLog running = sealedSegmentThenActive();
        running.closeUncleanly();
        int damaged = batchPositions(segment(0)).get(10);
        flipByte(segment(0), damaged + Damage.RECORDS.at);
        long size = Files.size(segment(0));

        PartitionLog log = open();

        assertThat(log.recoveredCleanly()).isFalse();
        assertThat(log.logEndOffset()).isEqualTo(50);
        assertThat(Files.size(segment(0))).isEqualTo(size);
        assertThat(offsetsReadFrom(log, 0)).isEqualTo(range(0, 20));
        assertThatThrownBy(() -> log.read(20, 1 << 20, false))
                .isInstanceOfSatisfying(
                        CorruptBatchException.class,
                        e -> assertThat(e.position()).isEqualTo(damaged));
        assertThat(offsetsReadFrom(log, 22)).isEqualTo(range(22, 40));
    }

    /**
     * The disk damages a batch in the middle of the active segment while the broker runs; more batches follow;
     * then the broker dies. Recovery scans the active segment: the damaged batch is followed by valid ones,
     * so it is media damage, not a torn write, and nothing after it may be cut.
     */
    @ParameterizedTest
    @EnumSource(Damage.class)
    void damageInTheActiveSegmentIsNotMistakenForATornTailByRecovery(Damage damage) throws IOException {
        PartitionLog running = open();
        appendBatches(running, 5);
        running.forceRoll();
        appendBatches(running, 10); // batches 0..9 of segment 10: offsets 10..29
        int damaged = batchPositions(segment(10)).get(5); // offsets 20, 21
        flipByte(segment(10), damaged + damage.at);
        appendBatches(running, 10); // offsets 30..49
        running.closeUncleanly();
        long size = Files.size(segment(10));

        PartitionLog log = open();

        assertThat(log.recoveredCleanly()).isFalse();
        assertThat(log.logEndOffset()).as("nothing after the damage cut").isEqualTo(50);
        assertThat(Files.size(segment(10))).isEqualTo(size);
        assertThat(offsetsReadFrom(log, 10)).as("never served").isEqualTo(range(10, 20));
        assertThatThrownBy(() -> log.read(20, 1 << 20, false))
                .isInstanceOfSatisfying(CorruptBatchException.class, e -> {
                    assertThat(e.file()).isEqualTo(segment(10));
                    assertThat(e.position()).isEqualTo(damaged);
                });
        assertThat(offsetsReadFrom(log, 48)).isEqualTo(range(48, 50));
        AppendResult after = log.append(TestBatches.batch(T0, null, "after"));
        log.awaitDurable(after.endOffset()).join();
        assertThat(after.firstOffset()).isEqualTo(50);
        assertThat(offsetsReadFrom(log, 50)).containsExactly(50L);
    }

    @Test
    void uncleanRestartKeepsTheBatchesAfterMidFileDamageButCutsATornTail() throws IOException {
        PartitionLog running = open();
        appendBatches(running, 20);
        int damaged = batchPositions(segment(0)).get(10);
        flipByte(segment(0), damaged + Damage.RECORDS.at);
        running.closeUncleanly();
        long size = Files.size(segment(0));
        appendTornBatch(segment(0));

        PartitionLog log = open();

        assertThat(log.logEndOffset()).isEqualTo(40);
        assertThat(Files.size(segment(0))).as("only the torn tail cut").isEqualTo(size);
        assertThat(offsetsReadFrom(log, 0)).isEqualTo(range(0, 20));
        assertThatThrownBy(() -> log.read(21, 1 << 20, false))
                .isInstanceOfSatisfying(
                        CorruptBatchException.class,
                        e -> assertThat(e.position()).isEqualTo(damaged));
        assertThat(offsetsReadFrom(log, 22)).isEqualTo(range(22, 40));
        assertThat(offsetsReadFrom(log, 33)).isEqualTo(range(32, 40));
    }

    /** Half of a batch at the end of the file: what a crash in the middle of a write leaves. */
    private static void appendTornBatch(Path segment) throws IOException {
        ByteBuffer half = TestBatches.batch(T0, null, "torn", null, "write");
        half.limit(half.limit() / 2);
        try (FileChannel ch = FileChannel.open(segment, StandardOpenOption.APPEND)) {
            ch.write(half);
        }
    }

    @Test
    void uncleanRestartCutsAPartialBatchAtTheTail() throws IOException {
        PartitionLog running = open();
        appendBatches(running, 20);
        running.closeUncleanly();
        long size = Files.size(segment(0));
        appendTornBatch(segment(0));

        PartitionLog log = open();

        assertThat(log.logEndOffset()).isEqualTo(40);
        assertThat(Files.size(segment(0))).isEqualTo(size);
        assertThat(offsetsReadFrom(log, 0)).isEqualTo(range(0, 40));
        appendBatches(log, 1);
        assertThat(offsetsReadFrom(log, 38)).isEqualTo(range(38, 42));
    }

    /**
     * A last batch of full length that fails its CRC cannot be told from a torn write whose final sector holds
     * garbage: nothing valid follows it, so recovery cuts it.
     */
    @Test
    void uncleanRestartCutsADamagedLastBatchAsATornWrite() throws IOException {
        PartitionLog running = open();
        appendBatches(running, 20);
        running.closeUncleanly();
        int last = batchPositions(segment(0)).getLast();
        flipByte(segment(0), last + Damage.RECORDS.at);

        PartitionLog log = open();

        assertThat(log.logEndOffset()).isEqualTo(38);
        assertThat(Files.size(segment(0))).isEqualTo(last);
        assertThat(offsetsReadFrom(log, 0)).isEqualTo(range(0, 38));
        appendBatches(log, 1);
        assertThat(offsetsReadFrom(log, 36)).isEqualTo(range(36, 40));
    }
}
