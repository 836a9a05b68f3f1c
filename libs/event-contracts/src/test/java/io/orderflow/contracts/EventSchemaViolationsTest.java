package io.orderflow.contracts;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.orderflow.contracts.order.OrderCancelled;
import io.orderflow.contracts.order.OrderConfirmed;
import io.orderflow.contracts.order.OrderCreated;
import io.orderflow.contracts.order.OrderEvent;
import io.orderflow.contracts.order.OrderLine;
import io.orderflow.contracts.order.OrderPaid;
import io.orderflow.contracts.order.OrderRejected;
import io.orderflow.contracts.order.OrderShipped;
import java.io.IOException;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

/** The schemas reject what the Java reader rejects: each starts from a valid document and breaks one thing. */
class EventSchemaViolationsTest {

    private static final EventCodec CODEC = new EventCodec();
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final List<OrderEvent> EXAMPLES = List.of(
            new OrderCreated(
                    "order-1",
                    "customer-7",
                    "EUR",
                    List.of(new OrderLine("SKU-1", 2, new BigDecimal("9.95"))),
                    new BigDecimal("19.90"),
                    "web"),
            new OrderPaid("order-1", new BigDecimal("19.90"), "EUR", "psp-123"),
            new OrderShipped("order-1", "DHL", "00340434161094000000"),
            new OrderCancelled("order-1", "customer asked"),
            new OrderConfirmed("order-1"),
            new OrderRejected("order-1", "not enough stock of SKU-1", List.of("SKU-1")));

    static Stream<Arguments> requiredPayloadFields() {
        return EXAMPLES.stream().flatMap(event -> {
            EventEnvelope envelope = wrap(event);
            ContractSchema schema = ContractSchema.payload(envelope.eventType(), envelope.eventVersion());
            return schema.required().stream().map(field -> Arguments.of(schema.resource(), envelope.payload(), field));
        });
    }

    @ParameterizedTest(name = "{0} without {2}")
    @MethodSource("requiredPayloadFields")
    void payloadSchemaRejectsDocumentMissingARequiredField(String resource, ObjectNode payload, String field) {
        assertThat(ContractSchema.load(resource).violations(payload)).isEmpty();

        payload.remove(field);

        assertThat(ContractSchema.load(resource).violations(payload))
                .anySatisfy(message -> assertThat(message).contains(field));
    }

    @ParameterizedTest(name = "{0}.{1} = {2}")
    @CsvSource(
            delimiter = '|',
            value = {
                "OrderCreated   | total          | 19.90",
                "OrderCreated   | total          | \"-1.00\"",
                "OrderCreated   | total          | \"1e3\"",
                "OrderCreated   | total          | \"1234567890123456789.00\"",
                "OrderCreated   | currency       | \"eur\"",
                "OrderCreated   | items          | []",
                "OrderCreated   | items          | [{\"sku\": \"A\", \"quantity\": \"2\", \"unitPrice\": \"1.00\"}]",
                "OrderCreated   | items          | [{\"sku\": \"A\", \"quantity\": 0, \"unitPrice\": \"1.00\"}]",
                "OrderCreated   | items          | [{\"sku\": \"A\", \"unitPrice\": \"1.00\"}]",
                "OrderCreated   | channel        | 3",
                "OrderCreated   | channel        | \" \"",
                "OrderPaid      | amount         | true",
                "OrderPaid      | paymentReference | null",
                "OrderShipped   | carrier        | {}",
                "OrderCancelled | reason         | \"\"",
                "OrderCancelled | orderId        | 1",
            })
    void payloadSchemaRejectsFieldOfWrongTypeOrFormat(String eventType, String field, String value) throws IOException {
        EventEnvelope envelope = wrap(example(eventType));
        ObjectNode payload = envelope.payload();
        payload.set(field, JSON.readTree(value));

        assertThat(ContractSchema.payload(eventType, envelope.eventVersion()).violations(payload))
                .isNotEmpty();
    }

    @ParameterizedTest(name = "envelope.{0} = {1}")
    @CsvSource(
            delimiter = '|',
            value = {
                "eventId      | \"not-a-uuid\"",
                "eventType    | 7",
                "eventVersion | 1.1",
                "eventVersion | \"1\"",
                "occurredAt   | \"yesterday\"",
                "producer     | \"\"",
                "orderId      | null",
                "traceparent  | \"00-abc-def-01\"",
                "traceparent  | \"00-4BF92F3577B34DA6A3CE929D0E0E4736-00F067AA0BA902B7-01\"",
                "payload      | []",
            })
    void envelopeSchemaRejectsFieldOfWrongTypeOrFormat(String field, String value) throws IOException {
        ObjectNode document = (ObjectNode) JSON.readTree(CODEC.encode(wrap(EXAMPLES.getFirst())));
        assertThat(ContractSchema.envelope().violations(document)).isEmpty();

        document.set(field, JSON.readTree(value));

        assertThat(ContractSchema.envelope().violations(document)).isNotEmpty();
    }

    @ParameterizedTest(name = "envelope without {0}")
    @CsvSource({"eventId", "eventType", "eventVersion", "occurredAt", "producer", "orderId", "payload"})
    void envelopeSchemaRejectsDocumentMissingARequiredField(String field) throws IOException {
        ObjectNode document = (ObjectNode) JSON.readTree(CODEC.encode(wrap(EXAMPLES.getFirst())));

        document.remove(field);

        assertThat(ContractSchema.envelope().violations(document))
                .anySatisfy(message -> assertThat(message).contains(field));
    }

    private static OrderEvent example(String eventType) {
        return EXAMPLES.stream()
                .filter(event -> event.getClass().getSimpleName().equals(eventType))
                .findFirst()
                .orElseThrow();
    }

    private static EventEnvelope wrap(OrderEvent event) {
        return CODEC.wrap(
                event,
                UUID.fromString("6f1c3d7e-2a4b-4c5d-8e9f-0a1b2c3d4e5f"),
                Instant.parse("2025-03-01T12:00:00Z"),
                "order-service",
                "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
    }
}
