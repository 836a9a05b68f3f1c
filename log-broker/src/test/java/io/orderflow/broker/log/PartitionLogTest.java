package io.orderflow.broker.log;

import static io.orderflow.broker.log.TestBatches.batch;
import static io.orderflow.broker.log.TestBatches.readAll;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.compress.Compression;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class PartitionLogTest {
    private static final long T0 = 1_700_000_000_000L;

    @TempDir
    Path dir;

    private final ManualClock clock = new ManualClock(T0);
    private final ExecutorService flusher = Executors.newSingleThreadExecutor();
    private final List<PartitionLog> opened = new ArrayList<>();

    @AfterEach
    void tearDown() {
        opened.forEach(PartitionLog::close);
        flusher.shutdownNow();
    }

    private PartitionLog open(LogConfig config) {
        return open(config, LogFiles.real());
    }

    private PartitionLog open(LogConfig config, LogFiles files) {
        PartitionLog log = PartitionLog.open("orders-0", dir, config, clock, files, flusher);
        opened.add(log);
        return log;
    }

    private static AppendResult appendDurably(PartitionLog log, ByteBuffer records) {
        AppendResult result = log.append(records);
        log.awaitDurable(result.endOffset()).join();
        return result;
    }

    @Test
    void assignsConsecutiveOffsetsAndReadsBackWholeBatches() {
        PartitionLog log = open(LogConfig.defaults());
        AppendResult first = appendDurably(log, batch(T0, "k1", "a", "k2", "b"));
        AppendResult second = appendDurably(log, batch(T0, "k1", "c"));

        assertThat(first.firstOffset()).isZero();
        assertThat(first.lastOffset()).isEqualTo(1);
        assertThat(second.firstOffset()).isEqualTo(2);
        assertThat(log.logEndOffset()).isEqualTo(3);
        assertThat(readAll(log))
                .extracting(TestBatches.Read::offset, TestBatches.Read::value)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple(0L, "a"),
                        org.assertj.core.groups.Tuple.tuple(1L, "b"),
                        org.assertj.core.groups.Tuple.tuple(2L, "c"));
    }

    @Test
    void readReturnsTheWholeBatchContainingTheRequestedOffset() {
        PartitionLog log = open(LogConfig.defaults());
        appendDurably(log, batch(T0, null, "a", null, "b", null, "c"));

        LogReadResult result = log.read(1, 1024, false);

        assertThat(TestBatches.decode(result.records().read()))
                .extracting(TestBatches.Read::offset)
                .containsExactly(0L, 1L, 2L);
    }

    @Test
    void readReturnsAtLeastOneBatchEvenWhenLargerThanMaxBytes() {
        PartitionLog log = open(LogConfig.defaults());
        appendDurably(log, TestBatches.sized(T0, 10, 500));
        appendDurably(log, TestBatches.sized(T0, 10, 500));

        LogReadResult result = log.read(0, 10, false);

        assertThat(TestBatches.decode(result.records().read())).hasSize(10);
    }

    @Test
    void storesACompressedBatchByteForByte() {
        PartitionLog log = open(LogConfig.defaults());
        ByteBuffer sent = TestBatches.compressed(Compression.zstd().build(), T0, "k", "v1", "k", "v2");
        ByteBuffer copy =
                ByteBuffer.allocate(sent.remaining()).put(sent.duplicate()).flip();

        appendDurably(log, sent);
        ByteBuffer stored = log.read(0, 1 << 20, false).records().read();

        assertThat(stored).isEqualTo(copy); // base offset 0 was already 0; every other byte is as sent
        assertThat(readAll(log)).extracting(TestBatches.Read::value).containsExactly("v1", "v2");
    }

    @Test
    void rollsBySizeAndReadsAcrossSegments() {
        PartitionLog log = open(LogConfig.defaults().with(LogConfig.SEGMENT_BYTES, "4096"));
        for (int i = 0; i < 20; i++) {
            appendDurably(log, TestBatches.sized(T0, 5, 100));
        }
        assertThat(log.segmentCount()).isGreaterThan(3);
        assertThat(readAll(log))
                .hasSize(100)
                .extracting(TestBatches.Read::offset)
                .isSorted();
        assertThat(readAll(log, 57).getFirst().offset()).isEqualTo(57);
    }

    @Test
    void rollsByAgeOfTheFirstBatch() {
        PartitionLog log = open(LogConfig.defaults().with(LogConfig.SEGMENT_MS, "60000"));
        appendDurably(log, batch(T0, null, "a"));
        clock.advance(59_999);
        appendDurably(log, batch(clock.millis(), null, "b"));
        assertThat(log.segmentCount()).isEqualTo(1);
        clock.advance(1);
        appendDurably(log, batch(clock.millis(), null, "c"));
        assertThat(log.segmentCount()).isEqualTo(2);
    }

    @Test
    void findsTheFirstOffsetAtOrAfterATimestamp() {
        PartitionLog log = open(LogConfig.defaults().with(LogConfig.SEGMENT_BYTES, "2048"));
        for (int i = 0; i < 50; i++) {
            appendDurably(log, batch(T0 + i * 1000L, null, "v" + i, null, "w" + i));
        }
        assertThat(log.offsetForTimestamp(T0 + 10_000)).isEqualTo(new TimestampOffset(T0 + 10_000, 20));
        assertThat(log.offsetForTimestamp(T0 + 10_001)).isEqualTo(new TimestampOffset(T0 + 11_000, 22));
        assertThat(log.offsetForTimestamp(0)).isEqualTo(new TimestampOffset(T0, 0));
        assertThat(log.offsetForTimestamp(T0 + 50_000)).isNull();
    }

    @Test
    void timeRetentionDeletesWholeExpiredSegmentsButNeverTheActiveOne() {
        PartitionLog log = open(LogConfig.defaults()
                .with(LogConfig.SEGMENT_BYTES, "2048")
                .with(LogConfig.RETENTION_MS, "10000")
                .with(LogConfig.FILE_DELETE_DELAY_MS, "0"));
        for (int i = 0; i < 30; i++) {
            appendDurably(log, TestBatches.sized(T0 + i * 1000L, 2, 100));
        }
        int before = log.segmentCount();
        clock.set(T0 + 1_000_000); // everything is expired now

        int removed = log.deleteRetainedSegments();
        log.tick();

        assertThat(removed).isEqualTo(before - 1);
        assertThat(log.segmentCount()).isEqualTo(1);
        assertThat(log.logStartOffset()).isGreaterThan(0).isLessThan(log.logEndOffset());
        assertThat(readAll(log).getFirst().offset()).isGreaterThanOrEqualTo(log.logStartOffset());
        assertThatThrownBy(() -> log.read(0, 100, false)).isInstanceOf(OffsetOutOfRangeException.class);
        try (var files = Files.list(dir)) {
            assertThat(files.filter(p -> p.toString().endsWith(".log"))).hasSize(1);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void sizeRetentionKeepsTheLogUnderTheLimitInWholeSegments() {
        PartitionLog log = open(
                LogConfig.defaults().with(LogConfig.SEGMENT_BYTES, "2048").with(LogConfig.RETENTION_BYTES, "5000"));
        for (int i = 0; i < 40; i++) {
            appendDurably(log, TestBatches.sized(T0, 2, 100));
        }
        long before = log.sizeInBytes();

        log.deleteRetainedSegments();

        assertThat(before).isGreaterThan(5000);
        assertThat(log.sizeInBytes()).isLessThanOrEqualTo(5000 + 2048);
        assertThat(log.sizeInBytes()).isLessThan(before);
        assertThat(readAll(log).getLast().offset()).isEqualTo(log.logEndOffset() - 1);
    }

    @Test
    void deleteRecordsAdvancesTheLogStartOffsetAndSurvivesARestart() {
        PartitionLog log = open(LogConfig.defaults().with(LogConfig.SEGMENT_BYTES, "2048"));
        for (int i = 0; i < 30; i++) {
            appendDurably(log, TestBatches.sized(T0, 2, 100));
        }
        assertThat(log.advanceLogStartOffset(33)).isEqualTo(33);
        assertThat(log.advanceLogStartOffset(10)).isEqualTo(33);
        assertThatThrownBy(() -> log.advanceLogStartOffset(1000)).isInstanceOf(OffsetOutOfRangeException.class);
        assertThat(readAll(log).getFirst().offset()).isEqualTo(33);
        log.close();
        opened.clear();

        PartitionLog reopened = open(LogConfig.defaults().with(LogConfig.SEGMENT_BYTES, "2048"));

        assertThat(reopened.logStartOffset()).isEqualTo(33);
        assertThat(reopened.logEndOffset()).isEqualTo(60);
    }

    @Test
    void cleanRestartSkipsRecoveryAndKeepsEverything() {
        PartitionLog log = open(LogConfig.defaults().with(LogConfig.SEGMENT_BYTES, "4096"));
        for (int i = 0; i < 40; i++) {
            appendDurably(log, batch(T0 + i, "k" + i, "v" + i));
        }
        List<TestBatches.Read> before = readAll(log);
        log.close();
        opened.clear();

        PartitionLog reopened = open(LogConfig.defaults().with(LogConfig.SEGMENT_BYTES, "4096"));

        assertThat(reopened.recoveredCleanly()).isTrue();
        assertThat(readAll(reopened)).isEqualTo(before);
        assertThat(appendDurably(reopened, batch(T0, "k", "v")).firstOffset()).isEqualTo(40);
        assertThat(Files.exists(dir.resolve(LogLoader.CLEAN_SHUTDOWN_FILE))).isFalse();
    }

    @Test
    void indexesThatDisagreeWithTheDataOrAreMissingAreRebuiltOnOpen() throws IOException {
        LogConfig config = LogConfig.defaults().with(LogConfig.INDEX_INTERVAL_BYTES, "256");
        PartitionLog log = open(config);
        for (int i = 0; i < 60; i++) {
            appendDurably(log, batch(T0 + i, "k" + i, "v" + i));
        }
        List<TestBatches.Read> before = readAll(log);
        log.close();
        opened.clear();
        Path index = dir.resolve(LogSegment.fileName(0, LogSegment.INDEX_SUFFIX));
        Path timeIndex = dir.resolve(LogSegment.fileName(0, LogSegment.TIME_INDEX_SUFFIX));
        long indexSize = Files.size(index);
        assertThat(indexSize).isGreaterThan(0);
        // An entry pointing far past the end of the data, as a stale index after a crash could hold.
        Files.write(
                index,
                ByteBuffer.allocate(OffsetIndex.ENTRY_SIZE)
                        .putInt(59)
                        .putInt(1 << 30)
                        .array(),
                java.nio.file.StandardOpenOption.APPEND);
        Files.delete(timeIndex);

        PartitionLog reopened = open(config);

        assertThat(readAll(reopened)).isEqualTo(before);
        assertThat(readAll(reopened, 37).getFirst().offset()).isEqualTo(37);
        assertThat(reopened.offsetForTimestamp(T0 + 30)).isEqualTo(new TimestampOffset(T0 + 30, 30));
        assertThat(Files.size(index)).isEqualTo(indexSize);
        assertThat(Files.size(timeIndex)).isGreaterThan(0);
    }

    @Test
    void uncleanRestartCutsATornTailAndKeepsEveryWholeBatch() throws IOException {
        PartitionLog log = open(LogConfig.defaults());
        for (int i = 0; i < 10; i++) {
            appendDurably(log, batch(T0, "k", "v" + i));
        }
        List<TestBatches.Read> before = readAll(log);
        log.closeUncleanly();
        opened.clear();
        Path segment = dir.resolve(LogSegment.fileName(0, LogSegment.LOG_SUFFIX));
        ByteBuffer half = batch(T0, "k", "torn");
        half.limit(half.limit() / 2);
        try (FileChannel ch = FileChannel.open(segment, java.nio.file.StandardOpenOption.APPEND)) {
            ch.write(half);
        }

        PartitionLog reopened = open(LogConfig.defaults());

        assertThat(reopened.recoveredCleanly()).isFalse();
        assertThat(readAll(reopened)).isEqualTo(before);
        assertThat(appendDurably(reopened, batch(T0, "k", "after")).firstOffset())
                .isEqualTo(10);
    }

    @Test
    void rejectsACorruptBatchFromAProducerAndStoresNothing() {
        PartitionLog log = open(LogConfig.defaults());
        ByteBuffer damaged = batch(T0, "k", "value");
        damaged.put(damaged.limit() - 2, (byte) (damaged.get(damaged.limit() - 2) ^ 0x40));

        assertThatThrownBy(() -> log.append(damaged))
                .isInstanceOf(CorruptBatchException.class)
                .hasMessageContaining("CRC");
        assertThat(log.logEndOffset()).isZero();
        assertThat(log.sizeInBytes()).isZero();
    }

    @ParameterizedTest(name = "cleanup.policy={0}, {1}")
    @CsvSource({"compact, none", "compact, gzip", "'compact,delete', zstd"})
    void refusesARecordWithoutAKeyOnACompactedTopicAndStoresNothingOfTheAppend(String policy, String codec) {
        PartitionLog log = open(LogConfig.defaults().with(LogConfig.CLEANUP_POLICY, policy));
        ByteBuffer keyed = batch(T0, "k1", "a");
        ByteBuffer secondRecordKeyless =
                TestBatches.compressed(Compression.of(codec).build(), T0, "k2", "b", null, "c", "k3", "d");

        assertThatThrownBy(() -> log.append(TestBatches.concat(keyed, secondRecordKeyless)))
                .isInstanceOfSatisfying(RecordWithoutKeyException.class, e -> {
                    assertThat(e.partition()).isEqualTo("orders-0");
                    assertThat(e.batchIndex()).isEqualTo(1);
                    assertThat(e.recordIndex()).isEqualTo(1);
                    assertThat(e.getMessage()).contains("orders-0", "no key");
                });
        assertThat(log.logEndOffset()).isZero();
        assertThat(log.sizeInBytes()).isZero();
    }

    @Test
    void acceptsRecordsWithoutAKeyWhenTheTopicIsNotCompacted() {
        PartitionLog log = open(LogConfig.defaults().with(LogConfig.CLEANUP_POLICY, "delete"));

        AppendResult result = appendDurably(log, batch(T0, null, "a", "k", "b"));

        assertThat(result.lastOffset()).isEqualTo(1);
        assertThat(readAll(log)).extracting(TestBatches.Read::value).containsExactly("a", "b");
    }

    @Test
    void checksTheCrcBeforeReadingTheKeysOfACompressedBatch() {
        PartitionLog log = open(LogConfig.defaults().with(LogConfig.CLEANUP_POLICY, "compact"));
        ByteBuffer damaged = TestBatches.compressed(Compression.gzip().build(), T0, "k", "v".repeat(200));
        for (int i = BatchHeader.SIZE; i < damaged.limit(); i++) {
            damaged.put(i, (byte) (0x5A ^ i)); // garbage where the compressed records were
        }

        assertThatThrownBy(() -> log.append(damaged))
                .isInstanceOf(CorruptBatchException.class)
                .hasMessageContaining("CRC");
        assertThat(log.logEndOffset()).isZero();
    }

    @Test
    void rejectsABatchLargerThanMaxMessageBytes() {
        PartitionLog log = open(LogConfig.defaults().with(LogConfig.MAX_MESSAGE_BYTES, "1000"));

        assertThatThrownBy(() -> log.append(TestBatches.sized(T0, 1, 2000)))
                .isInstanceOf(RecordBatchTooLargeException.class)
                .hasMessageContaining("max.message.bytes=1000");
        assertThat(log.logEndOffset()).isZero();
    }

    @Test
    void idempotentRetryReturnsTheOriginalOffsetsAndWritesNothing() {
        PartitionLog log = open(LogConfig.defaults());
        AppendResult first = appendDurably(log, TestBatches.idempotent(7, (short) 0, 0, T0, "k", "a", "k", "b"));
        appendDurably(log, TestBatches.idempotent(7, (short) 0, 2, T0, "k", "c"));
        long size = log.sizeInBytes();

        AppendResult retry = log.append(TestBatches.idempotent(7, (short) 0, 0, T0, "k", "a", "k", "b"));

        assertThat(retry.duplicate()).isTrue();
        assertThat(retry.firstOffset()).isEqualTo(first.firstOffset());
        assertThat(retry.lastOffset()).isEqualTo(first.lastOffset());
        assertThat(log.sizeInBytes()).isEqualTo(size);
        assertThat(log.logEndOffset()).isEqualTo(3);
    }

    @Test
    void refusesARetriedBatchMixedWithNewOnesAndWritesNothing() {
        PartitionLog log = open(LogConfig.defaults());
        appendDurably(log, TestBatches.idempotent(7, (short) 0, 0, T0, "k", "a"));

        assertThatThrownBy(() -> log.append(TestBatches.concat(
                        TestBatches.idempotent(7, (short) 0, 0, T0, "k", "a"),
                        TestBatches.idempotent(7, (short) 0, 1, T0, "k", "b"))))
                .isInstanceOf(InvalidRecordBatchException.class);
        assertThat(log.logEndOffset()).isEqualTo(1);
    }

    @Test
    void idempotentRetryIsStillRecognisedAfterACleanAndAnUncleanRestart() {
        PartitionLog log = open(LogConfig.defaults());
        appendDurably(log, TestBatches.idempotent(7, (short) 0, 0, T0, "k", "a"));
        log.close();
        opened.clear();
        PartitionLog afterClean = open(LogConfig.defaults());
        assertThat(afterClean
                        .append(TestBatches.idempotent(7, (short) 0, 0, T0, "k", "a"))
                        .duplicate())
                .isTrue();
        appendDurably(afterClean, TestBatches.idempotent(7, (short) 0, 1, T0, "k", "b"));
        afterClean.closeUncleanly();
        opened.clear();

        PartitionLog afterCrash = open(LogConfig.defaults());

        AppendResult retry = afterCrash.append(TestBatches.idempotent(7, (short) 0, 1, T0, "k", "b"));
        assertThat(retry.duplicate()).isTrue();
        assertThat(retry.firstOffset()).isEqualTo(1);
        assertThatThrownBy(() -> afterCrash.append(TestBatches.idempotent(7, (short) 0, 5, T0, "k", "gap")))
                .isInstanceOf(OutOfOrderSequenceException.class);
    }

    @Test
    void underTheDefaultPolicyConsumersSeeOnlyWhatIsOnDisk() {
        List<Runnable> pendingFlushes = new ArrayList<>();
        PartitionLog log =
                PartitionLog.open("orders-0", dir, LogConfig.defaults(), clock, LogFiles.real(), pendingFlushes::add);
        opened.add(log);

        AppendResult result = log.append(batch(T0, "k", "v"));
        CompletableFuture<Void> durable = log.awaitDurable(result.endOffset());

        assertThat(durable).isNotDone();
        assertThat(log.highWatermark()).isZero();
        assertThat(log.read(0, 1024, false).records().isEmpty()).isTrue();

        pendingFlushes.forEach(Runnable::run);

        assertThat(durable).isCompleted();
        assertThat(log.highWatermark()).isEqualTo(1);
        assertThat(readAll(log)).hasSize(1);
    }

    @Test
    void theAppendsOfOneRequestStartNoFsyncAndBecomeReadableInTheSameRound() throws Exception {
        List<Runnable> pendingFlushes = new ArrayList<>();
        CommitRounds rounds = new CommitRounds(pendingFlushes::add);
        List<PartitionLog> logs = new ArrayList<>();
        for (int p = 0; p < 3; p++) {
            Path partitionDir = Files.createDirectories(dir.resolve("spread-" + p));
            PartitionLog log = PartitionLog.open(
                    "spread-" + p, partitionDir, LogConfig.defaults(), clock, LogFiles.real(), rounds);
            opened.add(log);
            logs.add(log);
        }

        Map<PartitionLog, Long> ends = new LinkedHashMap<>();
        for (PartitionLog log : logs) {
            ends.put(log, log.appendOfRequest(batch(T0, "k", "v")).endOffset());
        }
        assertThat(pendingFlushes)
                .as("no fsync started by the appends themselves")
                .isEmpty();
        Collection<CompletableFuture<Void>> durable =
                PartitionLog.awaitDurable(ends).values();

        assertThat(pendingFlushes)
                .as("one round, every partition's fsync in it")
                .hasSize(3);
        pendingFlushes.remove(0).run();
        pendingFlushes.remove(0).run();
        assertThat(logs).allSatisfy(log -> assertThat(log.highWatermark()).isZero());
        pendingFlushes.remove(0).run();
        assertThat(durable).allSatisfy(f -> assertThat(f).isCompleted());
        assertThat(logs).allSatisfy(log -> assertThat(log.highWatermark()).isEqualTo(1));
        assertThat(pendingFlushes).isEmpty();
    }

    @Test
    void relaxedPolicyAcknowledgesWithoutWaitingForTheDisk() {
        List<Runnable> pendingFlushes = new ArrayList<>();
        LogConfig relaxed = LogConfig.defaults().withFlushPolicy(FlushPolicy.OPERATING_SYSTEM);
        PartitionLog log = PartitionLog.open("orders-0", dir, relaxed, clock, LogFiles.real(), pendingFlushes::add);
        opened.add(log);

        AppendResult result = log.append(batch(T0, "k", "v"));

        assertThat(log.awaitDurable(result.endOffset())).isCompleted();
        assertThat(log.highWatermark()).isEqualTo(1);
        assertThat(pendingFlushes).isEmpty();
    }

    @Test
    void flushMsPolicyFlushesOnTheTickAfterTheInterval() {
        CountingFiles files = new CountingFiles();
        LogConfig config = LogConfig.defaults().withFlushPolicy(new FlushPolicy(Long.MAX_VALUE, 1000));
        PartitionLog log = open(config, files);
        log.append(batch(T0, "k", "v"));
        int before = files.forces.get();

        log.tick();
        assertThat(files.forces.get()).isEqualTo(before);
        clock.advance(1000);
        log.tick();

        assertThat(files.forces.get()).isGreaterThan(before);
    }

    @Test
    void concurrentAppendersShareFsyncs() throws Exception {
        CountingFiles files = new CountingFiles();
        PartitionLog log = open(LogConfig.defaults(), files);
        int threads = 8;
        int perThread = 50;
        ExecutorService producers = Executors.newFixedThreadPool(threads);
        ConcurrentLinkedQueue<Long> acknowledged = new ConcurrentLinkedQueue<>();
        List<CompletableFuture<?>> done = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int id = t;
            done.add(CompletableFuture.runAsync(
                    () -> {
                        for (int i = 0; i < perThread; i++) {
                            acknowledged.add(appendDurably(log, batch(T0, "t" + id, "v" + i))
                                    .firstOffset());
                        }
                    },
                    producers));
        }
        CompletableFuture.allOf(done.toArray(CompletableFuture[]::new)).get();
        producers.shutdown();

        assertThat(acknowledged).hasSize(threads * perThread).doesNotHaveDuplicates();
        assertThat(readAll(log)).hasSize(threads * perThread);
        // Each fsync covered several appends; at most one data and one index fsync per append otherwise.
        assertThat(files.forces.get()).isLessThan(threads * perThread);
    }

    @Test
    void producersSilentForADayAreForgottenOnTheTick() {
        PartitionLog log = open(LogConfig.defaults());
        appendDurably(log, TestBatches.idempotent(7, (short) 0, 0, T0, "k", "a"));
        clock.set(T0 + PartitionLog.PRODUCER_ID_EXPIRATION_MS - 1);
        log.tick();
        assertThat(log.producerCount()).isEqualTo(1);

        clock.set(T0 + PartitionLog.PRODUCER_ID_EXPIRATION_MS);
        log.tick();

        assertThat(log.producerCount()).isZero();
    }

    @Test
    void producerStateOlderThanTheLogStartIsForgottenNotTrusted() {
        LogConfig config = LogConfig.defaults().with(LogConfig.SEGMENT_BYTES, "2048");
        PartitionLog log = open(config);
        for (int seq = 0; seq < 40; seq++) {
            appendDurably(log, TestBatches.idempotent(7, (short) 0, seq, T0, "k", "v".repeat(100)));
        }
        log.advanceLogStartOffset(log.logEndOffset());
        log.closeUncleanly();
        opened.clear();

        PartitionLog reopened = open(config);

        // Producer 7's batches are all below the log start: it is unknown now, and may continue.
        assertThat(reopened.producerCount()).isZero();
        assertThat(appendDurably(reopened, TestBatches.idempotent(7, (short) 0, 40, T0, "k", "next"))
                        .duplicate())
                .isFalse();
    }

    /** Counts fsyncs of files (not directories) opened through it. */
    static final class CountingFiles implements LogFiles {
        final AtomicInteger forces = new AtomicInteger();

        @Override
        public FileChannel open(Path path, OpenOption... options) throws IOException {
            return new ForwardingFileChannel(FileChannel.open(path, options)) {
                @Override
                public void force(boolean metaData) throws IOException {
                    forces.incrementAndGet();
                    super.force(metaData);
                }
            };
        }

        @Override
        public void syncDirectory(Path dir) {}
    }
}
