package io.orderflow.property;

import java.security.SecureRandom;
import java.util.SplittableRandom;

/**
 * Runs a property: a check that must hold for every value a {@link Gen} draws, tried {@code tries} times, each try
 * with a generator of its own seed. Seeds differ from run to run, so every build explores new values; the first
 * failing try stops the run with an {@link AssertionError} that names its seed and how to replay it:
 *
 * <pre>{@code ./mvnw test -pl MODULE -Dtest='SomePropertyTest#someProperty' -Dproperty.seed=SEED}</pre>
 *
 * <p>With {@code property.seed} set, every property runs exactly one try with that seed, drawing the same values the
 * failing try drew. There is no shrinking: generators keep sizes small and favour edges instead, and the failure's
 * cause says what went wrong with the values as drawn.
 *
 * <p>A property that wants statistics (how often each outcome happened) counts them itself and asserts on them after
 * {@link #forAll} returns.
 */
public final class Properties {
    /** The system property that replays one try. */
    public static final String SEED_PROPERTY = "property.seed";

    private static final SplittableRandom SEEDS = new SplittableRandom(new SecureRandom().nextLong());

    private Properties() {}

    /** One try of a property; it fails by throwing. */
    @FunctionalInterface
    public interface Check {
        void check(Gen gen) throws Exception;
    }

    /** Runs {@code check} {@code tries} times (once with {@value #SEED_PROPERTY} set), each with a fresh seed. */
    public static void forAll(int tries, Check check) {
        if (tries < 1) {
            throw new IllegalArgumentException("tries must be at least 1, was " + tries);
        }
        String replay = System.getProperty(SEED_PROPERTY);
        if (replay != null && !replay.isBlank()) {
            run(Long.parseLong(replay.trim()), 1, 1, check);
            return;
        }
        for (int attempt = 1; attempt <= tries; attempt++) {
            long seed;
            synchronized (SEEDS) {
                seed = SEEDS.nextLong();
            }
            run(seed, attempt, tries, check);
        }
    }

    private static void run(long seed, int attempt, int tries, Check check) {
        try {
            check.check(new Gen(seed));
        } catch (Throwable failure) {
            if (failure instanceof VirtualMachineError error) {
                throw error;
            }
            if (failure instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            throw new AssertionError(
                    "Property failed at try " + attempt + " of " + tries + " with seed " + seed + "; replay it with -D"
                            + SEED_PROPERTY + "=" + seed + ": " + failure,
                    failure);
        }
    }
}
