package io.orderflow.ops.load;

import java.util.OptionalLong;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * A count on a command line (the load generator, the drills, the benchmarks): a whole number, with commas or underscores allowed only between groups of
 * three digits ({@code 2000}, {@code 2,000}, {@code 2_000}), so that {@code --records 3,000,000,000} reads as typed
 * and {@code --partitions 1,5} is refused rather than read as 15. The nested converters add the range; picocli names
 * the option in front of their message.
 */
public final class WholeNumber {
    private static final Pattern THOUSANDS = Pattern.compile("-?\\d{1,3}([,_]\\d{3})+");

    private WholeNumber() {}

    /** {@code text} as a long, or empty if it is no whole number. */
    private static OptionalLong parse(String text) {
        String digits =
                THOUSANDS.matcher(text).matches() ? text.replace(",", "").replace("_", "") : text;
        try {
            return OptionalLong.of(Long.parseLong(digits));
        } catch (NumberFormatException e) {
            return OptionalLong.empty();
        }
    }

    /** {@code text} as a long of at least {@code min}, refused with a message naming the text and {@code range}. */
    private static long atLeast(String text, long min, long max, String range) {
        OptionalLong value = parse(text);
        if (value.isPresent() && value.getAsLong() > max) {
            throw new TypeConversionException("'" + text + "' is out of range (at most " + max + ")");
        }
        if (value.isEmpty() || value.getAsLong() < min) {
            throw new TypeConversionException("'" + text + "' is not a whole number" + range
                    + (value.isEmpty() ? " (thousands may be grouped: 2,000 or 2_000)" : ""));
        }
        return value.getAsLong();
    }

    /** A whole number above 0. */
    public static final class Positive implements ITypeConverter<Integer> {
        @Override
        public Integer convert(String text) {
            return (int) atLeast(text, 1, Integer.MAX_VALUE, " above 0");
        }
    }

    /** A whole number above 0, up to {@link Long#MAX_VALUE}. */
    public static final class PositiveLong implements ITypeConverter<Long> {
        @Override
        public Long convert(String text) {
            return atLeast(text, 1, Long.MAX_VALUE, " above 0");
        }
    }

    /** A whole number, 0 or more. */
    public static final class NotNegative implements ITypeConverter<Integer> {
        @Override
        public Integer convert(String text) {
            return (int) atLeast(text, 0, Integer.MAX_VALUE, ", 0 or more");
        }
    }
}
