package io.orderflow.broker.log;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.property.Gen;
import io.orderflow.property.Properties;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SequencedMap;
import java.util.TreeMap;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * Random appends (one to three batches each, from three producers, with epochs and sequences chosen to hit
 * retries, gaps, fenced epochs and wraparound), expiry, snapshots and restarts, checked against a model that
 * keeps every stored batch of every producer and derives the rules from that history.
 */
class ProducerStateTablePropertyTest {
    private static final long T0 = 1_700_000_000_000L;
    private static final long EXPIRATION_MS = 10_000;

    sealed interface Op {}

    record Append(long advanceMs, List<Proposal> batches) implements Op {}

    /** Moves the clock, expires producers, and snapshots the table (so no snapshot predates an expiry). */
    record Expire(long advanceMs) implements Op {}

    record Snapshot() implements Op {}

    /** A new table from the latest snapshot plus a replay of the log after it. */
    record Restart() implements Op {}

    enum EpochChoice {
        SAME,
        NEXT,
        PREVIOUS,
        ANY
    }

    enum SequenceChoice {
        NEXT,
        RETRY,
        ZERO,
        GAP,
        BEHIND,
        NEAR_MAX,
        ANY
    }

    /** How one batch is chosen, relative to the state when it runs; {@code producer} 0 sends a plain batch. */
    record Proposal(int producer, EpochChoice epoch, SequenceChoice sequence, int pick, int records) {}

    sealed interface Outcome {}

    record Stored() implements Outcome {}

    record Duplicate(BatchMetadata original) implements Outcome {}

    record EpochFenced() implements Outcome {}

    record OutOfOrder(int expected) implements Outcome {}

    /** Producer 0 (a plain batch) to 3, each with its weight, in a fixed order so that a seed draws the same. */
    private static final SequencedMap<Function<Gen, ? extends Integer>, Integer> PRODUCERS = new LinkedHashMap<>();

    private static final SequencedMap<Function<Gen, ? extends EpochChoice>, Integer> EPOCHS = new LinkedHashMap<>();

    private static final SequencedMap<Function<Gen, ? extends SequenceChoice>, Integer> SEQUENCES =
            new LinkedHashMap<>();

    private static final SequencedMap<Function<Gen, ? extends Op>, Integer> OPERATIONS = new LinkedHashMap<>();

    static {
        PRODUCERS.put(gen -> 0, 1);
        PRODUCERS.put(gen -> 1, 6);
        PRODUCERS.put(gen -> 2, 4);
        PRODUCERS.put(gen -> 3, 3);
        EPOCHS.put(gen -> EpochChoice.SAME, 12);
        EPOCHS.put(gen -> EpochChoice.NEXT, 1);
        EPOCHS.put(gen -> EpochChoice.PREVIOUS, 2);
        EPOCHS.put(gen -> EpochChoice.ANY, 1);
        SEQUENCES.put(gen -> SequenceChoice.NEXT, 10);
        SEQUENCES.put(gen -> SequenceChoice.RETRY, 4);
        SEQUENCES.put(gen -> SequenceChoice.ZERO, 1);
        SEQUENCES.put(gen -> SequenceChoice.GAP, 1);
        SEQUENCES.put(gen -> SequenceChoice.BEHIND, 1);
        SEQUENCES.put(gen -> SequenceChoice.NEAR_MAX, 2);
        SEQUENCES.put(gen -> SequenceChoice.ANY, 1);
        OPERATIONS.put(
                gen -> new Append(gen.longs(0, 2_000), gen.list(1, 3, ProducerStateTablePropertyTest::proposal)), 20);
        OPERATIONS.put(gen -> new Expire(gen.longs(0, 15_000)), 1);
        OPERATIONS.put(gen -> new Snapshot(), 1);
        OPERATIONS.put(gen -> new Restart(), 1);
    }

    static Proposal proposal(Gen gen) {
        return new Proposal(
                gen.frequency(PRODUCERS),
                gen.frequency(EPOCHS),
                gen.frequency(SEQUENCES),
                gen.ints(0, 1000),
                gen.ints(1, 3));
    }

    static List<Op> operations(Gen gen) {
        return gen.list(10, 80, g -> g.frequency(OPERATIONS));
    }

    /** Outcomes every run of the property must see at least 10 times in all, or it tests too little. */
    private static final List<String> COVERED = List.of("Stored", "Duplicate", "EpochFenced", "OutOfOrder", "Wrapped");

