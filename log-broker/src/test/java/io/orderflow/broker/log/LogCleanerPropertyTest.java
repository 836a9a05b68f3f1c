package io.orderflow.broker.log;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.broker.log.TestBatches.Read;
import io.orderflow.property.Gen;
import io.orderflow.property.Properties;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SequencedMap;
import java.util.concurrent.Executor;
import java.util.function.Function;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;

/**
 * Random sequences of keyed appends (tombstones, keyless records from before the policy became compact, compressed
 * and idempotent batches), rolls, cleanings at moving times and restarts, checked against a model of a compacted
 * log: a list of records, the start of the active segment, and the delete horizon each kept tombstone was given.
 */
class LogCleanerPropertyTest {
    private static final long T0 = 1_700_000_000_000L;
    private static final long DELETE_RETENTION_MS = 1_000;
    private static final Executor INLINE = Runnable::run;
    private static final List<String> CODECS = List.of("none", "gzip", "lz4", "zstd", "snappy");
    private static final String ALPHA = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";

    sealed interface Op {}

    /** {@code producer} -1 for a plain batch, else an idempotent producer id. */
    record Append(List<Kv> records, String codec, long producer) implements Op {}

    record Kv(String key, String value) {}

    record Roll() implements Op {}

    record Clean(long advanceMs) implements Op {}

    record Restart(boolean clean) implements Op {}

    record Entry(long offset, long timestamp, String key, String value) {}

    /** Each kind of operation with its weight, in a fixed order, so that a seed draws the same operations. */
    private static final SequencedMap<Function<Gen, ? extends Op>, Integer> OPERATIONS = new LinkedHashMap<>();

    static {
        OPERATIONS.put(LogCleanerPropertyTest::append, 10);
        OPERATIONS.put(gen -> new Roll(), 3);
        OPERATIONS.put(gen -> new Clean(gen.longs(0, 1_500)), 3);
        OPERATIONS.put(gen -> new Restart(gen.bool()), 1);
    }

    static List<Op> operations(Gen gen) {
        return gen.list(0, 50, g -> g.frequency(OPERATIONS));
    }

    static Append append(Gen gen) {
        List<Kv> records = gen.list(1, 6, LogCleanerPropertyTest::kv);
        return new Append(records, gen.oneOf(CODECS), gen.oneOf(-1L, -1L, 100L, 101L));
    }

    static Kv kv(Gen gen) {
        String key = gen.chance(0.08) ? null : "k" + gen.ints(0, 5);
        String value = gen.chance(0.17) ? null : gen.string(1, 40, ALPHA);
        return new Kv(key, value);
    }

    @Test
    void compactedPartHoldsExactlyTheLatestRecordOfEachKey() {
        Properties.forAll(80, gen -> {
            List<Op> ops = operations(gen);
            Path dir = Files.createDirectories(Path.of("target", "tmp")).resolve("clean-" + System.nanoTime());
            ManualClock clock = new ManualClock(T0);
            LogConfig config = LogConfig.defaults()
                    .with(LogConfig.CLEANUP_POLICY, "compact")
                    .with(LogConfig.DELETE_RETENTION_MS, Long.toString(DELETE_RETENTION_MS))
                    .with(LogConfig.FILE_DELETE_DELAY_MS, "0")
                    .with(LogConfig.FLUSH_MESSAGES, Long.toString(Long.MAX_VALUE));
            LogCleaner cleaner = new LogCleaner(clock);
            List<Entry> model = new ArrayList<>();
            Map<Long, Long> horizons = new HashMap<>(); // tombstone offset -> delete horizon
            Map<Long, Integer> nextSequence = new HashMap<>();
            Map<Long, Long> lastBatchOf = new HashMap<>(); // producer -> last offset of its latest batch
            long nextOffset = 0;
            long activeBase = 0;
            PartitionLog log = PartitionLog.open("p-0", dir, config, clock, LogFiles.real(), INLINE);
            try {
                for (Op op : ops) {
                    switch (op) {
                        case Append a -> {
                            long ts = clock.millis();
                            ByteBuffer batch = batch(a, ts, nextSequence.getOrDefault(a.producer(), 0));
                            // A compacted topic refuses keyless records; such a log holds them only from before its
                            // policy became compact, which this models by appending them under the delete policy.
                            boolean keyless = a.records().stream().anyMatch(kv -> kv.key() == null);
                            if (keyless) {
                                log.updateConfig(config.with(LogConfig.CLEANUP_POLICY, "delete"));
                            }
                            AppendResult r = log.append(batch);
                            log.updateConfig(config);
                            assertThat(r.firstOffset()).isEqualTo(nextOffset);
                            for (Kv kv : a.records()) {
                                model.add(new Entry(nextOffset++, ts, kv.key(), kv.value()));
                            }
                            if (a.producer() >= 0) {
                                nextSequence.merge(a.producer(), a.records().size(), Integer::sum);
                                lastBatchOf.put(a.producer(), nextOffset - 1);
                            }
                            clock.advance(10);
                        }
                        case Roll ignored -> {
                            log.forceRoll();
                            activeBase = nextOffset;
                        }
                        case Clean c -> {
                            clock.advance(c.advanceMs());
                            List<Entry> before = List.copyOf(model);
                            cleaner.clean(log);
                            compact(model, horizons, activeBase, clock.millis());
                            checkLatestPerKeyKept(before, TestBatches.readAll(log), activeBase);
                            checkProducersLastBatchesKept(log, lastBatchOf, activeBase);
                        }
                        case Restart r -> {
                            if (r.clean()) {
                                log.close();
                            } else {
                                log.closeUncleanly();
                            }
                            log = PartitionLog.open("p-0", dir, config, clock, LogFiles.real(), INLINE);
                        }
                    }
                    assertThat(log.logStartOffset()).isZero();
                    assertThat(log.logEndOffset()).isEqualTo(nextOffset);
                    assertThat(entries(TestBatches.readAll(log))).isEqualTo(model);
                }
            } finally {
                log.close();
                log.deleteDirectory();
            }
        });
    }

