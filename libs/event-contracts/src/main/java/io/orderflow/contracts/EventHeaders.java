package io.orderflow.contracts;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Names of the Kafka record headers that mirror envelope fields.
 *
 * <p>The headers duplicate what the envelope already says, so that brokers, relays and dead-letter tooling can route
 * and trace a record without parsing its value. The envelope stays the source of truth: a consumer that decodes the
 * value must not trust a header over it.
 */
public final class EventHeaders {

    public static final String EVENT_ID = "eventId";
    public static final String EVENT_TYPE = "eventType";
    public static final String EVENT_VERSION = "eventVersion";
    public static final String TRACEPARENT = "traceparent";

    private EventHeaders() {}

    /**
     * The header values for a record carrying {@code envelope}, in a stable order. {@link #TRACEPARENT} is absent when
     * the envelope has no trace context. Kafka header values are these strings encoded as UTF-8.
     */
    public static Map<String, String> of(EventEnvelope envelope) {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put(EVENT_ID, envelope.eventId().toString());
        headers.put(EVENT_TYPE, envelope.eventType());
        headers.put(EVENT_VERSION, envelope.eventVersion().toString());
        if (envelope.traceparent() != null) {
            headers.put(TRACEPARENT, envelope.traceparent());
        }
        return headers;
    }
}
