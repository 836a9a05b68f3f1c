package io.orderflow.ops.powercut;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.SplittableRandom;

/**
 * The faults of one chaos run, drawn from a seed: the same seed and length give the same faults, on the same
 * processes, with the same durations, planned for the same seconds of the run. That is what makes a chaos run replay:
 * the machine's timing differs between runs, the plan does not.
 *
 * <p>Faults are planned {@link #SPACING} apart with a drawn offset of up to a third of it, from half a spacing into
 * the run until half a spacing before its end: a two-minute run has six. Kinds are dealt in rounds, each round every {@link ChaosFault.Kind} once in
 * a drawn order, so that a short run still meets every kind (six faults: every kind once) and a long one meets each
 * about equally often; each fault's target is drawn from its kind's targets.
 */
public record ChaosPlan(long seed, Duration length, List<Planned> faults) {

    /** Time between two planned faults. */
    public static final Duration SPACING = Duration.ofSeconds(20);

    /** A fault and the second of the run it is planned for. */
    public record Planned(int atSecond, ChaosFault fault) {}

    public ChaosPlan {
        faults = List.copyOf(faults);
    }

    /** The plan of a run of {@code length} with {@code seed}. */
    public static ChaosPlan draw(long seed, Duration length) {
        if (length.compareTo(SPACING) < 0) {
            throw new IllegalArgumentException("a chaos run lasts at least " + SPACING.toSeconds()
                    + " s (one fault); was " + length.toSeconds() + " s");
        }
        SplittableRandom draws = new SplittableRandom(seed);
        int spacing = (int) SPACING.toSeconds();
        List<Planned> faults = new ArrayList<>();
        List<ChaosFault.Kind> round = new ArrayList<>();
        for (int at = spacing / 2; at + spacing / 2 <= length.toSeconds(); at += spacing) {
            if (round.isEmpty()) {
                round.addAll(List.of(ChaosFault.Kind.values()));
                Collections.shuffle(round, new Random(draws.nextLong()));
            }
            ChaosFault.Kind kind = round.removeFirst();
            faults.add(new Planned(at + draws.nextInt(spacing / 3 + 1), ChaosFault.draw(kind, faults.size(), draws)));
        }
        return new ChaosPlan(seed, length, faults);
    }

    /** One line per fault, as the report opens with it. */
    public List<String> describe() {
        return faults.stream()
                .map(planned -> String.format("at %4d s: %s", planned.atSecond(), planned.fault()))
                .toList();
    }
}
