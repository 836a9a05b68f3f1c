package io.orderflow.consumer;

import java.time.Duration;
import java.util.Map;

/**
 * What a consuming service answers on {@code PUT} and {@code DELETE /drills/slowdown}, the {@code slow-consumer}
 * drill's switch for {@link ServiceConsumer#slowDown}: the HTTP status and body, for the service's resource to send.
 * Switched off by the service's {@code drills-enabled} setting (the default), every request is a 404; a missing or bad
 * {@code perRecordMillis} is a 400 naming it; both as {@code application/problem+json}. Stateless.
 */
public final class SlowdownSwitch {

    /** An answer: its status, its media type and its JSON body. */
    public record Answer(int status, String mediaType, Map<String, Object> body) {}

    private SlowdownSwitch() {}

    /** Sets the slowdown to {@code perRecordMillis} ms per record (0 to 10,000). */
    public static Answer set(ServiceConsumer consumer, boolean enabled, String enabledKey, String perRecordMillis) {
        if (!enabled) {
            return disabled(enabledKey);
        }
        long millis;
        try {
            millis = Long.parseLong(perRecordMillis == null ? "" : perRecordMillis.strip());
            consumer.slowDown(Duration.ofMillis(millis));
        } catch (IllegalArgumentException e) { // NumberFormatException included
            return problem(
                    400,
                    "Invalid slowdown",
                    "perRecordMillis must be a whole number of milliseconds from 0 to "
                            + ServiceConsumer.MAX_SLOWDOWN.toMillis() + ", was "
                            + (perRecordMillis == null ? "missing" : "'" + perRecordMillis + "'"),
                    "perRecordMillis");
        }
        return current(consumer);
    }

    /** Back to full speed. */
    public static Answer clear(ServiceConsumer consumer, boolean enabled, String enabledKey) {
        if (!enabled) {
            return disabled(enabledKey);
        }
        consumer.slowDown(Duration.ZERO);
        return current(consumer);
    }

    private static Answer current(ServiceConsumer consumer) {
        return new Answer(
                200,
                "application/json",
                Map.of("perRecordMillis", consumer.slowdown().toMillis()));
    }

    private static Answer disabled(String enabledKey) {
        return problem(
                404, "Drills are off", "this service takes no drill switch unless " + enabledKey + "=true", null);
    }

    private static Answer problem(int status, String title, String detail, String field) {
        Map<String, Object> body = field == null
                ? Map.of("type", "about:blank", "title", title, "status", status, "detail", detail)
                : Map.of("type", "about:blank", "title", title, "status", status, "detail", detail, "field", field);
        return new Answer(status, "application/problem+json", body);
    }
}
