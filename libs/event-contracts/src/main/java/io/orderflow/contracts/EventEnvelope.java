package io.orderflow.contracts;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.orderflow.contracts.order.PayloadFields;
import java.time.Instant;
import java.util.UUID;

/**
 * The metadata every order event carries around its payload, as it travels on the {@link Topics#ORDERS} topic.
 *
 * <p>The payload stays untyped JSON here so that an envelope can be read, routed, logged and dead-lettered without
 * knowing its type or version; {@link EventCodec#decodePayload(EventEnvelope)} types it. {@code orderId} is the
 * aggregate key and the record key: a non-blank string, the same one the payload names. {@code traceparent} is the W3C
 * trace context of the operation that produced the event, or null. Its text fields obey {@link StorableText}:
 * {@code orderId} within {@link PayloadFields#MAX_ID_LENGTH}, {@code eventType} and {@code producer} within
 * {@link #MAX_NAME_LENGTH}.
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

    /** The most characters of {@code eventType} and {@code producer}: names such as "OrderCreated", "order-service". */
    public static final int MAX_NAME_LENGTH = 100;

    public EventEnvelope {
        requirePresent(eventId, "eventId");
        StorableText.require(eventType, "envelope field eventType", MAX_NAME_LENGTH);
        requirePresent(eventVersion, "eventVersion");
        requirePresent(occurredAt, "occurredAt");
        StorableText.require(producer, "envelope field producer", MAX_NAME_LENGTH);
        StorableText.require(orderId, "envelope field orderId", PayloadFields.MAX_ID_LENGTH);
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
}
