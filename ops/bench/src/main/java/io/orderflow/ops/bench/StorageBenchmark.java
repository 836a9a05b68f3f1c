package io.orderflow.ops.bench;

import io.orderflow.broker.log.AppendResult;
import io.orderflow.broker.log.FileRegion;
import io.orderflow.broker.log.FlushPolicy;
import io.orderflow.broker.log.LogConfig;
import io.orderflow.broker.log.LogFiles;
import io.orderflow.broker.log.PartitionLog;
import io.orderflow.ops.load.WholeNumber;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Measures the partition log against this machine's own limit, in the same run:
 *
 * <ul>
 *   <li><b>append</b>: {@code producers} threads append producer-sized batches (about 64 KiB) of 1 KiB or 100 B
 *       records and wait for each to be acknowledged, under the default policy (fsync before acknowledging,
 *       group commit) and a relaxed one (no fsync). The anchor is a plain sequential {@link FileChannel}
 *       writer of the same bytes in the same write sizes, fsyncing as many times as the log did (spread
 *       evenly, fdatasync like the log): the fastest this disk can take this data with that fsync cadence.
 *   <li><b>read</b>: every batch read back by offset in 1 MiB reads, copied into the heap (page cache warm).
 *   <li><b>recovery</b>: opening a log of {@code recovery-mib} in one segment after an unclean stop (the
 *       clean-shutdown marker removed), which validates every batch.
 * </ul>
 *
 * Prints medians over {@code runs} repetitions; the machine is shared and noisy.
 */
@Command(
        name = "ops/bin/bench/storage",
        sortOptions = false,
        sortSynopsis = false,
        description = {
            "Storage benchmark of the broker's partition log: append throughput (default durability and relaxed)"
                    + " against a plain FileChannel writer with the same fsync cadence, read throughput by offset,"
                    + " recovery time after an unclean stop. Prints medians; see docs/benchmarks.md.",
            ""
        })
public final class StorageBenchmark implements Callable<Integer> {
    private static final int BATCH_BYTES = 64 * 1024;

    @Option(
            names = "--dir",
            paramLabel = "DIR",
            defaultValue = "target/storage-bench",
            description = "where the logs are written, on the disk to measure; deleted at the end"
                    + " (default: ${DEFAULT-VALUE})")
    private Path root;

    @Option(
            names = "--mib",
            paramLabel = "N",
            defaultValue = "256",
            converter = WholeNumber.PositiveLong.class,
            description = "MiB appended per run and record size (default: ${DEFAULT-VALUE})")
    private long mib;

    @Option(
            names = "--runs",
            paramLabel = "N",
            defaultValue = "3",
            converter = WholeNumber.Positive.class,
            description = "repetitions; the figures are their medians (default: ${DEFAULT-VALUE})")
    private int runs;

    @Option(
            names = "--producers",
            paramLabel = "N",
            defaultValue = "4",
            converter = WholeNumber.Positive.class,
            description = "threads appending at once (default: ${DEFAULT-VALUE})")
    private int producers;

    @Option(
            names = "--recovery-mib",
            paramLabel = "N",
            defaultValue = "1024",
            converter = WholeNumber.PositiveLong.class,
            description = "size of the one-segment log read back and recovered (default: ${DEFAULT-VALUE})")
    private long recoveryMib;

    @Option(
            names = {"-h", "--help"},
            usageHelp = true,
            description = "print this text")
    private boolean help;

    private StorageBenchmark() {}

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    static CommandLine commandLine() {
        return BenchCommandLine.of(new StorageBenchmark());
    }

