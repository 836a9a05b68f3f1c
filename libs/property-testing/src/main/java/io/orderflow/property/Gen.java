package io.orderflow.property;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SequencedMap;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The values of one try of a property, drawn from one seed: the same seed draws the same values in the same order,
 * which is what makes a failing try replayable ({@link Properties}).
 *
 * <p>Values are uniform within their range, except that every draw of a number, a size or a string favours the edges
 * where bugs live: with probability {@link #EDGE_PROBABILITY} a number is its range's minimum, maximum, zero (when in
 * range) or a neighbour of those, and a collection or string its smallest or largest size. Strings mix ASCII with
 * multi-byte characters, a supplementary one and the control characters U+0000 and U+001F.
 *
 * <p>Not thread-safe: one try, one thread.
 */
public final class Gen {
    /** How often a draw takes an edge of its range instead of a uniform value. */
    public static final double EDGE_PROBABILITY = 0.1;

    private static final int[] SPECIAL_CODE_POINTS = {0x0, 0x1F, 0x7F, 0xE9, 0x3B1, 0x4E2D, 0xFFFD, 0x1F600};

    private final long seed;
    private final SplittableRandom random;

    public Gen(long seed) {
        this.seed = seed;
        this.random = new SplittableRandom(seed);
    }

    /** The seed this try's values come from; {@code -Dproperty.seed=} it to draw them again. */
    public long seed() {
        return seed;
    }

    /** An int in {@code [min, max]}, both inclusive, edges favoured. */
    public int ints(int min, int max) {
        return (int) longs(min, max);
    }

    /** A long in {@code [min, max]}, both inclusive, edges favoured. */
    public long longs(long min, long max) {
        if (min > max) {
            throw new IllegalArgumentException("empty range [" + min + ", " + max + "]");
        }
        if (min == max) {
            return min;
        }
        if (random.nextDouble() < EDGE_PROBABILITY) {
            long[] edges = {min, max, 0, min + 1, max - 1, 1, -1};
            long edge = edges[random.nextInt(edges.length)];
            if (edge >= min && edge <= max) {
                return edge;
            }
            return random.nextBoolean() ? min : max;
        }
        if (max - min >= 0 && max - min < Long.MAX_VALUE) {
            return min + random.nextLong(max - min + 1);
        }
        long value;
        do {
            value = random.nextLong();
        } while (value < min || value > max);
        return value;
    }

    /** Any int, edges ({@code MIN_VALUE}, {@code MAX_VALUE}, 0, ±1) favoured. */
    public int anyInt() {
        return ints(Integer.MIN_VALUE, Integer.MAX_VALUE);
    }

    /** Any long, edges favoured. */
    public long anyLong() {
        return longs(Long.MIN_VALUE, Long.MAX_VALUE);
    }

    public boolean bool() {
        return random.nextBoolean();
    }

    /** True with probability {@code p}. */
    public boolean chance(double p) {
        return random.nextDouble() < p;
    }

    /** A double in {@code [0, 1)}, uniform. */
    public double unit() {
        return random.nextDouble();
    }

    /** One of {@code values}, uniformly. */
    @SafeVarargs
    public final <T> T oneOf(T... values) {
        return values[random.nextInt(values.length)];
    }

    /** One of {@code values}, uniformly. */
    public <T> T oneOf(List<T> values) {
        return values.get(random.nextInt(values.size()));
    }

    /** One of the generators, uniformly, then its value. */
    @SafeVarargs
    public final <T> T oneOfGenerators(Function<Gen, ? extends T>... generators) {
        return generators[random.nextInt(generators.length)].apply(this);
    }

    /**
     * A value of one of the generators, chosen with the given weights (all positive). The map is sequenced (e.g. a
     * {@link java.util.LinkedHashMap}) so that one seed chooses the same generator in every JVM.
     */
    public <T> T frequency(SequencedMap<Function<Gen, ? extends T>, Integer> weighted) {
        int total = weighted.values().stream().mapToInt(Integer::intValue).sum();
        int pick = random.nextInt(total);
        for (Map.Entry<Function<Gen, ? extends T>, Integer> entry : weighted.entrySet()) {
            pick -= entry.getValue();
            if (pick < 0) {
                return entry.getKey().apply(this);
            }
        }
        throw new IllegalStateException("unreachable: weights sum to " + total);
    }

