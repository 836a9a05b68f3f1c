package io.orderflow.broker.log;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.property.Gen;
import io.orderflow.property.Properties;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Queue;
import java.util.Random;
import java.util.SequencedMap;
import java.util.concurrent.Executor;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Random sequences of appends, group-commit fsyncs, rolls, explicit flushes, clean restarts and power losses
 * at any point between them, under the default policy and two relaxed ones. The flusher is a queue the
 * sequence runs explicitly, so an acknowledgement arrives exactly when the sequence lets the fsync run.
 *
 * <p>Oracle: record {@code i} holds value {@code i}. After each power loss the log, recovered with the real
 * file system, must hold values {@code 0..n-1} for some {@code n} between what was guaranteed durable (acknowledged
 * under the default policy, rolled, explicitly flushed or cleanly closed) and what was appended.
 */
class PowerLossPropertyTest {
    private static final long T0 = 1_700_000_000_000L;

    sealed interface Op {}

    record Append(int records) implements Op {}

    /** The flusher thread gets to run the fsyncs queued so far. */
    record RunFlusher() implements Op {}

    record Roll() implements Op {}

    record Flush() implements Op {}

    record CleanRestart() implements Op {}

    record PowerLoss(long seed) implements Op {}

    /** An executor that runs tasks only when told to. */
    static final class QueuedExecutor implements Executor {
        private final Queue<Runnable> tasks = new ArrayDeque<>();

        @Override
        public void execute(Runnable task) {
            tasks.add(task);
        }

        void runAll() {
            for (Runnable task; (task = tasks.poll()) != null; ) {
                task.run();
            }
        }

        void discardAll() {
            tasks.clear();
        }
    }

    /** Each kind of operation with its weight, in a fixed order, so that a seed draws the same operations. */
    private static final SequencedMap<Function<Gen, ? extends Op>, Integer> OPERATIONS = new LinkedHashMap<>();

    static {
        OPERATIONS.put(gen -> new Append(gen.ints(1, 4)), 12);
        OPERATIONS.put(gen -> new RunFlusher(), 5);
        OPERATIONS.put(gen -> new Roll(), 1);
        OPERATIONS.put(gen -> new Flush(), 1);
        OPERATIONS.put(gen -> new CleanRestart(), 1);
        OPERATIONS.put(gen -> new PowerLoss(gen.anyLong()), 2);
    }

    static List<Op> operations(Gen gen) {
        return gen.list(0, 50, g -> g.frequency(OPERATIONS));
    }

    static long flushMessages(Gen gen) {
        return gen.oneOf(1L, 3L, Long.MAX_VALUE);
    }

    @Test
    void everyPowerLossLeavesAValidPrefixHoldingAllThatWasGuaranteedDurable() {
        Properties.forAll(40, gen -> {
            List<Op> ops = operations(gen);
            long flushMessages = flushMessages(gen);
            long finalPowerLossSeed = gen.anyLong();
            Path dir = Files.createDirectories(Path.of("target", "tmp")).resolve("powerloss-" + System.nanoTime());
            LogConfig config = LogConfig.defaults()
                    .with(LogConfig.SEGMENT_BYTES, "1024")
                    .with(LogConfig.INDEX_INTERVAL_BYTES, "128")
                    .with(LogConfig.FLUSH_MESSAGES, Long.toString(flushMessages));
            ManualClock clock = new ManualClock(T0);
            try {
                Life life = new Life(dir, config, clock);
                for (Op op : ops) {
                    life = life.apply(op);
                }
                life.apply(new PowerLoss(finalPowerLossSeed)).log.close();
            } finally {
                deleteRecursively(dir);
            }
        });
    }

    /** The log between two power losses, and what it has promised. */
    private static final class Life {
        final Path dir;
        final LogConfig config;
        final ManualClock clock;
        final PowerLossFiles files = new PowerLossFiles();
        final QueuedExecutor flusher = new QueuedExecutor();
        final PartitionLog log;
        long appendedEnd;
        long guaranteedEnd;

        Life(Path dir, LogConfig config, ManualClock clock) {
            this.dir = dir;
            this.config = config;
            this.clock = clock;
            this.log = PartitionLog.open("orders-0", dir, config, clock, files, flusher);
            this.appendedEnd = log.logEndOffset();
            this.guaranteedEnd = appendedEnd;
        }

        Life apply(Op op) throws IOException {
            switch (op) {
                case Append a -> {
                    int segmentsBefore = log.segmentCount();
                    AppendResult r = log.append(PowerLossTest.sequence(appendedEnd, a.records()));
                    assertThat(r.firstOffset()).isEqualTo(appendedEnd);
                    appendedEnd = r.endOffset();
                    if (log.segmentCount() > segmentsBefore) {
                        guaranteedEnd = Math.max(guaranteedEnd, r.firstOffset());
                    }
                    if (config.flushPolicy().syncsEveryAppend()) {
                        long end = r.endOffset();
                        log.awaitDurable(end).thenRun(() -> guaranteedEnd = Math.max(guaranteedEnd, end));
                    }
                }
                case RunFlusher ignored -> flusher.runAll();
                case Roll ignored -> {
                    log.forceRoll();
                    guaranteedEnd = appendedEnd;
                }
                case Flush ignored -> {
                    log.flush();
                    guaranteedEnd = appendedEnd;
                }
                case CleanRestart ignored -> {
                    log.close();
                    return new Life(dir, config, clock);
                }
                case PowerLoss p -> {
                    String what = files.powerLoss(new Random(p.seed()));
                    flusher.discardAll();
                    log.closeUncleanly();
                    PartitionLog recovered =
                            PartitionLog.open("orders-0", dir, config, clock, LogFiles.real(), Runnable::run);
                    String context =
                            "guaranteed below " + guaranteedEnd + ", appended below " + appendedEnd + ", " + what;
                    long count = PowerLossTest.checkValuesEqualOffsets(recovered, context);
                    assertThat(count).as(context).isBetween(guaranteedEnd, appendedEnd);
                    recovered.closeUncleanly();
                    return new Life(dir, config, clock);
                }
            }
            return this;
        }
    }

    private static void deleteRecursively(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