    @Override
    public Integer call() throws Exception {
        System.out.printf(
                Locale.ROOT,
                "storage benchmark: %d MiB per run, %d runs, %d producers, dir %s, %d cores, java %s%n",
                mib,
                runs,
                producers,
                root.toAbsolutePath(),
                Runtime.getRuntime().availableProcessors(),
                System.getProperty("java.version"));
        System.out.println("| record | policy | log MB/s | plain FileChannel MB/s | ratio | fsyncs | appends/fsync |");
        System.out.println("|---|---|---|---|---|---|---|");
        for (int recordSize : new int[] {1024, 100}) {
            List<ByteBuffer> batches = batches(recordSize, mib);
            for (FlushPolicy policy : List.of(FlushPolicy.EVERY_APPEND, FlushPolicy.OPERATING_SYSTEM)) {
                double[] ours = new double[runs];
                double[] plain = new double[runs];
                long fsyncs = 0;
                for (int r = 0; r < runs; r++) {
                    Path dir = fresh(root.resolve("append"));
                    AppendRun run = appendRun(dir, policy, batches, producers);
                    ours[r] = run.mbPerSecond();
                    fsyncs = run.fsyncs();
                    Path plainDir = fresh(root.resolve("plain"));
                    plain[r] = plainRun(plainDir, batches, policy == FlushPolicy.EVERY_APPEND ? fsyncs : 0);
                }
                double o = median(ours);
                double p = median(plain);
                System.out.printf(
                        Locale.ROOT,
                        "| %d B | %s | %.0f | %.0f | %.2f | %d | %.1f |%n",
                        recordSize,
                        policy == FlushPolicy.EVERY_APPEND ? "fsync every append (default)" : "no fsync (relaxed)",
                        o,
                        p,
                        o / p,
                        fsyncs,
                        fsyncs == 0 ? 0.0 : (double) batches.size() / fsyncs);
            }
        }
        readAndRecovery(root, runs, recoveryMib);
        delete(root);
        return 0;
    }

    private static void readAndRecovery(Path root, int runs, long recoveryMib) throws Exception {
        List<ByteBuffer> batches = batches(1024, recoveryMib);
        Path dir = fresh(root.resolve("recovery"));
        ExecutorService flusher = Executors.newSingleThreadExecutor();
        LogConfig config = LogConfig.defaults().withFlushPolicy(FlushPolicy.OPERATING_SYSTEM);
        try (PartitionLog log =
                PartitionLog.open("bench-0", dir, config, Clock.systemUTC(), LogFiles.real(), flusher)) {
            for (ByteBuffer b : batches) {
                log.append(b.duplicate());
            }
            log.flush();
        }
        double[] read = new double[runs];
        double[] recovery = new double[runs];
        int coldRuns = 0;
        for (int r = 0; r < runs; r++) {
            Files.deleteIfExists(dir.resolve("clean-shutdown"));
            boolean cold = dropPageCache();
            long t0 = System.nanoTime();
            try (PartitionLog log =
                    PartitionLog.open("bench-0", dir, config, Clock.systemUTC(), LogFiles.real(), flusher)) {
                recovery[r] = (System.nanoTime() - t0) / 1e9;
                coldRuns += cold ? 1 : 0;
                if (log.recoveredCleanly()) {
                    throw new IllegalStateException("expected an unclean open");
                }
                long bytes = 0;
                long t1 = System.nanoTime();
                long offset = log.logStartOffset();
                while (offset < log.highWatermark()) {
                    FileRegion region = log.read(offset, 1024 * 1024, false).records();
                    bytes += region.read().remaining(); // one copy into the heap, as a non-zero-copy fetch does
                    offset = lastOffsetIn(region) + 1;
                }
                read[r] = bytes / 1e6 / ((System.nanoTime() - t1) / 1e9);
            }
        }
        flusher.shutdown();
        long size = (long) batches.size() * batches.getFirst().remaining();
        System.out.printf(
                Locale.ROOT,
                "%nread by offset (1 MiB reads copied into the heap): median %.0f MB/s over %d MiB%n",
                median(read),
                size >> 20);
        System.out.printf(
                Locale.ROOT,
                "recovery after unclean stop, %d MiB in one segment, %s: median %.2f s (%.0f MB/s)%n",
                size >> 20,
                coldRuns == runs ? "page cache dropped before each run" : "page cache warm",
                median(recovery),
                size / 1e6 / median(recovery));
    }

    /** Empties the page cache (needs root on Linux) so recovery reads from the disk; false if not allowed. */
    private static boolean dropPageCache() {
        Path control = Path.of("/proc/sys/vm/drop_caches");
        try {
            Files.writeString(control, "1");
            return true;
        } catch (IOException | SecurityException e) {
            return false;
        }
    }