    /** A size in {@code [min, max]}: the edges {@code min} and {@code max} favoured, as for every number. */
    public int size(int min, int max) {
        return ints(min, max);
    }

    /** A list of {@code [minSize, maxSize]} elements, each drawn by {@code element}. */
    public <T> List<T> list(int minSize, int maxSize, Function<Gen, ? extends T> element) {
        int size = size(minSize, maxSize);
        List<T> list = new ArrayList<>(size);
        for (int i = 0; i < size; i++) {
            list.add(element.apply(this));
        }
        return list;
    }

    /** A list of {@code [minSize, maxSize]} elements, each drawn by {@code element}. */
    public <T> List<T> list(int minSize, int maxSize, Supplier<? extends T> element) {
        return list(minSize, maxSize, gen -> element.get());
    }

    /** {@code [minSize, maxSize]} bytes, each any value. */
    public byte[] bytes(int minSize, int maxSize) {
        byte[] bytes = new byte[size(minSize, maxSize)];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = (byte) ints(Byte.MIN_VALUE, Byte.MAX_VALUE);
        }
        return bytes;
    }

    /** {@code [minLength, maxLength]} characters, each drawn from {@code alphabet}. */
    public String string(int minLength, int maxLength, String alphabet) {
        int length = size(minLength, maxLength);
        StringBuilder text = new StringBuilder(length);
        for (int i = 0; i < length; i++) {
            text.append(alphabet.charAt(random.nextInt(alphabet.length())));
        }
        return text.toString();
    }

    /**
     * {@code [minLength, maxLength]} code points of any kind: mostly printable ASCII, with multi-byte, supplementary
     * and control characters mixed in (no lone surrogates: the text is always valid UTF-16 and UTF-8).
     */
    public String anyString(int minLength, int maxLength) {
        int length = size(minLength, maxLength);
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < length; i++) {
            int kind = random.nextInt(10);
            int codePoint;
            if (kind < 6) {
                codePoint = 0x20 + random.nextInt(0x7F - 0x20);
            } else if (kind < 8) {
                codePoint = SPECIAL_CODE_POINTS[random.nextInt(SPECIAL_CODE_POINTS.length)];
            } else {
                do {
                    codePoint = random.nextInt(0x10FFFF + 1);
                } while (codePoint >= Character.MIN_SURROGATE && codePoint <= Character.MAX_SURROGATE);
            }
            text.appendCodePoint(codePoint);
        }
        return text.toString();
    }

    /** {@code [minLength, maxLength]} letters and digits. */
    public String alphanumeric(int minLength, int maxLength) {
        return string(minLength, maxLength, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789");
    }

    /** The UTF-8 bytes of {@link #anyString}. */
    public byte[] utf8(int minLength, int maxLength) {
        return anyString(minLength, maxLength).getBytes(StandardCharsets.UTF_8);
    }

    /** A random (version 4 shaped) UUID. */
    public UUID uuid() {
        return new UUID(
                random.nextLong() & ~0xF000L | 0x4000L, random.nextLong() & 0x3FFFFFFFFFFFFFFFL | 0x8000000000000000L);
    }

    /** An instant in {@code [from, to]} to the microsecond, edges favoured. */
    public Instant instant(Instant from, Instant to) {
        long micros = longs(toMicros(from), toMicros(to));
        return Instant.ofEpochSecond(Math.floorDiv(micros, 1_000_000L), Math.floorMod(micros, 1_000_000L) * 1_000L);
    }

    /** A decimal in {@code [min, max]} (given in units of {@code 10^-scale}) with exactly {@code scale} digits. */
    public BigDecimal decimal(long minUnscaled, long maxUnscaled, int scale) {
        return BigDecimal.valueOf(longs(minUnscaled, maxUnscaled), scale);
    }

    /** A new generator with a seed drawn from this one, for a part that must not shift this one's later draws. */
    public Gen split() {
        return new Gen(random.nextLong());
    }

    private static long toMicros(Instant instant) {
        return Math.addExact(Math.multiplyExact(instant.getEpochSecond(), 1_000_000L), instant.getNano() / 1_000L);
    }

    @Override
    public String toString() {
        return "Gen[seed=" + seed + "]";
    }
}
