package io.orderflow.contracts;

import java.util.regex.Pattern;

/**
 * The format rule for a W3C trace-context {@code traceparent} value: {@code 00-<32 hex>-<16 hex>-<2 hex>}.
 *
 * <p>Only version {@code 00} is accepted, in lower-case hex as the W3C recommendation requires, and an all-zero trace
 * id or parent id is rejected because the recommendation declares them invalid. A bad value is refused when an envelope
 * is built, so a consumer never propagates garbage into its own spans.
 */
public final class Traceparent {

    private static final Pattern FORMAT = Pattern.compile("00-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}");
    private static final String ZERO_TRACE_ID = "0".repeat(32);
    private static final String ZERO_PARENT_ID = "0".repeat(16);

    private Traceparent() {}

    public static boolean isValid(String value) {
        if (value == null) {
            return false;
        }
        var matcher = FORMAT.matcher(value);
        return matcher.matches()
                && !matcher.group(1).equals(ZERO_TRACE_ID)
                && !matcher.group(2).equals(ZERO_PARENT_ID);
    }

    /** Returns {@code value} if it is null (no trace context) or valid; throws {@link IllegalArgumentException}. */
    public static String requireValidOrNull(String value) {
        if (value != null && !isValid(value)) {
            throw new IllegalArgumentException(
                    "traceparent must look like 00-<32 hex>-<16 hex>-<2 hex> with non-zero ids, was \"" + value + "\"");
        }
        return value;
    }
}