    /** The last offset of the last batch in the region: its base offset plus lastOffsetDelta. */
    private static long lastOffsetIn(FileRegion region) throws IOException {
        long position = region.position();
        long end = region.position() + region.size();
        ByteBuffer header = ByteBuffer.allocate(27);
        long last = -1;
        while (position < end) {
            header.clear();
            region.channel().read(header, position);
            last = header.getLong(0) + header.getInt(23);
            position += header.getInt(8) + 12L;
        }
        return last;
    }

    private record AppendRun(double mbPerSecond, long fsyncs) {}

    private static AppendRun appendRun(Path dir, FlushPolicy policy, List<ByteBuffer> batches, int producers)
            throws Exception {
        ExecutorService flusher = Executors.newSingleThreadExecutor();
        ExecutorService pool = Executors.newFixedThreadPool(producers);
        LogConfig config = LogConfig.defaults().withFlushPolicy(policy);
        AtomicInteger next = new AtomicInteger();
        AtomicLong bytes = new AtomicLong();
        long elapsed;
        long fsyncs;
        try (PartitionLog log =
                PartitionLog.open("bench-0", dir, config, Clock.systemUTC(), LogFiles.real(), flusher)) {
            long t0 = System.nanoTime();
            List<CompletableFuture<Void>> done = new ArrayList<>();
            for (int p = 0; p < producers; p++) {
                done.add(CompletableFuture.runAsync(
                        () -> {
                            int i;
                            while ((i = next.getAndIncrement()) < batches.size()) {
                                ByteBuffer b = batches.get(i).duplicate();
                                bytes.addAndGet(b.remaining());
                                AppendResult result = log.append(b);
                                log.awaitDurable(result.endOffset()).join();
                            }
                        },
                        pool));
            }
            CompletableFuture.allOf(done.toArray(CompletableFuture[]::new)).join();
            elapsed = System.nanoTime() - t0;
            fsyncs = log.flushCount();
        } finally {
            pool.shutdown();
            flusher.shutdown();
        }
        return new AppendRun(bytes.get() / 1e6 / (elapsed / 1e9), fsyncs);
    }

    /** The machine's limit: sequential writes of the same buffers, {@code fsyncs} fsyncs spread evenly. */
    private static double plainRun(Path dir, List<ByteBuffer> batches, long fsyncs) throws IOException {
        long bytes = 0;
        long t0 = System.nanoTime();
        try (FileChannel ch =
                FileChannel.open(dir.resolve("plain.log"), StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
            double every = fsyncs == 0 ? Double.MAX_VALUE : (double) batches.size() / fsyncs;
            double nextSync = every;
            for (int i = 0; i < batches.size(); i++) {
                ByteBuffer b = batches.get(i).duplicate();
                bytes += b.remaining();
                while (b.hasRemaining()) {
                    ch.write(b);
                }
                if (i + 1 >= nextSync) {
                    ch.force(false); // fdatasync, as the log's group commit does
                    nextSync += every;
                }
            }
        }
        return bytes / 1e6 / ((System.nanoTime() - t0) / 1e9);
    }

    private static List<ByteBuffer> batches(int recordSize, long mib) {
        int perBatch = Math.max(1, BATCH_BYTES / (recordSize + 10));
        byte[] value = new byte[recordSize];
        Arrays.fill(value, (byte) 'x');
        SimpleRecord[] records = new SimpleRecord[perBatch];
        for (int i = 0; i < perBatch; i++) {
            records[i] = new SimpleRecord(System.currentTimeMillis(), null, value);
        }
        ByteBuffer template =
                MemoryRecords.withRecords(Compression.NONE, records).buffer();
        long count = (mib << 20) / template.remaining();
        List<ByteBuffer> out = new ArrayList<>();
        for (long i = 0; i < count; i++) {
            ByteBuffer copy = ByteBuffer.allocateDirect(template.remaining());
            copy.put(template.duplicate()).flip();
            out.add(copy);
        }
        return out;
    }

    private static Path fresh(Path dir) throws IOException {
        delete(dir);
        return Files.createDirectories(dir);
    }

    private static void delete(Path dir) throws IOException {
        if (Files.exists(dir)) {
            try (var paths = Files.walk(dir)) {
                for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(p);
                }
            }
        }
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted.length % 2 == 1
                ? sorted[sorted.length / 2]
                : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2;
    }
}
