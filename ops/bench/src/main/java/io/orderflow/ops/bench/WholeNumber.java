package io.orderflow.ops.bench;

import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * A count on a benchmark's command line: a whole number, with commas or underscores allowed only between groups of
 * three digits ({@code 2000}, {@code 2,000}, {@code 2_000}), so that {@code --records 3,000,000,000} reads as typed
 * and {@code --partitions 1,5} is refused rather than read as 15. The nested converters add the range; picocli names
 * the option in front of their message.
 */
public final class WholeNumber {
    private static final Pattern THOUSANDS = Pattern.compile("-?\\d{1,3}([,_]\\d{3})+");

    private WholeNumber() {}

    /** {@code text} as a long. */
    static long parse(String text) {
        String digits =
                THOUSANDS.matcher(text).matches() ? text.replace(",", "").replace("_", "") : text;
        try {
            return Long.parseLong(digits);
        } catch (NumberFormatException e) {
            throw new TypeConversionException(
                    "'" + text + "' is not a whole number (thousands may be grouped: 2,000 or 2_000)");
        }
    }

    private static int toInt(String text) {
        long value = parse(text);
        if (value != (int) value) {
            throw new TypeConversionException("'" + text + "' is out of range (at most " + Integer.MAX_VALUE + ")");
        }
        return (int) value;
    }

    /** A whole number above 0. */
    public static final class Positive implements ITypeConverter<Integer> {
        @Override
        public Integer convert(String text) {
            int value = toInt(text);
            if (value < 1) {
                throw new TypeConversionException("must be positive, got " + value);
            }
            return value;
        }
    }

    /** A whole number above 0, up to {@link Long#MAX_VALUE}. */
    public static final class PositiveLong implements ITypeConverter<Long> {
        @Override
        public Long convert(String text) {
            long value = parse(text);
            if (value < 1) {
                throw new TypeConversionException("must be positive, got " + value);
            }
            return value;
        }
    }

    /** A whole number, 0 or more. */
    public static final class NotNegative implements ITypeConverter<Integer> {
        @Override
        public Integer convert(String text) {
            int value = toInt(text);
            if (value < 0) {
                throw new TypeConversionException("must not be negative, got " + value);
            }
            return value;
        }
    }
}
