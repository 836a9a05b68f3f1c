package io.orderflow.broker.log;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Power loss through {@link PowerLossFiles}: bytes written but not fsynced are dropped, the last write may be
 * torn. Recovery, with the real file system, must yield a valid log holding every acknowledged batch.
 *
 * <p>Every record's value is its own offset ("0", "1", ...), appended in order, so one invariant checks a
 * recovered log: record {@code i} has offset {@code i} and value {@code i}, and the log end is the count.
 * That is "a prefix of what was appended, exactly once, in order, with nothing invented".
 */
class PowerLossTest {
    private static final long T0 = 1_700_000_000_000L;

    @TempDir
    Path dir;

    private final ManualClock clock = new ManualClock(T0);
    private final List<ExecutorService> executors = new ArrayList<>();
    private final List<PartitionLog> opened = new ArrayList<>();

    @AfterEach
    void tearDown() {
        opened.forEach(PartitionLog::closeUncleanly);
        executors.forEach(ExecutorService::shutdownNow);
    }

    private PartitionLog open(LogConfig config, LogFiles files) {
        ExecutorService flusher = Executors.newSingleThreadExecutor();
        executors.add(flusher);
        PartitionLog log = PartitionLog.open("orders-0", dir, config, clock, files, flusher);
        opened.add(log);
        return log;
    }

    /** One batch whose records hold the values {@code first, first+1, ...}. */
    static ByteBuffer sequence(long first, int count) {
        String[] kvs = new String[2 * count];
        for (int i = 0; i < count; i++) {
            kvs[2 * i + 1] = Long.toString(first + i);
        }
        return TestBatches.batch(T0, kvs);
    }

    /**
     * Reads the whole log (CRC-checking every batch) and checks that record {@code i} has offset and value
     * {@code i}; returns the number of records.
     */
    static long checkValuesEqualOffsets(PartitionLog log, String context) {
        List<TestBatches.Read> reads = TestBatches.readAll(log);
        for (int i = 0; i < reads.size(); i++) {
            TestBatches.Read r = reads.get(i);
            if (r.offset() != i || !Long.toString(i).equals(r.value())) {
                throw new AssertionError("record " + i + " of the recovered log is (offset " + r.offset() + ", value "
                        + r.value() + "), expected (" + i + ", " + i + "); " + context);
            }
        }
        assertThat(log.logEndOffset()).as("log end offset; %s", context).isEqualTo(reads.size());
        return reads.size();
    }

    @Test
    void injectorKeepsWhatWasFsyncedAndDropsWhatWasNot() throws IOException {
        PowerLossFiles files = new PowerLossFiles();
        Path file = dir.resolve("f");
        try (FileChannel ch = files.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.wrap("synced".getBytes()), 0);
            ch.force(true);
            ch.write(ByteBuffer.wrap("-lost".getBytes()), 6);
        }
        files.syncDirectory(dir);

        files.powerLossKeepingOnlyWhatWasSynced();

