package io.orderflow.contracts;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.orderflow.contracts.order.OrderEvent;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.DateTimeException;
import java.time.Instant;
import java.util.Objects;
import java.util.UUID;
import java.util.function.Function;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Turns events into record values and back: {@link #wrap} a payload into an envelope, {@link #encode} it to bytes,
 * {@link #decode} bytes to an envelope, {@link #decodePayload} the envelope's payload into its record.
 *
 * <p>Decoding is split in two on purpose. {@link #decode} needs no knowledge of event types, so relays and dead-letter
 * tooling can read any envelope. {@link #decodePayload} applies this reader's {@link EventCatalog} and the versioning
 * rule: same major reads, unknown fields are ignored, a different major is refused.
 *
 * <p>Every decoding failure is an {@link UndecodableEventException} whose message names the field and value at fault,
 * so a consumer can dead-letter the record with a reason; no input makes decoding throw anything else. The envelope is
 * read field by field rather than bound by Jackson, to keep those messages precise.
 *
 * <p>Immutable and thread-safe; one instance per application is enough.
 */
public final class EventCodec {

    private static final Pattern UUID_FORMAT =
            Pattern.compile("[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");
    private static final int MAX_QUOTED_VALUE = 80;

    private final EventCatalog catalog;
    private final ObjectMapper mapper;

    /** A codec for the order events of this build, {@link EventCatalog#orderEvents()}. */
    public EventCodec() {
        this(EventCatalog.orderEvents());
    }

    public EventCodec(EventCatalog catalog) {
        this.catalog = Objects.requireNonNull(catalog, "catalog");
        this.mapper = EventJson.newObjectMapper();
    }

    public EventCatalog catalog() {
        return catalog;
    }

    /**
     * An envelope for {@code event} at its type's current version, keyed by the event's order id. {@code traceparent}
     * may be null. Throws {@link IllegalArgumentException} if the event's type is not catalogued or a field is invalid.
     */
    public EventEnvelope wrap(OrderEvent event, UUID eventId, Instant occurredAt, String producer, String traceparent) {
        EventType<?> type = catalog.typeOf(event);
        ObjectNode payload = mapper.valueToTree(event);
        return new EventEnvelope(
                eventId, type.name(), type.current(), occurredAt, producer, event.orderId(), traceparent, payload);
    }

    /** The UTF-8 JSON record value of {@code envelope}. */
    public byte[] encode(EventEnvelope envelope) {
        ObjectNode json = mapper.createObjectNode();
        json.put("eventId", envelope.eventId().toString());
        json.put("eventType", envelope.eventType());
        json.put("eventVersion", envelope.eventVersion().toString());
        json.put("occurredAt", envelope.occurredAt().toString());
        json.put("producer", envelope.producer());
        json.put("orderId", envelope.orderId());
        if (envelope.traceparent() != null) {
            json.put("traceparent", envelope.traceparent());
        }
        json.set("payload", envelope.payload());
        try {
            return mapper.writeValueAsBytes(json);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException("cannot write event " + envelope.eventId(), e);
        }
    }

    /**
     * The envelope in a record value. Throws {@link MalformedEventException} if the value is null (a tombstone), not a
     * JSON object, or lacks a required envelope field or has one of the wrong type or format.
     */
    public EventEnvelope decode(byte[] value) {
        if (value == null) {
            throw new MalformedEventException("record value is null (a tombstone?), not an event envelope");
        }
        JsonNode root;
        try {
            root = mapper.readTree(value);
        } catch (IOException e) {
            String reason = e instanceof JsonProcessingException json ? json.getOriginalMessage() : e.getMessage();
            throw new MalformedEventException("record value is not valid JSON: " + reason, e);
        }
        if (root == null || !root.isObject()) {
            throw new MalformedEventException("record value must be a JSON object, was "
                    + (root == null || root.isMissingNode() ? "empty" : root.getNodeType()));
        }
        UUID eventId = field(root, "eventId", "a UUID", EventCodec::parseUuid);
        String eventType = field(root, "eventType", "a non-blank string", Function.identity());
        EventVersion eventVersion = field(root, "eventVersion", "\"MAJOR.MINOR\"", EventVersion::parse);
        Instant occurredAt = field(root, "occurredAt", "an ISO-8601 instant", Instant::parse);
        String producer = field(root, "producer", "a non-blank string", Function.identity());
        String orderId = field(root, "orderId", "a non-blank string", Function.identity());
        String traceparent = optionalText(root, "traceparent");
        JsonNode payload = root.get("payload");
        if (payload == null || payload.isNull()) {
            throw missing("payload");
        }
        if (!payload.isObject()) {
            throw new MalformedEventException(
                    "envelope field payload must be a JSON object, was " + payload.getNodeType());
        }
        try {
            return new EventEnvelope(
                    eventId, eventType, eventVersion, occurredAt, producer, orderId, traceparent, (ObjectNode) payload);
        } catch (IllegalArgumentException e) {
            throw new MalformedEventException("event " + eventId + ": " + e.getMessage(), e);
        }
    }

    /**
     * The typed payload of {@code envelope}, as a record of this reader's catalogue.
     *
     * @throws UnknownEventTypeException if the catalogue does not know the event type
     * @throws UnsupportedEventVersionException if the version's major is not the one this reader reads
     * @throws MalformedEventException if the payload does not fit the record or names another order than the envelope
     */
    public OrderEvent decodePayload(EventEnvelope envelope) {
        EventType<?> type = catalog.find(envelope.eventType())
                .orElseThrow(() -> new UnknownEventTypeException(
                        envelope.eventId(),
                        envelope.eventType(),
                        catalog.types().stream().map(EventType::name).collect(Collectors.toSet())));
        if (!type.reads(envelope.eventVersion())) {
            throw new UnsupportedEventVersionException(
                    envelope.eventId(), type.name(), envelope.eventVersion(), type.current());
        }
        String what = "event " + envelope.eventId() + " (" + type.name() + " " + envelope.eventVersion() + ")";
        OrderEvent event;
        try {
            event = mapper.treeToValue(envelope.payload(), type.payloadType());
        } catch (JsonProcessingException | IllegalArgumentException e) {
            throw new MalformedEventException(what + " has an invalid payload" + describe(e), e);
        }
        if (!envelope.orderId().equals(event.orderId())) {
            throw new MalformedEventException(what + " has payload orderId " + quote(event.orderId())
                    + " but envelope orderId " + quote(envelope.orderId()));
        }
        return event;
    }

    private static <T> T field(JsonNode root, String name, String expected, Function<String, T> parse) {
        JsonNode node = root.get(name);
        if (node == null || node.isNull()) {
            throw missing(name);
        }
        if (!node.isTextual() || node.textValue().isBlank()) {
            throw invalid(name, expected, node);
        }
        try {
            return parse.apply(node.textValue());
        } catch (IllegalArgumentException | DateTimeException e) {
            throw invalid(name, expected, node);
        }
    }

    private static String optionalText(JsonNode root, String name) {
        JsonNode node = root.get(name);
        if (node == null || node.isNull()) {
            return null;
        }
        if (!node.isTextual()) {
            throw invalid(name, "a string", node);
        }
        return node.textValue();
    }

    private static UUID parseUuid(String text) {
        if (!UUID_FORMAT.matcher(text).matches()) {
            throw new IllegalArgumentException("not a canonical UUID: " + text);
        }
        return UUID.fromString(text);
    }

    private static MalformedEventException missing(String name) {
        return new MalformedEventException("envelope field " + name + " is required but missing");
    }

    private static MalformedEventException invalid(String name, String expected, JsonNode node) {
        return new MalformedEventException(
                "envelope field " + name + " must be " + expected + ", was " + quote(node.toString()));
    }

    /** ": <reason> (at <path>)" from Jackson's exception, without its class names and source excerpts. */
    private static String describe(Exception e) {
        if (!(e instanceof JsonMappingException mapping)) {
            return ": " + e.getMessage();
        }
        String reason = mapping.getCause() instanceof IllegalArgumentException rule
                ? rule.getMessage()
                : mapping.getOriginalMessage();
        StringBuilder path = new StringBuilder();
        for (JsonMappingException.Reference ref : mapping.getPath()) {
            if (ref.getFieldName() != null) {
                path.append(path.isEmpty() ? "" : ".").append(ref.getFieldName());
            } else if (ref.getIndex() >= 0) {
                path.append('[').append(ref.getIndex()).append(']');
            }
        }
        return ": " + reason + (path.isEmpty() ? "" : " (at " + path + ")");
    }

    private static String quote(String value) {
        String shown = value.length() > MAX_QUOTED_VALUE ? value.substring(0, MAX_QUOTED_VALUE) + "..." : value;
        return "'" + shown + "'";
    }
}