    private static ByteBuffer batch(Append a, long timestamp, int sequence) {
        SimpleRecord[] records = a.records().stream()
                .map(kv -> new SimpleRecord(timestamp, bytes(kv.key()), bytes(kv.value())))
                .toArray(SimpleRecord[]::new);
        Compression compression = Compression.of(a.codec()).build();
        MemoryRecords built = a.producer() < 0
                ? MemoryRecords.withRecords(compression, records)
                : MemoryRecords.withIdempotentRecords(compression, a.producer(), (short) 0, sequence, records);
        return built.buffer();
    }

    private static byte[] bytes(String s) {
        return s == null ? null : s.getBytes(StandardCharsets.UTF_8);
    }

    /**
     * The model of one cleaning at {@code now}: below {@code activeBase}, a keyed record stays only if it is the
     * latest of its key, and a tombstone only until the horizon given by the first cleaning that kept it.
     */
    private static void compact(List<Entry> model, Map<Long, Long> horizons, long activeBase, long now) {
        Map<String, Long> latest = new HashMap<>();
        for (Entry e : model) {
            if (e.offset() < activeBase && e.key() != null) {
                latest.put(e.key(), e.offset());
            }
        }
        model.removeIf(e -> {
            if (e.offset() >= activeBase || e.key() == null) {
                return false;
            }
            if (e.offset() < latest.get(e.key())) {
                return true;
            }
            if (e.value() != null) {
                return false;
            }
            Long horizon = horizons.putIfAbsent(e.offset(), now + DELETE_RETENTION_MS);
            return horizon != null && now >= horizon;
        });
    }

    /**
     * The invariant, stated without the model: every key's latest value in the sealed part is still at
     * its offset, nothing older of that key is left there, and the active segment is as it was.
     */
    private static void checkLatestPerKeyKept(List<Entry> before, List<Read> after, long activeBase) {
        Map<String, Entry> latest = new HashMap<>();
        for (Entry e : before) {
            if (e.offset() < activeBase && e.key() != null) {
                latest.put(e.key(), e);
            }
        }
        List<Entry> afterEntries = entries(after);
        for (Entry e : latest.values()) {
            if (e.value() != null) {
                assertThat(afterEntries).as("latest value of %s", e.key()).contains(e);
            }
        }
        for (Entry e : afterEntries) {
            if (e.offset() < activeBase && e.key() != null) {
                assertThat(e.offset())
                        .as("record of %s", e.key())
                        .isEqualTo(latest.get(e.key()).offset());
            }
        }
        assertThat(afterEntries.stream().filter(e -> e.offset() >= activeBase).toList())
                .isEqualTo(before.stream().filter(e -> e.offset() >= activeBase).toList());
    }

    /** The latest batch of each idempotent producer in the sealed part survives, empty or not. */
    private static void checkProducersLastBatchesKept(PartitionLog log, Map<Long, Long> lastBatchOf, long activeBase) {
        List<BatchHeader> sealed = new ArrayList<>();
        log.sealedSegments().forEach(s -> s.forEachBatch(sealed::add));
        Map<Long, Long> lastSealed = new HashMap<>();
        for (BatchHeader h : sealed) {
            if (h.hasProducerId()) {
                lastSealed.merge(h.producerId(), h.lastOffset(), Math::max);
            }
        }
        lastBatchOf.forEach((producer, lastOffset) -> {
            if (lastOffset < activeBase) {
                assertThat(lastSealed.get(producer))
                        .as("last batch of producer %d", producer)
                        .isEqualTo(lastOffset);
            }
        });
    }

    private static List<Entry> entries(List<Read> reads) {
        return reads.stream()
                .map(r -> new Entry(r.offset(), r.timestamp(), r.key(), r.value()))
                .toList();
    }

    // --- the key map against a HashMap ---

    record Put(int key, boolean lookUpOnly) {}

    static List<Put> puts(Gen gen) {
        return gen.list(0, 4_000, g -> new Put(g.ints(0, 3_000), g.oneOf(false, false, true)));
    }

    @Test
    void keyOffsetMapAgreesWithAHashMap() {
        Properties.forAll(60, gen -> {
            List<Put> puts = puts(gen);
            int maxKeys = maxKeys(gen);
            KeyOffsetMap map = new KeyOffsetMap(maxKeys);
            Map<String, Long> oracle = new HashMap<>();
            long offset = 0;
            for (Put p : puts) {
                String key = "key-" + p.key();
                ByteBuffer keyBytes = ByteBuffer.wrap(key.getBytes(StandardCharsets.UTF_8));
                if (p.lookUpOnly()) {
                    assertThat(map.get(keyBytes)).isEqualTo(oracle.getOrDefault(key, -1L));
                    continue;
                }
                boolean fits = oracle.containsKey(key) || oracle.size() < maxKeys;
                assertThat(map.put(keyBytes, offset)).isEqualTo(fits);
                assertThat(keyBytes.position()).isZero();
                if (fits) {
                    oracle.put(key, offset);
                }
                offset++;
                assertThat(map.size()).isEqualTo(oracle.size());
            }
            oracle.forEach((key, o) -> assertThat(map.get(ByteBuffer.wrap(key.getBytes(StandardCharsets.UTF_8))))
                    .isEqualTo(o));
        });
    }

    static int maxKeys(Gen gen) {
        return gen.bool() ? gen.ints(1, 40) : gen.ints(1, 5_000);
    }
}
