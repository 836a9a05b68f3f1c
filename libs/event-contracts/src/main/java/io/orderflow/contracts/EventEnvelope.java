package io.orderflow.contracts;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.util.UUID;

/**
 * The metadata every order event carries around its payload, as it travels on the {@link Topics#ORDERS} topic.
 *
 * <p>The payload stays untyped JSON here so that an envelope can be read, routed, logged and dead-lettered without
 * knowing its type or version; {@link EventCodec#decodePayload(EventEnvelope)} types it. {@code orderId} is the
 * aggregate key and the record key: a non-blank string, the same one the payload names. {@code traceparent} is the W3C
 * trace context of the operation that produced the event, or null.
 *
 * <p>Immutable: the payload is copied in and out.
 */
public record EventEnvelope(
        UUID eventId,
        String eventType,
        EventVersion eventVersion,
        Instant occurredAt,
        String producer,
        String orderId,
        String traceparent,
        ObjectNode payload) {

    public EventEnvelope {
        requirePresent(eventId, "eventId");
        requireText(eventType, "eventType");
        requirePresent(eventVersion, "eventVersion");
        requirePresent(occurredAt, "occurredAt");
        requireText(producer, "producer");
        requireText(orderId, "orderId");
        Traceparent.requireValidOrNull(traceparent);
        requirePresent(payload, "payload");
        payload = payload.deepCopy();
    }

    @Override
    public ObjectNode payload() {
        return payload.deepCopy();
    }

    private static void requirePresent(Object value, String field) {
        if (value == null) {
            throw new IllegalArgumentException("envelope field " + field + " is required");
        }
    }

    private static void requireText(String value, String field) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException("envelope field " + field + " is required and must not be blank");
        }
    }
}
