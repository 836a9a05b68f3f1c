package io.orderflow.broker.log;

import static io.orderflow.broker.log.TestBatches.batch;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import io.orderflow.broker.log.LogCleaner.CleanResult;
import io.orderflow.broker.log.TestBatches.Read;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.CompressionType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class LogCleanerTest {
    private static final long T0 = 1_700_000_000_000L;
    private static final long DELETE_RETENTION_MS = 1_000;
    private static final Executor INLINE = Runnable::run;

    @TempDir
    Path dir;

    private final ManualClock clock = new ManualClock(T0);
    private final LogCleaner cleaner = new LogCleaner(clock);
    private final List<PartitionLog> opened = new ArrayList<>();

    @AfterEach
    void tearDown() {
        opened.forEach(PartitionLog::close);
    }

    private static LogConfig compacted() {
        return LogConfig.defaults()
                .with(LogConfig.CLEANUP_POLICY, "compact")
                .with(LogConfig.DELETE_RETENTION_MS, Long.toString(DELETE_RETENTION_MS))
                .with(LogConfig.FILE_DELETE_DELAY_MS, "0");
    }

    private PartitionLog open(LogConfig config) {
        PartitionLog log = PartitionLog.open("offsets-0", dir, config, clock, LogFiles.real(), INLINE);
        opened.add(log);
        return log;
    }

    /** Closes {@code log} as a crash would and opens the directory again. */
    private PartitionLog crashAndReopen(PartitionLog log) {
        log.closeUncleanly();
        opened.remove(log);
        return open(log.config());
    }

    private static void append(PartitionLog log, ByteBuffer batch) {
        log.awaitDurable(log.append(batch).endOffset()).join();
    }

    /** Offsets 0-5: keys k1..k3 overwritten in the sealed segment, then one record in the active segment. */
    private PartitionLog logWithOverwrites(LogConfig config) {
        PartitionLog log = open(config);
        append(log, batch(T0, "k1", "a", "k2", "b"));
        append(log, batch(T0, "k1", "c"));
        append(log, batch(T0, "k3", "d", "k2", "e"));
        log.forceRoll();
        append(log, batch(T0, "k1", "f"));
        return log;
    }

    @Test
    void keepsTheLatestValueOfEachKeyAtItsOriginalOffset() {
        PartitionLog log = logWithOverwrites(compacted());

        CleanResult result = cleaner.clean(log);

        assertThat(TestBatches.readAll(log))
                .extracting(Read::offset, Read::key, Read::value)
                .containsExactly(
                        tuple(2L, "k1", "c"), tuple(3L, "k3", "d"), tuple(4L, "k2", "e"), tuple(5L, "k1", "f"));
        assertThat(result.segmentsRewritten()).isEqualTo(1);
        assertThat(result.recordsRead()).isEqualTo(5);
        assertThat(result.recordsRetained()).isEqualTo(3);
        assertThat(result.distinctKeys()).isEqualTo(3);
        assertThat(result.complete()).isTrue();
        assertThat(result.bytesRetained()).isLessThan(result.bytesRead());
        assertThat(log.logStartOffset()).isZero();
        assertThat(log.logEndOffset()).isEqualTo(6);
    }

    @Test
    void neverTouchesTheActiveSegment() throws IOException {
        PartitionLog log = logWithOverwrites(compacted());
        append(log, batch(T0, "k1", "g", "k1", "h"));
        Path active = dir.resolve(LogSegment.fileName(5, LogSegment.LOG_SUFFIX));
        byte[] before = Files.readAllBytes(active);

        cleaner.clean(log);

        assertThat(Files.readAllBytes(active)).isEqualTo(before);
        assertThat(TestBatches.readAll(log, 5))
                .extracting(Read::offset, Read::value)
                .containsExactly(tuple(5L, "f"), tuple(6L, "g"), tuple(7L, "h"));
    }

    @Test
    void doesNothingWithoutASealedSegment() throws IOException {
        PartitionLog log = open(compacted());
        append(log, batch(T0, "k1", "a", "k1", "b"));
        Map<Path, byte[]> before = filesIn(dir);

        assertThat(cleaner.clean(log)).isEqualTo(CleanResult.NOTHING);
        assertThat(filesIn(dir)).containsOnlyKeys(before.keySet());
        assertThat(TestBatches.readAll(log)).extracting(Read::value).containsExactly("a", "b");
    }

    @Test
    void leavesLogsWithTheDeletePolicyAlone() throws IOException {
        PartitionLog log = logWithOverwrites(LogConfig.defaults().with(LogConfig.CLEANUP_POLICY, "delete"));
        List<Read> before = TestBatches.readAll(log);
        Map<Path, byte[]> files = filesIn(dir);

        assertThat(cleaner.clean(log)).isEqualTo(CleanResult.NOTHING);

        assertThat(TestBatches.readAll(log)).isEqualTo(before);
        Map<Path, byte[]> after = filesIn(dir);
        assertThat(after).containsOnlyKeys(files.keySet());
        files.forEach(
                (path, bytes) -> assertThat(after.get(path)).as(path.toString()).isEqualTo(bytes));
    }

    @Test
    void compactsLogsWithTheCompactDeletePolicy() {
        PartitionLog log = logWithOverwrites(compacted().with(LogConfig.CLEANUP_POLICY, "compact,delete"));

        assertThat(cleaner.clean(log).segmentsRewritten()).isEqualTo(1);
        assertThat(TestBatches.readAll(log)).extracting(Read::offset).containsExactly(2L, 3L, 4L, 5L);
    }

    @Test
    void keepsTombstonesUntilTheDeleteHorizonHasPassed() {
        PartitionLog log = open(compacted());
        append(log, batch(T0 - 10 * DELETE_RETENTION_MS, "k1", "a", "k2", "b"));
        append(log, batch(T0 - 10 * DELETE_RETENTION_MS, "k1", null));
        log.forceRoll();
        append(log, batch(T0, "k3", "c"));

        // The first cleaning removes the value the tombstone deletes and stamps the horizon, however old the
        // tombstone's own timestamp is.
        cleaner.clean(log);
        List<Read> withTombstone = List.of(
                new Read(1, T0 - 10 * DELETE_RETENTION_MS, "k2", "b"),
                new Read(2, T0 - 10 * DELETE_RETENTION_MS, "k1", null),
                new Read(3, T0, "k3", "c"));
        assertThat(TestBatches.readAll(log)).isEqualTo(withTombstone);

        clock.advance(DELETE_RETENTION_MS - 1);
        assertThat(cleaner.clean(log).segmentsRewritten()).isZero();
        assertThat(TestBatches.readAll(log)).isEqualTo(withTombstone);

        clock.advance(1);
        assertThat(cleaner.clean(log).segmentsRewritten()).isEqualTo(1);
        assertThat(TestBatches.readAll(log)).isEqualTo(List.of(withTombstone.get(0), withTombstone.get(2)));
    }

    @Test
    void aTombstoneBehindANewerValueGoesAtOnce() {
        PartitionLog log = open(compacted());
        append(log, batch(T0, "k1", "a"));
        append(log, batch(T0, "k1", null));
        append(log, batch(T0, "k1", "b"));
        log.forceRoll();

        cleaner.clean(log);

        assertThat(TestBatches.readAll(log))
                .extracting(Read::offset, Read::value)
                .containsExactly(tuple(2L, "b"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"gzip", "lz4", "zstd", "snappy"})
    void compactsCompressedBatchesIntoValidBatchesOfTheSameCodec(String codec) {
        Compression compression = Compression.of(codec).build();
        PartitionLog log = open(compacted());
        append(log, TestBatches.compressed(compression, T0, "k1", "a", "k2", "b", "k3", "c", "k1", "d"));
        append(log, TestBatches.compressed(compression, T0, "k2", "e", "k4", null, "k5", "f"));
        log.forceRoll();

        cleaner.clean(log);

        ByteBuffer sealed = log.sealedSegments()
                .getFirst()
                .read(0, Integer.MAX_VALUE, Long.MAX_VALUE)
                .read();
        List<RecordBatch> batches = new ArrayList<>();
        MemoryRecords.readableRecords(sealed).batches().forEach(batches::add);
        assertThat(batches).allSatisfy(b -> assertThat(b.compressionType()).isEqualTo(CompressionType.forName(codec)));
        assertThat(batches)
                .extracting(RecordBatch::baseOffset, RecordBatch::lastOffset)
                .containsExactly(tuple(0L, 3L), tuple(4L, 6L));
        assertThat(TestBatches.decode(sealed)) // decode runs ensureValid on every batch
                .extracting(Read::offset, Read::key, Read::value)
                .containsExactly(
                        tuple(2L, "k3", "c"),
                        tuple(3L, "k1", "d"),
                        tuple(4L, "k2", "e"),
                        tuple(5L, "k4", null),
                        tuple(6L, "k5", "f"));
    }

    private static String paddedKey(int i) {
        return String.format("key-%05d-", i) + "x".repeat(110);
    }

    @Test
    void compactsSegmentsLargerThanAChunkWhoseBatchesGrowWhenStamped() {
        // Stamping the delete horizon rewrites each record's timestamp delta in a longer varint, so the
        // first chunk's output outgrows its buffer: filterTo stops early and the cleaner goes on from there.
        PartitionLog log = open(compacted()
                .with(LogConfig.DELETE_RETENTION_MS, Long.toString(24L * 60 * 60 * 1000))
                .with(LogConfig.FLUSH_MESSAGES, Long.toString(Long.MAX_VALUE)));
        int tombstones = 9_000;
        int overwritten = 1_000;
        int perBatch = 40;
        for (int first = 0; first < tombstones; first += perBatch) {
            String[] kvs = new String[2 * perBatch];
            for (int i = 0; i < perBatch; i++) {
                kvs[2 * i] = paddedKey(first + i);
            }
            append(log, batch(T0, kvs));
        }
        // overwrite the last keys, so that the first chunk keeps every record
        for (int first = tombstones - overwritten; first < tombstones; first += perBatch) {
            String[] kvs = new String[2 * perBatch];
            for (int i = 0; i < perBatch; i++) {
                kvs[2 * i] = paddedKey(first + i);
                kvs[2 * i + 1] = "v" + (first + i);
            }
            append(log, batch(T0, kvs));
        }
        log.forceRoll();
        assertThat(log.sizeInBytes()).isGreaterThan(LogCleaner.CHUNK_BYTES);

        CleanResult result = cleaner.clean(log);

        assertThat(result.recordsRead()).isEqualTo(tombstones + overwritten);
        assertThat(result.recordsRetained()).isEqualTo(tombstones);
        List<Read> reads = TestBatches.readAll(log);
        assertThat(reads).hasSize(tombstones);
        for (int i = 0; i < tombstones; i++) {
            Read expected = i < tombstones - overwritten
                    ? new Read(i, T0, paddedKey(i), null)
                    : new Read(i + overwritten, T0, paddedKey(i), "v" + i);
            assertThat(reads.get(i)).isEqualTo(expected);
        }
    }

    @Test
    void compactsABatchLargerThanAChunk() {
        PartitionLog log = open(compacted().with(LogConfig.MAX_MESSAGE_BYTES, Integer.toString(4 * 1024 * 1024)));
        String big = "v".repeat(10_000);
        String[] kvs = new String[2 * 150];
        for (int i = 0; i < 150; i++) {
            kvs[2 * i] = "k" + i;
            kvs[2 * i + 1] = big + i;
        }
        append(log, batch(T0, kvs));
        append(log, batch(T0, "k0", "new"));
        log.forceRoll();

        cleaner.clean(log);

        List<Read> reads = TestBatches.readAll(log);
        assertThat(reads)
                .extracting(Read::offset)
                .containsExactlyElementsOf(
                        LongStream.rangeClosed(1, 150).boxed().toList());
        assertThat(reads.get(0).value()).isEqualTo(big + 1);
        assertThat(reads.getLast().value()).isEqualTo("new");
    }

    @Test
    void keepsRecordsWithoutAKeyWrittenBeforeTheTopicWasCompacted() {
        // An append to a compacted topic refuses keyless records; a topic switched to compact keeps its old ones.
        PartitionLog log = open(compacted().with(LogConfig.CLEANUP_POLICY, "delete"));
        append(log, batch(T0, null, "x", "k1", "a", null, "y"));
        log.updateConfig(compacted());
        append(log, batch(T0, "k1", "b"));
        log.forceRoll();

        cleaner.clean(log);

        assertThat(TestBatches.readAll(log))
                .extracting(Read::offset, Read::value)
                .containsExactly(tuple(0L, "x"), tuple(2L, "y"), tuple(3L, "b"));
    }

    @Test
    void servesEveryOffsetAfterCompaction() {
        PartitionLog log = logWithOverwrites(compacted());
        append(log, batch(T0, "k2", "g"));
        log.forceRoll();
        append(log, batch(T0, "k1", "h"));
        List<Read> all = TestBatches.readAll(log);

        cleaner.clean(log);

        List<Read> compacted = TestBatches.readAll(log);
        assertThat(compacted).extracting(Read::offset).containsExactly(3L, 5L, 6L, 7L);
        for (long offset = 0; offset < log.logEndOffset(); offset++) {
            long from = offset;
            List<Read> expected =
                    compacted.stream().filter(r -> r.offset() >= from).toList();
            assertThat(TestBatches.readAll(log, offset))
                    .as("fetch from %d", offset)
                    .isEqualTo(expected);
        }
        // every key still reads as it did before compaction
        assertThat(latestByKey(compacted)).isEqualTo(latestByKey(all));
    }

    @Test
    void swapsInASegmentThatLostEveryRecordAsAnEmptySegment() {
        PartitionLog log = open(compacted());
        append(log, batch(T0, "k1", "a"));
        log.forceRoll();
        append(log, batch(T0, "k1", "b"));
        log.forceRoll();
        int segments = log.segmentCount();

        assertThat(cleaner.clean(log).segmentsRewritten()).isEqualTo(1);

        assertThat(log.segmentCount()).isEqualTo(segments);
        assertThat(log.sealedSegments().getFirst().size()).isZero();
        assertThat(log.logStartOffset()).isZero();
        assertThat(TestBatches.readAll(log))
                .extracting(Read::offset, Read::value)
                .containsExactly(tuple(1L, "b"));

        log.close();
        opened.remove(log);
        PartitionLog reopened = open(compacted());
        assertThat(reopened.logStartOffset()).isZero();
        assertThat(reopened.logEndOffset()).isEqualTo(2);
        assertThat(TestBatches.readAll(reopened))
                .extracting(Read::offset, Read::value)
                .containsExactly(tuple(1L, "b"));
    }

    @Test
    void cleaningTwiceRewritesNothingTheSecondTime() {
        PartitionLog log = logWithOverwrites(compacted());
        cleaner.clean(log);
        List<Read> once = TestBatches.readAll(log);

        CleanResult again = cleaner.clean(log);

        assertThat(again.segmentsRewritten()).isZero();
        assertThat(again.recordsRetained()).isEqualTo(again.recordsRead());
        assertThat(TestBatches.readAll(log)).isEqualTo(once);
    }

    @Test
    void keepsTheLastBatchOfAnIdempotentProducerAsAnEmptyBatch() {
        PartitionLog log = open(compacted());
        append(log, TestBatches.idempotent(7, (short) 0, 0, T0, "k1", "a"));
        append(log, TestBatches.idempotent(7, (short) 0, 1, T0, "k2", "b", "k3", "c"));
        append(log, batch(T0, "k1", "x", "k2", "y", "k3", "z"));
        log.forceRoll();

        cleaner.clean(log);

        List<BatchHeader> headers = new ArrayList<>();
        log.sealedSegments().getFirst().forEachBatch(headers::add);
        // the producer's first batch is gone; its last one is kept, empty, with its offsets and sequences
        assertThat(headers)
                .extracting(
                        BatchHeader::baseOffset,
                        BatchHeader::lastOffset,
                        BatchHeader::producerId,
                        BatchHeader::baseSequence,
                        BatchHeader::lastSequence,
                        BatchHeader::recordCount)
                .containsExactly(tuple(1L, 2L, 7L, 1, 2, 0), tuple(3L, 5L, -1L, -1, -1, 3));
        assertThat(TestBatches.readAll(log)).extracting(Read::value).containsExactly("x", "y", "z");
    }

    @Test
    void keepsTheLastSequenceOfABatchWhoseLastRecordWasRemoved() {
        PartitionLog log = open(compacted());
        append(log, TestBatches.idempotent(7, (short) 0, 0, T0, "k1", "a", "k2", "b"));
        append(log, TestBatches.idempotent(7, (short) 0, 2, T0, "k2", "c"));
        append(log, batch(T0, "k2", "d"));
        log.forceRoll();

        cleaner.clean(log);

        List<BatchHeader> headers = new ArrayList<>();
        log.sealedSegments().getFirst().forEachBatch(headers::add);
        assertThat(headers)
                .extracting(
                        BatchHeader::baseOffset,
                        BatchHeader::lastOffset,
                        BatchHeader::lastSequence,
                        BatchHeader::recordCount)
                .containsExactly(tuple(0L, 1L, 1, 1), tuple(2L, 2L, 2, 0), tuple(3L, 3L, -1, 1));
    }

    @Test
    void stopsDeduplicatingWhereTheKeyMapIsFullAndStaysCorrect() {
        PartitionLog log = open(compacted());
        append(log, batch(T0, "k1", "a", "k2", "b", "k1", "c"));
        log.forceRoll();
        append(log, batch(T0, "k3", "d", "k3", "e", "k1", "f"));
        log.forceRoll();
        append(log, batch(T0, "k2", "g", "k2", "h"));
        log.forceRoll();
        List<Read> before = TestBatches.readAll(log);

        CleanResult result = new LogCleaner(clock, 2, LogCleaner.DEFAULT_MAX_RECORD_BODY_BYTES).clean(log);

        // k3 at offset 3 is the third key: the first segment is deduplicated with what was mapped, the
        // segment holding offset 3 is copied keeping everything from 3 on, the third is not reached.
        assertThat(result.unmappedFrom()).isEqualTo(3);
        assertThat(result.complete()).isFalse();
        assertThat(result.distinctKeys()).isEqualTo(2);
        assertThat(TestBatches.readAll(log)).extracting(Read::offset).containsExactly(1L, 2L, 3L, 4L, 5L, 6L, 7L);
        assertThat(latestByKey(TestBatches.readAll(log))).isEqualTo(latestByKey(before));
    }

    @Test
    void refusesToCleanALogItIsAlreadyCleaning() {
        PartitionLog log = logWithOverwrites(compacted());

        cleaner.clean(log, cleaned -> {
            assertThatThrownBy(() -> cleaner.clean(log))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("offsets-0");
            log.swapIn(cleaned);
        });

        assertThat(TestBatches.readAll(log)).extracting(Read::offset).containsExactly(2L, 3L, 4L, 5L);
    }

    // --- crashes ---

    private static final class SimulatedCrash extends RuntimeException {
        SimulatedCrash() {
            super("simulated crash");
        }
    }

    /** Runs a cleaning whose swap step does {@code partialSwap} and then "crashes". */
    private void cleanAndCrashDuringSwap(PartitionLog log, Consumer<LogSegment> partialSwap) {
        assertThatThrownBy(() -> cleaner.clean(log, cleaned -> {
                    partialSwap.accept(cleaned);
                    cleaned.close();
                    throw new SimulatedCrash();
                }))
                .isInstanceOf(SimulatedCrash.class);
    }

    private static final List<Long> COMPACTED_OFFSETS = List.of(2L, 3L, 4L, 5L);

    @Test
    void crashWhileTheCopyIsUnfinishedLeavesTheOriginalLog() throws IOException {
        PartitionLog log = logWithOverwrites(compacted());
        List<Read> original = TestBatches.readAll(log);

        cleanAndCrashDuringSwap(log, cleaned -> {});
        assertThat(dir.resolve(LogSegment.fileName(0, LogSegment.LOG_SUFFIX) + ".cleaned"))
                .exists();
        PartitionLog reopened = crashAndReopen(log);

        assertThat(TestBatches.readAll(reopened)).isEqualTo(original);
        assertThat(filesIn(dir).keySet()).noneMatch(p -> p.toString().endsWith(".cleaned"));
        assertThat(cleaner.clean(reopened).segmentsRewritten()).isEqualTo(1);
        assertThat(TestBatches.readAll(reopened)).extracting(Read::offset).isEqualTo(COMPACTED_OFFSETS);
    }

    @Test
    void crashRightAfterTheSwapCommitPointLeavesTheCompactedLog() throws IOException {
        PartitionLog log = logWithOverwrites(compacted());

        cleanAndCrashDuringSwap(log, cleaned -> {
            cleaned.flush();
            cleaned.changeSuffix(".swap");
        });
        PartitionLog reopened = crashAndReopen(log);

        assertThat(TestBatches.readAll(reopened)).extracting(Read::offset).isEqualTo(COMPACTED_OFFSETS);
        assertThat(filesIn(dir).keySet()).noneMatch(p -> p.toString().endsWith(".swap"));
        assertThat(reopened.logEndOffset()).isEqualTo(6);
    }

    @Test
    void crashHalfwayThroughTheSwapLeavesTheCompactedLog() {
        PartitionLog log = logWithOverwrites(compacted());
        LogSegment original = log.sealedSegments().getFirst();

        cleanAndCrashDuringSwap(log, cleaned -> {
            cleaned.flush();
            cleaned.changeSuffix(".swap");
            original.changeSuffix(".deleted");
        });
        PartitionLog reopened = crashAndReopen(log);

        assertThat(TestBatches.readAll(reopened)).extracting(Read::offset).isEqualTo(COMPACTED_OFFSETS);
    }

    @Test
    void crashBetweenTwoSegmentSwapsLeavesAValidLogWithEveryLatestValue() {
        PartitionLog log = open(compacted());
        append(log, batch(T0, "k1", "a", "k2", "b"));
        log.forceRoll();
        append(log, batch(T0, "k1", "c", "k2", "d", "k2", "e"));
        log.forceRoll();
        append(log, batch(T0, "k3", "f"));
        List<Read> original = TestBatches.readAll(log);

        int[] swaps = {0};
        assertThatThrownBy(() -> cleaner.clean(log, cleaned -> {
                    if (swaps[0]++ == 0) {
                        log.swapIn(cleaned);
                    } else {
                        cleaned.close();
                        throw new SimulatedCrash();
                    }
                }))
                .isInstanceOf(SimulatedCrash.class);
        PartitionLog reopened = crashAndReopen(log);

        List<Read> afterCrash = TestBatches.readAll(reopened);
        assertThat(afterCrash).extracting(Read::offset).containsExactly(2L, 3L, 4L, 5L);
        assertThat(latestByKey(afterCrash)).isEqualTo(latestByKey(original));
    }

    // --- helpers ---

    /** Every record from {@code from} to the high watermark, fetched the way a Kafka consumer fetches. */
    /** Key → value of its latest record (null for a tombstone). */
    static Map<String, String> latestByKey(List<Read> reads) {
        Map<String, String> latest = new TreeMap<>();
        for (Read r : reads) {
            if (r.key() != null) {
                latest.put(r.key(), r.value());
            }
        }
        return latest;
    }

    private static Map<Path, byte[]> filesIn(Path dir) throws IOException {
        Map<Path, byte[]> files = new LinkedHashMap<>();
        try (Stream<Path> paths = Files.list(dir)) {
            paths.sorted().forEach(p -> {
                try {
                    files.put(p.getFileName(), Files.readAllBytes(p));
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        }
        return files;
    }
}
