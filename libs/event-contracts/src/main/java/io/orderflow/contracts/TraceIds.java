package io.orderflow.contracts;

import java.util.Optional;
import java.util.regex.Pattern;

/** The trace id of a W3C {@code traceparent} ({@code 00-<32 hex trace id>-<16 hex parent id>-<2 hex flags>}). */
public final class TraceIds {

    private static final Pattern TRACEPARENT = Pattern.compile("[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}");

    private TraceIds() {}

    /** The trace id, or empty when {@code traceparent} is null or not a traceparent. */
    public static Optional<String> of(String traceparent) {
        if (traceparent == null) {
            return Optional.empty();
        }
        var matcher = TRACEPARENT.matcher(traceparent.trim());
        return matcher.matches() ? Optional.of(matcher.group(1)) : Optional.empty();
    }
}
