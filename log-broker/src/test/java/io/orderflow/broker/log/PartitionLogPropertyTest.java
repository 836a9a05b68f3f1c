package io.orderflow.broker.log;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.Size;

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

    @Provide
    Arbitrary<List<Op>> operations() {
        Arbitrary<Op> op = Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(
                        10,
                        Arbitraries.integers()
                                .between(1, 5)
                                .flatMap(n ->
                                        Arbitraries.integers().between(1, 300).map(size -> (Op) new Append(n, size)))),
                net.jqwik.api.Tuple.of(3, Arbitraries.integers().between(0, 100).map(p -> (Op) new Read(p))),
                net.jqwik.api.Tuple.of(1, Arbitraries.just((Op) new Roll())),
                net.jqwik.api.Tuple.of(1, Arbitraries.longs().between(0, 20_000).map(ms -> (Op) new Retain(ms))),
                net.jqwik.api.Tuple.of(1, Arbitraries.integers().between(0, 100).map(p -> (Op) new DeleteRecords(p))),
                net.jqwik.api.Tuple.of(1, Arbitraries.of(true, false).map(clean -> (Op) new Restart(clean))));
        return op.list().ofMaxSize(60);
    }

    @Property(tries = 100)
    void logBehavesLikeAList(@ForAll("operations") @Size(max = 60) List<Op> ops) throws IOException {
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
                            assertThat(entries(TestBatches.readAll(log, from))).isEqualTo(expected);
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
    }

    private static List<Entry> entries(List<TestBatches.Read> reads) {
        return reads.stream().map(r -> new Entry(r.offset(), r.value())).toList();
    }
}
