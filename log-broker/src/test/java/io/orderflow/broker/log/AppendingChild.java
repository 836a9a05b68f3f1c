package io.orderflow.broker.log;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The process {@link KillNineCrashTest} kills: opens (recovering) the log in {@code args[0]} under the default
 * flush policy and appends from several threads, forever, batches whose record values continue the sequence
 * already in the log (record {@code i} holds {@code "i"}). After each append is durable it prints one
 * {@code ACK <value>} line per record to stdout, in one write so that a kill never leaves half a line.
 *
 * <p>Usage: {@code AppendingChild <dir> <segment.bytes> <threads>}. Prints {@code READY <next value>} once the
 * log is open. Halts by itself when its stdin closes or its parent exits, so a failed test leaves no process
 * behind.
 */
public final class AppendingChild {
    private AppendingChild() {}

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        LogConfig config =
                LogConfig.defaults().with(LogConfig.SEGMENT_BYTES, args[1]).with(LogConfig.INDEX_INTERVAL_BYTES, "256");
        int threads = Integer.parseInt(args[2]);
        startWatchdog();

        ExecutorService flusher = Executors.newSingleThreadExecutor(
                r -> Thread.ofPlatform().daemon().name("flusher").unstarted(r));
        PartitionLog log = PartitionLog.open("crash-0", dir, config, Clock.systemUTC(), LogFiles.real(), flusher);
        long[] next = {nextValue(log)};
        OutputStream out = new FileOutputStream(FileDescriptor.out);
        print(out, "READY " + next[0] + "\n");

        Object appendOrder = new Object();
        for (int t = 0; t < threads; t++) {
            Random random = new Random(t);
            Thread.ofPlatform().name("appender-" + t).start(() -> {
                while (true) {
                    int count = 1 + random.nextInt(3);
                    long first;
                    AppendResult result;
                    synchronized (appendOrder) {
                        first = next[0];
                        next[0] += count;
                        result = log.append(values(first, count));
                    }
                    log.awaitDurable(result.endOffset()).join();
                    StringBuilder acks = new StringBuilder();
                    for (long v = first; v < first + count; v++) {
                        acks.append("ACK ").append(v).append('\n');
                    }
                    print(out, acks.toString());
                }
            });
        }
    }

    /** One batch whose records hold the values {@code first, first+1, ...}. */
    static ByteBuffer values(long first, int count) {
        String[] kvs = new String[2 * count];
        for (int i = 0; i < count; i++) {
            kvs[2 * i + 1] = Long.toString(first + i);
        }
        return TestBatches.batch(System.currentTimeMillis(), kvs);
    }

    /** The value after the last record in the log: the log holds 0, 1, ... so far. */
    private static long nextValue(PartitionLog log) {
        long end = log.logEndOffset();
        if (end == 0) {
            return 0;
        }
        List<TestBatches.Read> last = TestBatches.decode(
                log.read(end - 1, Integer.MAX_VALUE, true).records().read());
        return Long.parseLong(last.getLast().value()) + 1;
    }

    private static void print(OutputStream out, String text) {
        byte[] bytes = text.getBytes(StandardCharsets.US_ASCII);
        synchronized (out) {
            try {
                out.write(bytes);
                out.flush();
            } catch (IOException e) {
                Runtime.getRuntime().halt(3); // the parent stopped reading
            }
        }
    }

    private static void startWatchdog() {
        Thread.ofPlatform().daemon().name("watchdog").start(() -> {
            try (InputStream in = System.in) {
                while (in.read() >= 0) {
                    // the parent writes nothing; EOF means it is gone
                }
            } catch (IOException e) {
                // treat as gone
            }
            Runtime.getRuntime().halt(2);
        });
        ProcessHandle.current()
                .parent()
                .ifPresent(parent ->
                        parent.onExit().thenRun(() -> Runtime.getRuntime().halt(4)));
    }
}
