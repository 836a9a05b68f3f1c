package io.orderflow.broker.log;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real process crash: {@link AppendingChild} appends under load with the default flush policy and prints
 * every acknowledged value; the test kills it with SIGKILL ({@link Process#destroyForcibly()}) after a random
 * number of acknowledgements, recovers the log in this JVM and checks it, then starts the next child on the
 * same directory. A kill keeps the page cache, so nothing written may be lost; but the check is only the
 * contract: every acknowledged record present exactly once, in order, with no gap before it.
 */
class KillNineCrashTest {
    private static final int ROUNDS = 5;
    private static final String SEGMENT_BYTES = "16384";
    private static final Duration LINE_TIMEOUT = Duration.ofSeconds(30);
    private static final String EOF = "\u0000EOF";

    @TempDir
    Path work;

    private final List<Process> children = new ArrayList<>();
    private final java.util.Set<Process> killed = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private final ExecutorService flusher = Executors.newSingleThreadExecutor();

    @AfterEach
    void tearDown() {
        children.forEach(Process::destroyForcibly);
        flusher.shutdownNow();
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void everyAcknowledgedRecordSurvivesKillNineExactlyOnceAndInOrder() throws Exception {
        long seed = System.nanoTime();
        System.out.println("KillNineCrashTest seed " + seed);
        Random random = new Random(seed);
        Path dir = Files.createDirectories(work.resolve("crash-0"));
        LogConfig config = LogConfig.defaults()
                .with(LogConfig.SEGMENT_BYTES, SEGMENT_BYTES)
                .with(LogConfig.INDEX_INTERVAL_BYTES, "256");
        long acknowledgedEnd = 0;
        long acknowledgedTotal = 0;
        long logEnd = 0;
        for (int round = 0; round < ROUNDS; round++) {
            Path stderr = work.resolve("child-" + round + ".err");
            Process child = start(dir, stderr);
            BlockingQueue<String> lines = readLines(child.getInputStream());
            int killAfter = 1 + random.nextInt(400);
            String context = "round " + round + ", seed " + seed + ", kill after " + killAfter + " acks";

            assertThat(next(lines, child, stderr, context))
                    .as("the child resumes after the last record of the log; %s", context)
                    .isEqualTo("READY " + logEnd);
            int acks = 0;
            while (acks < killAfter) {
                acknowledgedEnd = Math.max(acknowledgedEnd, ack(next(lines, child, stderr, context), context) + 1);
                acks++;
            }
            killed.add(child);
            child.destroyForcibly();
            Process exited = child.onExit().get(30, TimeUnit.SECONDS);
            assertThat(exited.exitValue())
                    .as("exit status of the killed child; %s", context)
                    .isEqualTo(137);
            for (String line = next(lines, child, stderr, context); !line.equals(EOF); ) {
                acknowledgedEnd = Math.max(acknowledgedEnd, ack(line, context) + 1);
                acks++;
                line = next(lines, child, stderr, context);
            }
            acknowledgedTotal += acks;

            PartitionLog log =
                    PartitionLog.open("crash-0", dir, config, java.time.Clock.systemUTC(), LogFiles.real(), flusher);
            assertThat(log.recoveredCleanly()).as(context).isFalse();
            logEnd = checkSequence(log, context);
            assertThat(logEnd)
                    .as("records in the log must cover every acknowledged value below %d; %s", acknowledgedEnd, context)
                    .isGreaterThanOrEqualTo(acknowledgedEnd);
            if (random.nextBoolean()) {
                log.close();
            } else {
                log.closeUncleanly();
            }
        }
        System.out.println("KillNineCrashTest: " + ROUNDS + " kills, " + acknowledgedTotal
                + " acknowledged records, last acknowledged value " + (acknowledgedEnd - 1));
    }

    /**
     * Record {@code i} must have offset {@code i} and value {@code i}: every value present once, in offset
     * order, no gap. Returns the number of records.
     */
    private static long checkSequence(PartitionLog log, String context) {
        List<TestBatches.Read> reads = TestBatches.readAll(log);
        for (int i = 0; i < reads.size(); i++) {
            TestBatches.Read r = reads.get(i);
            if (r.offset() != i || !Long.toString(i).equals(r.value())) {
                String previous = i == 0 ? "none" : reads.get(i - 1).value();
                throw new AssertionError("record " + i + " is (offset " + r.offset() + ", value " + r.value()
                        + ") after value " + previous + ": a value is missing, duplicated or out of order; "
                        + context);
            }
        }
        assertThat(log.logEndOffset()).as(context).isEqualTo(reads.size());
        return reads.size();
    }

    private Process start(Path dir, Path stderr) throws IOException {
        String java = ProcessHandle.current()
                .info()
                .command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        Process child = new ProcessBuilder(
                        java,
                        "-Xmx128m",
                        "-XX:TieredStopAtLevel=1",
                        "-XX:+UseSerialGC",
                        "-Xshare:auto",
                        "-cp",
                        System.getProperty("java.class.path"),
                        AppendingChild.class.getName(),
                        dir.toString(),
                        SEGMENT_BYTES,
                        "4")
                .redirectError(stderr.toFile())
                .start();
        children.add(child);
        return child;
    }

    /** Complete lines from the child; a line cut off by the kill is dropped. Ends with {@link #EOF}. */
    private static BlockingQueue<String> readLines(InputStream in) {
        BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        Thread.ofPlatform().daemon().name("child-stdout").start(() -> {
            ByteArrayOutputStream line = new ByteArrayOutputStream();
            try (in) {
                int b;
                while ((b = in.read()) >= 0) {
                    if (b == '\n') {
                        lines.add(line.toString(StandardCharsets.US_ASCII));
                        line.reset();
                    } else {
                        line.write(b);
                    }
                }
            } catch (IOException e) {
                // the pipe broke with the child: what was read is all there is
            }
            lines.add(EOF);
        });
        return lines;
    }

    private String next(BlockingQueue<String> lines, Process child, Path stderr, String context)
            throws InterruptedException, IOException {
        String line = lines.poll(LINE_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        if (line == null) {
            throw new AssertionError("no line from the child within " + LINE_TIMEOUT + "; " + context
                    + "; child stderr:\n" + Files.readString(stderr));
        }
        if (line.equals(EOF) && !killed.contains(child)) {
            throw new AssertionError(
                    "the child exited by itself; " + context + "; child stderr:\n" + Files.readString(stderr));
        }
        return line;
    }

    private static long ack(String line, String context) {
        if (line.equals(EOF) || !line.startsWith("ACK ")) {
            throw new AssertionError("expected an ACK line, got '" + line + "'; " + context);
        }
        return Long.parseLong(line.substring(4));
    }
}
