package io.orderflow.contracts;

import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceState;
import java.util.regex.Pattern;

/**
 * The W3C trace-context {@code traceparent} value, {@code 00-<32 hex trace id>-<16 hex parent id>-<2 hex flags>}: the
 * format rule, and the conversion to and from OpenTelemetry's {@link SpanContext}.
 *
 * <p>Only version {@code 00} is accepted, in lower-case hex as the W3C recommendation requires, and an all-zero trace
 * id or parent id is rejected because the recommendation declares them invalid. A bad value is refused when an envelope
 * is built, so a consumer never propagates garbage into its own spans.
 *
 * <p>The platform carries {@code traceparent} alone, in the outbox row and in the record header; {@code tracestate}
 * (vendor data) is not kept, so a span continued from a stored value has an empty trace state.
 */
public final class Traceparent {

    private static final Pattern FORMAT = Pattern.compile("00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})");
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

    /**
     * The remote span context {@code value} names, to be a new span's parent; {@link SpanContext#getInvalid()} when
     * {@code value} is null or not {@link #isValid valid} (a span with an invalid parent starts a new trace).
     */
    public static SpanContext toSpanContext(String value) {
        if (!isValid(value)) {
            return SpanContext.getInvalid();
        }
        var matcher = FORMAT.matcher(value);
        matcher.matches();
        return SpanContext.createFromRemoteParent(
                matcher.group(1), matcher.group(2), TraceFlags.fromHex(matcher.group(3), 0), TraceState.getDefault());
    }

    /** The {@code traceparent} of {@code context}, or null when the context is invalid (no span is recording). */
    public static String of(SpanContext context) {
        if (!context.isValid()) {
            return null;
        }
        return "00-" + context.getTraceId() + "-" + context.getSpanId() + "-"
                + context.getTraceFlags().asHex();
    }
}
