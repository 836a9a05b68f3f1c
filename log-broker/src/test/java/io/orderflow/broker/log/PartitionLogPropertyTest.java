package io.orderflow.broker.log;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.property.Gen;
import io.orderflow.property.Properties;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.SequencedMap;
import java.util.concurrent.Executor;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * Random sequences of append, read, roll, retention, DeleteRecords and clean or unclean restarts, checked
 * against the simplest possible model of a log: a list of (offset, value) and a start offset.
 */
class PartitionLogPropertyTest {
    private static final long T0 = 1_700_000_000_000L;
    private static final Executor INLINE = Runnable::run;

    sealed interface Op {}

    record Append(int records, int valueSize) implements Op {}

    record Read(int fromPercent) implements Op {}

    record Roll() implements Op {}

    record Retain(long advanceMs) implements Op {}

    record DeleteRecords(int toPercent) implements Op {}

    record Restart(boolean clean) implements Op {}

    record Entry(long offset, String value) {}

    /** Each kind of operation with its weight, in a fixed order, so that a seed draws the same operations. */
    private static final SequencedMap<Function<Gen, ? extends Op>, Integer> OPERATIONS = new LinkedHashMap<>();

    static {
        OPERATIONS.put(gen -> new Append(gen.ints(1, 5), gen.ints(1, 300)), 10);
        OPERATIONS.put(gen -> new Read(gen.ints(0, 100)), 3);
        OPERATIONS.put(gen -> new Roll(), 1);
        OPERATIONS.put(gen -> new Retain(gen.longs(0, 20_000)), 1);
        OPERATIONS.put(gen -> new DeleteRecords(gen.ints(0, 100)), 1);
        OPERATIONS.put(gen -> new Restart(gen.bool()), 1);
    }

    static List<Op> operations(Gen gen) {
        return gen.list(0, 60, g -> g.frequency(OPERATIONS));
    }

    @Test
    void logBehavesLikeAList() {
        Properties.forAll(100, gen -> {
            List<Op> ops = operations(gen);
            Path dir = Files.createDirectories(Path.of("target", "tmp")).resolve("plog-" + System.nanoTime());
            ManualClock clock = new ManualClock(T0);
            LogConfig config = LogConfig.defaults()
                    .with(LogConfig.SEGMENT_BYTES, "3000")
                    .with(LogConfig.RETENTION_MS, "30000")
                    .with(LogConfig.RETENTION_BYTES, "12000")
                    .with(LogConfig.FILE_DELETE_DELAY_MS, "0");
            List<Entry> model = new ArrayList<>();
            long logStart = 0;
            long nextOffset = 0;
            int counter = 0;
            PartitionLog log = PartitionLog.open("p-0", dir, config, clock, LogFiles.real(), INLINE);
            try {
                for (Op op : ops) {
                    switch (op) {
                        case Append a -> {
                            String[] kvs = new String[a.records() * 2];
                            for (int i = 0; i < a.records(); i++) {
                                String value = (counter++) + ":" + "x".repeat(a.valueSize());
                                kvs[2 * i] = "k" + (counter % 7);
                                kvs[2 * i + 1] = value;
                                model.add(new Entry(nextOffset + i, value));
                            }
                            AppendResult r = log.append(TestBatches.batch(clock.millis(), kvs));
                            log.awaitDurable(r.endOffset()).join();
                            assertThat(r.firstOffset()).isEqualTo(nextOffset);
                            nextOffset += a.records();
                            clock.advance(100);
                        }
                        case Read r -> {
                            if (!model.isEmpty()) {
                                long from = logStart + (nextOffset - logStart) * r.fromPercent() / 100;
                                List<Entry> expected = model.stream()
                                        .filter(e -> e.offset() >= from)
                                        .toList();
                                assertThat(entries(TestBatches.readAll(log, from)))
                                        .isEqualTo(expected);
                            }
                        }
                        case Roll ignored -> log.forceRoll();
                        case Retain r -> {
                            clock.advance(r.advanceMs());
                            log.deleteRetainedSegments();
                            log.tick();
                            assertThat(log.logStartOffset()).isGreaterThanOrEqualTo(logStart);
                            logStart = log.logStartOffset();
                            assertThat(log.sizeInBytes()).isLessThanOrEqualTo(12000 + 3000 + 2000);
                        }
                        case DeleteRecords d -> {
                            long target = logStart + (nextOffset - logStart) * d.toPercent() / 100;
                            assertThat(log.advanceLogStartOffset(target)).isEqualTo(Math.max(target, logStart));
                            logStart = log.logStartOffset();
                        }
                        case Restart r -> {
                            if (r.clean()) {
                                log.close();
                            } else {
                                log.closeUncleanly();
                            }
                            log = PartitionLog.open("p-0", dir, config, clock, LogFiles.real(), INLINE);
                            assertThat(log.recoveredCleanly()).isEqualTo(r.clean());
                        }
                    }
                    long start = logStart;
                    model.removeIf(e -> e.offset() < start);
                    assertThat(log.logEndOffset()).isEqualTo(nextOffset);
                    assertThat(log.logStartOffset()).isEqualTo(logStart);
                    assertThat(entries(TestBatches.readAll(log))).isEqualTo(model);
                }
            } finally {
                log.close();
            }
        });
    }

    private static List<Entry> entries(List<TestBatches.Read> reads) {
        return reads.stream().map(r -> new Entry(r.offset(), r.value())).toList();
    }
}