        assertThat(Files.readString(file)).isEqualTo("synced");
    }

    @Test
    void injectorKeepsAPrefixOfUnsyncedWritesAndMayTearTheNextOne() throws IOException {
        List<String> outcomes = new ArrayList<>();
        for (long seed = 0; seed < 40; seed++) {
            Path file = dir.resolve("f" + seed);
            PowerLossFiles files = new PowerLossFiles();
            try (FileChannel ch = files.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
                ch.write(ByteBuffer.wrap("AAAA".getBytes()), 0);
                ch.force(true);
                ch.write(ByteBuffer.wrap("BBBB".getBytes()), 4);
                ch.write(ByteBuffer.wrap("CCCC".getBytes()), 8);
            }
            files.syncDirectory(dir);
            files.powerLoss(new Random(seed));
            String content = Files.readString(file, java.nio.charset.StandardCharsets.ISO_8859_1);
            outcomes.add(content);
            assertThat(content).startsWith("AAAA").hasSizeBetween(4, 12);
            if (content.length() > 8) {
                assertThat(content).startsWith("AAAABBBB");
            }
        }
        assertThat(outcomes).contains("AAAA", "AAAABBBB", "AAAABBBBCCCC");
        assertThat(outcomes).anyMatch(s -> s.length() % 4 != 0);
    }

    @Test
    void injectorMayDropAFileCreatedAfterTheLastDirectorySync() throws IOException {
        PowerLossFiles files = new PowerLossFiles();
        Path named = dir.resolve("named");
        Path unnamed = dir.resolve("unnamed");
        try (FileChannel ch = files.open(named, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
            ch.force(true);
        }
        files.syncDirectory(dir);
        try (FileChannel ch = files.open(unnamed, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
            ch.write(ByteBuffer.wrap("x".getBytes()), 0);
            ch.force(true);
        }

        files.powerLossKeepingOnlyWhatWasSynced();

        assertThat(named).exists();
        assertThat(unnamed).doesNotExist();
    }

    /**
     * The default policy under load: several appenders await durability (group commit) while the power is
     * cut at a random moment; repeated over several lives of one directory, alternating clean and unclean
     * verification restarts.
     */
    @Test
    void everyAcknowledgedBatchSurvivesRepeatedPowerLossesUnderTheDefaultPolicy() throws Exception {
        long seed = System.nanoTime();
        System.out.println("PowerLossTest seed " + seed);
        Random random = new Random(seed);
        LogConfig config =
                LogConfig.defaults().with(LogConfig.SEGMENT_BYTES, "4096").with(LogConfig.INDEX_INTERVAL_BYTES, "256");
        for (int life = 0; life < 12; life++) {
            PowerLossFiles files = new PowerLossFiles();
            PartitionLog log = open(config, files);
            AtomicLong next = new AtomicLong(log.logEndOffset());
            AtomicLong acknowledgedEnd = new AtomicLong(log.logEndOffset());
            AtomicInteger acks = new AtomicInteger();
            AtomicBoolean powerOff = new AtomicBoolean();
            List<Exception> failuresWithPower = new java.util.concurrent.CopyOnWriteArrayList<>();
            Object appendOrder = new Object();
            List<Thread> appenders = new ArrayList<>();
            for (int t = 0; t < 3; t++) {
                Random own = new Random(random.nextLong());
                appenders.add(Thread.ofPlatform().start(() -> {
                    try {
                        while (true) { // until the power loss makes an append or an fsync fail
                            int count = 1 + own.nextInt(3);
                            AppendResult result;
                            synchronized (appendOrder) {
                                result = log.append(sequence(next.getAndAdd(count), count));
                            }
                            log.awaitDurable(result.endOffset()).get(10, SECONDS);
                            acknowledgedEnd.accumulateAndGet(result.endOffset(), Math::max);
                            acks.incrementAndGet();
                        }
                    } catch (Exception e) {
                        if (!powerOff.get()) {
                            failuresWithPower.add(e);
                        }
                    }
                }));
            }
            int target = 1 + random.nextInt(150);
            await().atMost(Duration.ofSeconds(20)).until(() -> acks.get() >= target || !failuresWithPower.isEmpty());
            assertThat(failuresWithPower)
                    .as("appends failing before the power loss")
                    .isEmpty();

            powerOff.set(true);
            String what = files.powerLoss(random);
            long acknowledged = acknowledgedEnd.get();
            for (Thread t : appenders) {
                t.join(Duration.ofSeconds(15));
                assertThat(t.isAlive()).as("appender still running").isFalse();
            }
            log.closeUncleanly();

            PartitionLog recovered = open(config, LogFiles.real());
            String context = "life " + life + ", seed " + seed + ", acknowledged below " + acknowledged
                    + ", appended below " + next.get() + ", " + what;
            assertThat(recovered.recoveredCleanly()).isFalse();
            long count = checkValuesEqualOffsets(recovered, context);
            assertThat(count).as(context).isGreaterThanOrEqualTo(acknowledged).isLessThanOrEqualTo(next.get());
            AppendResult after = recovered.append(sequence(count, 1));
            recovered.awaitDurable(after.endOffset()).get(10, SECONDS);
            assertThat(after.firstOffset()).as(context).isEqualTo(count);
            checkValuesEqualOffsets(recovered, context + ", after a further append");
            opened.remove(recovered);
            if (random.nextBoolean()) {
                recovered.close();
            } else {
                recovered.closeUncleanly();
            }
        }
    }

    /**
     * {@code flush.messages} large: acknowledged data may be lost by design, but what survives is a valid
     * prefix, and every rolled segment survives whole (a segment is fsynced when it is rolled).
     */
    @Test
    void relaxedPolicyRecoversAValidPrefixThatKeepsEveryRolledSegment() throws Exception {
        long seed = System.nanoTime();
        System.out.println("PowerLossTest seed " + seed);
        Random random = new Random(seed);
        LogConfig config = LogConfig.defaults()
                .with(LogConfig.SEGMENT_BYTES, "2048")
                .with(LogConfig.INDEX_INTERVAL_BYTES, "256")
                .with(LogConfig.FLUSH_MESSAGES, "1000000");
        for (int life = 0; life < 10; life++) {
            PowerLossFiles files = new PowerLossFiles();
            PartitionLog log = open(config, files);
            long next = log.logEndOffset();
            long rolledEnd = next;
            int appends = random.nextInt(120);
            for (int i = 0; i < appends; i++) {
                int count = 1 + random.nextInt(3);
                int segmentsBefore = log.segmentCount();
                AppendResult result = log.append(sequence(next, count));
                assertThat(log.awaitDurable(result.endOffset())).isDone();
                if (log.segmentCount() > segmentsBefore) {
                    rolledEnd = result.firstOffset();
                }
                next += count;
                if (random.nextInt(40) == 0) {
                    log.forceRoll();
                    rolledEnd = next;
                }
            }

            String what = files.powerLoss(random);
            log.closeUncleanly();

            PartitionLog recovered = open(config, LogFiles.real());
            String context = "life " + life + ", seed " + seed + ", rolled below " + rolledEnd + ", appended below "
                    + next + ", " + what;
            long count = checkValuesEqualOffsets(recovered, context);
            assertThat(count).as(context).isGreaterThanOrEqualTo(rolledEnd).isLessThanOrEqualTo(next);
            assertThat(recovered.append(sequence(count, 1)).firstOffset()).isEqualTo(count);
            opened.remove(recovered);
            recovered.closeUncleanly();
        }
    }

    /**
     * The group-commit fsync of the active segment is under way (held in the injector) when another flush of
     * the same segment runs: an explicit flush, as the scheduler's tick does. That flush must not report the
     * data durable, and no acknowledgement may complete, before the fsync that covers it has returned.
     */
    @Test
    void noAcknowledgementCompletesWhileTheFsyncCoveringItIsStillRunning() throws Exception {
        PowerLossFiles files = new PowerLossFiles();
        PartitionLog log = open(LogConfig.defaults(), files);
        CountDownLatch fsyncEntered = new CountDownLatch(1);
        CountDownLatch releaseFsync = new CountDownLatch(1);
        AtomicBoolean armed = new AtomicBoolean(true);
        files.beforeForce(path -> {
            if (path.toString().endsWith(LogSegment.LOG_SUFFIX) && armed.getAndSet(false)) {
                fsyncEntered.countDown();
                try {
                    releaseFsync.await(30, SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        });

        AppendResult appended = log.append(sequence(0, 1));
        CompletableFuture<Void> ack = log.awaitDurable(appended.endOffset());
        assertThat(fsyncEntered.await(10, SECONDS))
                .as("group commit started its fsync")
                .isTrue();
        AtomicBoolean explicitFlushReturned = new AtomicBoolean();
        Thread explicitFlush = Thread.ofPlatform()
                .uncaughtExceptionHandler((t, e) -> {})
                .start(() -> {
                    log.flush();
                    explicitFlushReturned.set(true);
                });
        await().atMost(Duration.ofSeconds(10))
                .until(() -> !explicitFlush.isAlive() || explicitFlush.getState() != Thread.State.RUNNABLE);
        boolean acknowledged = ack.isDone() && !ack.isCompletedExceptionally();
        boolean flushReturned = explicitFlushReturned.get();

        files.powerLossKeepingOnlyWhatWasSynced();
        releaseFsync.countDown();
        explicitFlush.join(Duration.ofSeconds(10));
        log.closeUncleanly();
        PartitionLog recovered = open(LogConfig.defaults(), LogFiles.real());
        long survived = checkValuesEqualOffsets(recovered, "after the power loss");

        assertThat(acknowledged || flushReturned)
                .as(
                        "acknowledged %s, explicit flush returned %s, while the fsync was still running; records that"
                                + " survived the power loss: %d",
                        acknowledged, flushReturned, survived)
                .isFalse();
    }
}
