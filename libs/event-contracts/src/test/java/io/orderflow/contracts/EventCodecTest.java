package io.orderflow.contracts;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.orderflow.contracts.order.OrderCancelled;
import io.orderflow.contracts.order.OrderCreated;
import io.orderflow.contracts.order.OrderEvent;
import io.orderflow.contracts.order.OrderLine;
import io.orderflow.contracts.order.OrderPaid;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class EventCodecTest {

    private static final UUID EVENT_ID = UUID.fromString("6f1c3d7e-2a4b-4c5d-8e9f-0a1b2c3d4e5f");
    private static final Instant AT = Instant.parse("2025-03-01T12:00:00.123Z");
    private static final String TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    private static final OrderCreated ORDER_CREATED = new OrderCreated(
            "order-1",
            "customer-7",
            "EUR",
            List.of(new OrderLine("SKU-1", 2, new BigDecimal("9.95"))),
            new BigDecimal("19.90"),
            "web");

    private final EventCodec codec = new EventCodec();
    private final ObjectMapper json = new ObjectMapper();

    @Test
    void encodesEnvelopeAsJsonWithIsoInstantVersionStringAndAmountsAsExactStrings() throws Exception {
        byte[] bytes = codec.encode(codec.wrap(ORDER_CREATED, EVENT_ID, AT, "order-service", TRACEPARENT));

        JsonNode written = json.readTree(bytes);
        assertThat(written.path("eventId").textValue()).isEqualTo("6f1c3d7e-2a4b-4c5d-8e9f-0a1b2c3d4e5f");
        assertThat(written.path("eventType").textValue()).isEqualTo("OrderCreated");
        assertThat(written.path("eventVersion").textValue()).isEqualTo("1.1");
        assertThat(written.path("occurredAt").textValue()).isEqualTo("2025-03-01T12:00:00.123Z");
        assertThat(written.path("producer").textValue()).isEqualTo("order-service");
        assertThat(written.path("orderId").textValue()).isEqualTo("order-1");
        assertThat(written.path("traceparent").textValue()).isEqualTo(TRACEPARENT);
        assertThat(written.path("payload").path("total").textValue()).isEqualTo("19.90");
        assertThat(written.path("payload")
                        .path("items")
                        .get(0)
                        .path("unitPrice")
                        .textValue())
                .isEqualTo("9.95");
    }

    @Test
    void omitsAbsentOptionalFieldsInsteadOfWritingNull() throws Exception {
        var paid = new OrderPaid("order-1", new BigDecimal("19.90"), "EUR", null);

        JsonNode written = json.readTree(codec.encode(codec.wrap(paid, EVENT_ID, AT, "order-service", null)));

        assertThat(written.has("traceparent")).isFalse();
        assertThat(written.path("payload").has("paymentReference")).isFalse();
    }

    @Test
    void decodesWhatItEncodedToTheSameEnvelopeAndPayload() {
        EventEnvelope envelope = codec.wrap(ORDER_CREATED, EVENT_ID, AT, "order-service", TRACEPARENT);

        EventEnvelope decoded = codec.decode(codec.encode(envelope));

        assertThat(decoded).isEqualTo(envelope);
        assertThat(codec.decodePayload(decoded)).isEqualTo(ORDER_CREATED);
    }

    @Test
    void keepsTheScaleOfAmountsReadFromJsonNumbers() {
        ObjectNode doc = encodedAsTree(new OrderPaid("order-1", BigDecimal.ONE, "EUR", null));
        ((ObjectNode) doc.get("payload")).put("amount", new BigDecimal("19.900"));

        var paid = (OrderPaid) codec.decodePayload(codec.decode(doc.toString().getBytes(UTF_8)));

        assertThat(paid.amount()).isEqualTo(new BigDecimal("19.900"));
    }

    @Test
    void rejectsNullValueAsTombstone() {
        assertThatThrownBy(() -> codec.decode(null))
                .isInstanceOf(MalformedEventException.class)
                .hasMessageContaining("tombstone");
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "''                                   | empty",
                "not json                             | not valid JSON",
                "[1, 2]                               | must be a JSON object, was ARRAY",
                "\"OrderCreated\"                     | must be a JSON object, was STRING",
                "{\"eventId\": 1} {}                  | not valid JSON",
                "{\"eventType\": \"a\", \"eventType\": \"b\"} | not valid JSON",
            })
    void rejectsValuesThatAreNotOneJsonObject(String value, String problem) {
        assertThatThrownBy(() -> codec.decode(value.getBytes(UTF_8)))
                .isInstanceOf(MalformedEventException.class)
                .hasMessageContaining(problem);
    }

    @ParameterizedTest
    @ValueSource(strings = {"eventId", "eventType", "eventVersion", "occurredAt", "producer", "orderId", "payload"})
    void rejectsEnvelopeWithoutRequiredFieldNamingIt(String field) {
        ObjectNode doc = encodedAsTree(ORDER_CREATED);
        doc.remove(field);

        assertThatThrownBy(() -> codec.decode(doc.toString().getBytes(UTF_8)))
                .isInstanceOf(MalformedEventException.class)
                .hasMessage("envelope field " + field + " is required but missing");
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "eventId      | 42                           | eventId must be a UUID",
                "eventId      | \"not-a-uuid\"               | eventId must be a UUID, was '\"not-a-uuid\"'",
                "eventId      | \"1-1-1-1-1\"                | eventId must be a UUID",
                "eventType    | \"  \"                       | eventType must be a non-blank string",
                "eventVersion | 1.1                          | eventVersion must be \"MAJOR.MINOR\"",
                "eventVersion | \"1\"                        | eventVersion must be \"MAJOR.MINOR\"",
                "occurredAt   | \"yesterday\"                | occurredAt must be an ISO-8601 instant",
                "occurredAt   | 1740830400                   | occurredAt must be an ISO-8601 instant",
                "producer     | {}                           | producer must be a non-blank string",
                "orderId      | [\"order-1\"]                | orderId must be a non-blank string",
                "traceparent  | 7                            | traceparent must be a string",
                "traceparent  | \"00-abc-def-01\"            | traceparent must look like 00-<32 hex>-<16 hex>-<2 hex>",
                "payload      | \"{}\"                       | payload must be a JSON object, was STRING",
            })
    void rejectsEnvelopeFieldOfWrongTypeOrFormatNamingFieldAndValue(String field, String value, String problem)
            throws Exception {
        ObjectNode doc = encodedAsTree(ORDER_CREATED);
        doc.set(field, json.readTree(value));

        assertThatThrownBy(() -> codec.decode(doc.toString().getBytes(UTF_8)))
                .isInstanceOf(MalformedEventException.class)
                .hasMessageContaining(problem);
    }

    @Test
    void rejectsPayloadMissingARequiredFieldNamingTypeVersionAndField() {
        EventEnvelope envelope = codec.wrap(new OrderCancelled("order-1", "customer asked"), EVENT_ID, AT, "x", null);
        ObjectNode payload = envelope.payload();
        payload.remove("reason");

        assertThatThrownBy(() -> codec.decodePayload(withPayload(envelope, payload)))
                .isInstanceOf(MalformedEventException.class)
                .hasMessageContaining("OrderCancelled 1.0")
                .hasMessageContaining(EVENT_ID.toString())
                .hasMessageContaining("OrderCancelled.reason is required");
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "\"3\"     | items[0].quantity",
                "1.5       | items[0].quantity",
                "null      | items[0].quantity",
                "0         | OrderLine.quantity must be at least 1",
            })
    void rejectsPayloadFieldOfWrongTypeNamingItsPath(String quantity, String problem) throws Exception {
        EventEnvelope envelope = codec.wrap(ORDER_CREATED, EVENT_ID, AT, "order-service", null);
        ObjectNode payload = envelope.payload();
        ((ObjectNode) payload.path("items").get(0)).set("quantity", json.readTree(quantity));

        assertThatThrownBy(() -> codec.decodePayload(withPayload(envelope, payload)))
                .isInstanceOf(MalformedEventException.class)
                .hasMessageContaining(problem);
    }

    @Test
    void rejectsTextFieldGivenAsNumber() {
        EventEnvelope envelope = codec.wrap(ORDER_CREATED, EVENT_ID, AT, "order-service", null);
        ObjectNode payload = envelope.payload();
        payload.put("customerId", 42);

        assertThatThrownBy(() -> codec.decodePayload(withPayload(envelope, payload)))
                .isInstanceOf(MalformedEventException.class)
                .hasMessageContaining("customerId");
    }

    @Test
    void rejectsACustomerIdWithANulCharacterNamingTheFieldAsNoConsumerCouldStoreIt() {
        ObjectNode doc = encodedAsTree(ORDER_CREATED);
        ((ObjectNode) doc.get("payload")).put("customerId", "customer\u0000-7");

        assertThatThrownBy(() -> codec.decodePayload(codec.decode(doc.toString().getBytes(UTF_8))))
                .isInstanceOf(MalformedEventException.class)
                .hasMessageContaining(EVENT_ID.toString())
                .hasMessageContaining("OrderCreated.customerId must not contain control characters, found U+0000");
    }

    @ParameterizedTest
    @CsvSource(
            delimiter = '|',
            value = {
                "producer  | order\\u0007service | envelope field producer must not contain control characters",
                "eventType | \\ud800             | envelope field eventType must not contain unpaired surrogates",
            })
    void rejectsAnEnvelopeTextFieldNoConsumerCouldStoreNamingIt(String field, String jsonEscaped, String problem) {
        ObjectNode doc = encodedAsTree(ORDER_CREATED);
        String written = "\"" + field + "\":" + doc.get(field);
        // Edited as JSON text, so that the escape reaches the reader as a producer would write it.
        String value = doc.toString().replace(written, "\"" + field + "\":\"" + jsonEscaped + "\"");

        assertThat(value).doesNotContain(written);
        assertThatThrownBy(() -> codec.decode(value.getBytes(UTF_8)))
                .isInstanceOf(MalformedEventException.class)
                .hasMessageContaining(problem);
    }

    @Test
    void rejectsAnOrderIdLongerThanAnyConsumerKeysByNamingItsLength() {
        ObjectNode doc = encodedAsTree(ORDER_CREATED);
        doc.put("orderId", "o".repeat(101));

        assertThatThrownBy(() -> codec.decode(doc.toString().getBytes(UTF_8)))
                .isInstanceOf(MalformedEventException.class)
                .hasMessageContaining("envelope field orderId must be at most 100 characters, was 101");
    }

    @Test
    void rejectsPayloadAboutAnotherOrderThanTheEnvelope() {
        EventEnvelope envelope = codec.wrap(ORDER_CREATED, EVENT_ID, AT, "order-service", null);
        ObjectNode payload = envelope.payload();
        payload.put("orderId", "order-2");

        assertThatThrownBy(() -> codec.decodePayload(withPayload(envelope, payload)))
                .isInstanceOf(MalformedEventException.class)
                .hasMessageContaining("payload orderId 'order-2' but envelope orderId 'order-1'");
    }

    @Test
    void refusesToWrapAPayloadTheCatalogueDoesNotKnow() {
        var stranger = new OrderCreatedV1("order-1", "c", "EUR", ORDER_CREATED.items(), BigDecimal.TEN);

        assertThatThrownBy(() -> codec.wrap(stranger, EVENT_ID, AT, "order-service", null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(OrderCreatedV1.class.getName());
    }

    private ObjectNode encodedAsTree(OrderEvent event) {
        try {
            return (ObjectNode) json.readTree(codec.encode(codec.wrap(event, EVENT_ID, AT, "order-service", null)));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static EventEnvelope withPayload(EventEnvelope envelope, ObjectNode payload) {
        return new EventEnvelope(
                envelope.eventId(),
                envelope.eventType(),
                envelope.eventVersion(),
                envelope.occurredAt(),
                envelope.producer(),
                envelope.orderId(),
                envelope.traceparent(),
                payload);
    }
}
