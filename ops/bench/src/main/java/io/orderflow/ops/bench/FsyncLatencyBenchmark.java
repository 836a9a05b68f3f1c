package io.orderflow.ops.bench;

import io.orderflow.ops.load.WholeNumber;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * What one acknowledgement under {@code acks=all} costs on this disk: small appends (a single message, as Kafka's
 * EndToEndLatency sends them), each followed by {@code fdatasync}, timed one by one. Two files per round:
 *
 * <ul>
 *   <li><b>growing</b>: appends at the end of a new file, as the broker's active segment grows. Each fdatasync also
 *       has to commit the file's new size (on ext4 a journal commit);
 *   <li><b>pre-zeroed</b>: the same appends over a file already written with zeros and synced, so only the data
 *       is flushed: what pre-allocating segments with real blocks would buy.
 * </ul>
 *
 * Prints the latency distribution per file and round. There is no anchor: this is the disk, not our code.
 */
@Command(
        name = "ops/bin/bench/fsync",
        sortOptions = false,
        sortSynopsis = false,
        description = {
            "What one fsync-before-acknowledge costs on this disk: small appends, each followed by fdatasync, timed one"
                    + " by one, on a growing file (as the broker's active segment) and on a pre-zeroed one. See"
                    + " docs/benchmarks.md.",
            ""
        })
public final class FsyncLatencyBenchmark implements Callable<Integer> {

    @Option(
            names = "--dir",
            paramLabel = "DIR",
            defaultValue = "ops/bench/target/fsync-bench",
            description = "where the two files are written, on the disk to measure (default: ${DEFAULT-VALUE})")
    private Path dir;

    @Option(
            names = "--appends",
            paramLabel = "N",
            defaultValue = "3000",
            converter = WholeNumber.Positive.class,
            description = "appends per file and round (default: ${DEFAULT-VALUE})")
    private int appends;

    @Option(
            names = "--size",
            paramLabel = "BYTES",
            defaultValue = "200",
            converter = WholeNumber.Positive.class,
            description = "bytes per append (default: ${DEFAULT-VALUE})")
    private int size;

    @Option(
            names = "--rounds",
            paramLabel = "N",
            defaultValue = "2",
            converter = WholeNumber.Positive.class,
            description = "rounds of both files (default: ${DEFAULT-VALUE})")
    private int rounds;

    @Option(
            names = {"-h", "--help"},
            usageHelp = true,
            description = "print this text")
    private boolean help;

    private FsyncLatencyBenchmark() {}

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    static CommandLine commandLine() {
        return BenchCommandLine.of(new FsyncLatencyBenchmark());
    }

    @Override
    public Integer call() throws IOException {
        Files.createDirectories(dir);
        System.out.printf(
                Locale.ROOT,
                "fsync latency: %d appends of %d B per file, %d rounds, dir %s, java %s%n",
                appends,
                size,
                rounds,
                dir.toAbsolutePath(),
                System.getProperty("java.version"));
        for (int round = 1; round <= rounds; round++) {
            print(round, "growing", growing(dir.resolve("growing.bin"), appends, size));
            print(round, "pre-zeroed", preZeroed(dir.resolve("prezeroed.bin"), appends, size));
        }
        return 0;
    }

    private static long[] growing(Path file, int appends, int size) throws IOException {
        long[] nanos = new long[appends];
        try (FileChannel channel = FileChannel.open(
                file, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
            ByteBuffer record = ByteBuffer.allocate(size);
            for (int i = 0; i < appends; i++) {
                channel.write(record.clear());
                nanos[i] = timedDataSync(channel);
            }
        } finally {
            Files.deleteIfExists(file);
        }
        return nanos;
    }

    private static long[] preZeroed(Path file, int appends, int size) throws IOException {
        long[] nanos = new long[appends];
        try (FileChannel channel = FileChannel.open(
                file, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
            ByteBuffer zeros = ByteBuffer.allocate(1 << 20);
            for (long at = 0; at < (long) appends * size; at += zeros.capacity()) {
                channel.write(zeros.clear(), at);
            }
            channel.force(true);
            ByteBuffer record = ByteBuffer.allocate(size);
            for (int i = 0; i < appends; i++) {
                channel.write(record.clear(), (long) i * size);
                nanos[i] = timedDataSync(channel);
            }
        } finally {
            Files.deleteIfExists(file);
        }
        return nanos;
    }

    private static long timedDataSync(FileChannel channel) throws IOException {
        long start = System.nanoTime();
        channel.force(false);
        return System.nanoTime() - start;
    }

    private static void print(int round, String file, long[] nanos) {
        long[] sorted = nanos.clone();
        Arrays.sort(sorted);
        System.out.printf(
                Locale.ROOT,
                "round %d %-10s  p50 %.3f ms  p90 %.3f  p99 %.3f  max %.3f  average %.3f%n",
                round,
                file,
                millis(sorted, 0.50),
                millis(sorted, 0.90),
                millis(sorted, 0.99),
                sorted[sorted.length - 1] / 1e6,
                Arrays.stream(sorted).average().orElse(0) / 1e6);
    }

    private static double millis(long[] sorted, double quantile) {
        return sorted[Math.min(sorted.length - 1, (int) (sorted.length * quantile))] / 1e6;
    }
}