    @Test
    void behavesLikeTheHistoryModel() {
        Map<String, Integer> outcomes = new HashMap<>();
        Properties.forAll(150, gen -> {
            List<Op> ops = operations(gen);
            Path dir = Files.createTempDirectory("producer-state");
            try {
                new Run(dir, outcomes).execute(ops);
            } finally {
                try (var paths = Files.walk(dir)) {
                    for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                        Files.deleteIfExists(p);
                    }
                }
            }
        });
        // A replayed try (-Dproperty.seed) is one try of 150: too few for the coverage the whole run must reach.
        if (System.getProperty(Properties.SEED_PROPERTY, "").isBlank()) {
            for (String kind : COVERED) {
                assertThat(outcomes.getOrDefault(kind, 0))
                        .as("count of outcome %s", kind)
                        .isGreaterThanOrEqualTo(10);
            }
        }
    }

    /** One run: the table under test, the model, and the log both were fed. */
    private static final class Run {
        private final Path dir;
        private final Map<String, Integer> outcomes;
        private final LogFiles files = LogFiles.real();
        private final Model model = new Model();
        private final List<BatchHeader> log = new ArrayList<>();
        private ProducerStateTable table = new ProducerStateTable("orders-3");
        private long now = T0;
        private long logEnd;

        Run(Path dir, Map<String, Integer> outcomes) {
            this.dir = dir;
            this.outcomes = outcomes;
        }

        void execute(List<Op> ops) {
            for (int step = 0; step < ops.size(); step++) {
                Op op = ops.get(step);
                switch (op) {
                    case Append a -> {
                        now += a.advanceMs();
                        List<BatchHeader> batches = resolve(a.batches());
                        Outcome expected = model.append(batches);
                        Outcome actual = appendToTable(batches);
                        assertThat(actual)
                                .as("step %d: %s as %s", step, op, batches)
                                .isEqualTo(expected);
                        outcomes.merge(actual.getClass().getSimpleName(), 1, Integer::sum);
                        if (actual instanceof Stored
                                && batches.stream().anyMatch(h -> h.lastSequence() < h.baseSequence())) {
                            outcomes.merge("Wrapped", 1, Integer::sum);
                        }
                        if (actual instanceof Stored) {
                            log.addAll(batches);
                            logEnd = batches.getLast().nextOffset();
                        }
                    }
                    case Expire e -> {
                        now += e.advanceMs();
                        int removed = table.removeExpired(now, EXPIRATION_MS);
                        assertThat(removed).as("step %d: expired", step).isEqualTo(model.expire(now));
                        table.writeSnapshot(files, dir, logEnd);
                    }
                    case Snapshot s -> table.writeSnapshot(files, dir, logEnd);
                    case Restart r -> {
                        ProducerStateTable recovered = new ProducerStateTable("orders-3");
                        long from = Math.max(0, recovered.loadLatestSnapshot(files, dir, logEnd));
                        log.stream().filter(h -> h.baseOffset() >= from).forEach(recovered::replay);
                        table = recovered;
                    }
                }
                assertThat(table.entries()).as("step %d: %s", step, op).isEqualTo(model.entries());
                assertSnapshotRoundTrips(step);
            }
        }

        private void assertSnapshotRoundTrips(int step) {
            try {
                List<ProducerEntry> decoded =
                        ProducerSnapshotFile.decode(ProducerSnapshotFile.encode(logEnd, table.entries()), logEnd);
                assertThat(decoded).as("step %d: snapshot round trip", step).isEqualTo(table.entries());
            } catch (ProducerSnapshotFile.CorruptSnapshotException e) {
                throw new AssertionError("step " + step + ": a fresh snapshot does not decode", e);
            }
        }

        /** The batches as the partition would check them: offsets from the log end, in order. */
        private List<BatchHeader> resolve(List<Proposal> proposals) {
            Map<Long, BatchHeader> lastInAppend = new HashMap<>();
            List<BatchHeader> batches = new ArrayList<>();
            long offset = logEnd;
            for (Proposal p : proposals) {
                BatchHeader h;
                if (p.producer() == 0) {
                    h = ProducerStateTableTest.header(-1, (short) -1, -1, p.records(), offset, now);
                } else {
                    h = resolve(p, model.history(p.producer()), lastInAppend.get((long) p.producer()), offset);
                    lastInAppend.put(h.producerId(), h);
                }
                batches.add(h);
                offset = h.nextOffset();
            }
            return batches;
        }

        private BatchHeader resolve(
                Proposal p, List<BatchMetadataWithEpoch> history, BatchHeader earlier, long offset) {
            short epoch = earlier != null
                    ? earlier.producerEpoch()
                    : history.isEmpty() ? 0 : history.getLast().epoch();
            int lastSeq = earlier != null
                    ? earlier.lastSequence()
                    : history.isEmpty()
                            ? firstSequenceOf(p.producer()) - 1
                            : history.getLast().batch().lastSequence();
            epoch = switch (p.epoch()) {
                case SAME -> epoch;
                case NEXT -> (short) (epoch + 1);
                case PREVIOUS -> (short) Math.max(0, epoch - 1);
                case ANY -> (short) (p.pick() % 4);
            };
            int records = p.records();
            int sequence = switch (p.sequence()) {
                case NEXT -> lastSeq == Integer.MAX_VALUE ? 0 : lastSeq + 1;
                case RETRY -> {
                    if (history.isEmpty()) {
                        yield 0;
                    }
                    BatchMetadata retried = history.get(Math.max(0, history.size() - 1 - p.pick() % 6))
                            .batch();
                    records = (int) Math.floorMod(
                                    (long) retried.lastSequence() - retried.firstSequence(), 1L + Integer.MAX_VALUE)
                            + 1;
                    yield retried.firstSequence();
                }
                case ZERO -> 0;
                case GAP -> (int) ((lastSeq + 2L + p.pick() % 3) % (1L + Integer.MAX_VALUE));
                case BEHIND -> Math.max(0, lastSeq - p.pick() % 3);
                case NEAR_MAX -> Integer.MAX_VALUE - p.pick() % 3;
                case ANY -> p.pick() % 50;
            };
            return ProducerStateTableTest.header(p.producer(), epoch, sequence, records, offset, now);
        }

        /** Where a producer starts: producer 3 just below the wraparound, so that it crosses it often. */
        private static int firstSequenceOf(int producer) {
            return producer == 3 ? Integer.MAX_VALUE - 4 : 0;
        }

        private Outcome appendToTable(List<BatchHeader> batches) {
            ProducerAppend append = table.prepare();
            try {
                for (BatchHeader h : batches) {
                    BatchMetadata original = append.check(h);
                    if (original != null) {
                        return new Duplicate(original);
                    }
                }
            } catch (InvalidProducerEpochException e) {
                return new EpochFenced();
            } catch (OutOfOrderSequenceException e) {
                return new OutOfOrder(e.expectedSequence());
            }
            append.commit();
            return new Stored();
        }
    }

    record BatchMetadataWithEpoch(short epoch, BatchMetadata batch) {}

    /**
     * Every batch stored for each producer since the producer was last forgotten, oldest first. A producer's
     * epoch is that of its last batch, and the batches it still recognises as retries are the last five of
     * that epoch.
     */
    private static final class Model {
        private final TreeMap<Long, List<BatchMetadataWithEpoch>> histories = new TreeMap<>();

        List<BatchMetadataWithEpoch> history(long producerId) {
            return histories.getOrDefault(producerId, List.of());
        }

        Outcome append(List<BatchHeader> batches) {
            Map<Long, List<BatchMetadataWithEpoch>> tentative = new HashMap<>();
            for (BatchHeader h : batches) {
                if (h.producerId() < 0) {
                    continue;
                }
                List<BatchMetadataWithEpoch> stored = history(h.producerId());
                int lastSequence = lastSequence(h.baseSequence(), h.recordCount());
                for (BatchMetadataWithEpoch retained : retained(stored)) {
                    if (retained.epoch() == h.producerEpoch()
                            && retained.batch().firstSequence() == h.baseSequence()
                            && retained.batch().lastSequence() == lastSequence) {
                        return new Duplicate(retained.batch());
                    }
                }
                List<BatchMetadataWithEpoch> sofar = tentative.getOrDefault(h.producerId(), stored);
                short epoch = sofar.isEmpty() ? -1 : sofar.getLast().epoch();
                if (h.producerEpoch() < epoch) {
                    return new EpochFenced();
                }
                if (h.producerEpoch() != epoch) {
                    if (epoch != -1 && h.baseSequence() != 0) {
                        return new OutOfOrder(0);
                    }
                } else if (!stored.isEmpty()) {
                    int last = sofar.getLast().batch().lastSequence();
                    int expected = last == Integer.MAX_VALUE ? 0 : last + 1;
                    if (h.baseSequence() != expected) {
                        return new OutOfOrder(expected);
                    }
                }
                List<BatchMetadataWithEpoch> extended = new ArrayList<>(sofar);
                extended.add(new BatchMetadataWithEpoch(
                        h.producerEpoch(),
                        new BatchMetadata(
                                h.baseSequence(),
                                lastSequence,
                                h.baseOffset(),
                                h.baseOffset() + h.recordCount() - 1,
                                h.maxTimestamp())));
                tentative.put(h.producerId(), extended);
            }
            histories.putAll(tentative);
            return new Stored();
        }

        private static int lastSequence(int base, int records) {
            return (int) (((long) base + records - 1) % (1L + Integer.MAX_VALUE));
        }

        private static List<BatchMetadataWithEpoch> retained(List<BatchMetadataWithEpoch> history) {
            if (history.isEmpty()) {
                return List.of();
            }
            short epoch = history.getLast().epoch();
            List<BatchMetadataWithEpoch> sameEpoch = new ArrayList<>();
            for (int i = history.size() - 1; i >= 0 && history.get(i).epoch() == epoch; i--) {
                sameEpoch.addFirst(history.get(i));
            }
            return sameEpoch.subList(Math.max(0, sameEpoch.size() - ProducerEntry.BATCHES_RETAINED), sameEpoch.size());
        }

        int expire(long nowMs) {
            int before = histories.size();
            histories.values().removeIf(h -> nowMs - h.getLast().batch().maxTimestamp() >= EXPIRATION_MS);
            return before - histories.size();
        }

        List<ProducerEntry> entries() {
            List<ProducerEntry> entries = new ArrayList<>();
            histories.forEach((producerId, history) -> entries.add(new ProducerEntry(
                    producerId,
                    history.getLast().epoch(),
                    history.getLast().batch().maxTimestamp(),
                    retained(history).stream()
                            .map(BatchMetadataWithEpoch::batch)
                            .toList())));
            return entries;
        }
    }
}
