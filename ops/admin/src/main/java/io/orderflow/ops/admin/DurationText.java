package io.orderflow.ops.admin;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * A duration as the operator commands read it: a whole number with a unit ({@code 500ms}, {@code 10s}, {@code 1m},
 * {@code 2h}, {@code 7d}), as the services' configuration writes its retry delays, or ISO-8601 ({@code PT10S}, {@code
 * P1DT2H}), as {@code kafka-consumer-groups --by-duration} reads it. Stateless.
 */
public final class DurationText {

    /** What a refused value is told it should have been. */
    public static final String FORMS = "500ms, 10s, 1m, 2h, 7d or ISO-8601 (PT10S)";

    private DurationText() {}

    /**
     * {@code text} as a duration.
     *
     * @throws IllegalArgumentException naming {@code text} and the forms it may take
     */
    public static Duration parse(String text) {
        try {
            if (text.startsWith("P") || text.startsWith("p") || text.startsWith("-P")) {
                return Duration.parse(text);
            }
            if (text.endsWith("ms")) {
                return Duration.ofMillis(Long.parseLong(text.substring(0, text.length() - 2)));
            }
            String number = text.substring(0, Math.max(0, text.length() - 1));
            return switch (text.isEmpty() ? ' ' : text.charAt(text.length() - 1)) {
                case 's' -> Duration.ofSeconds(Long.parseLong(number));
                case 'm' -> Duration.ofMinutes(Long.parseLong(number));
                case 'h' -> Duration.ofHours(Long.parseLong(number));
                case 'd' -> Duration.ofDays(Long.parseLong(number));
                default -> throw new NumberFormatException("no unit");
            };
        } catch (NumberFormatException | DateTimeParseException e) {
            throw new IllegalArgumentException("'" + text + "' is not a duration: " + FORMS, e);
        }
    }

    /** {@link #parse}, a positive one: picocli's converter for every duration option of the operator commands. */
    public static final class Positive implements ITypeConverter<Duration> {
        @Override
        public Duration convert(String value) {
            Duration duration;
            try {
                duration = parse(value);
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException("'" + value + "' is not a positive duration: " + FORMS);
            }
            if (!duration.isPositive()) {
                throw new TypeConversionException("'" + value + "' is not a positive duration: " + FORMS);
            }
            return duration;
        }
    }
}
