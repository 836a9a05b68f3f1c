package io.orderflow.contracts;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.orderflow.contracts.order.OrderEvent;
import io.orderflow.contracts.order.OrderEventSamples;
import io.orderflow.property.Properties;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** Round trips against the original as oracle, and fuzzed input against "only typed failures". */
class EventCodecPropertiesTest {

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    /** Every kind of JSON value, and the texts and numbers next to valid ones, to put in place of a field. */
    private static final List<JsonNode> JSON_VALUES = List.of(
            NODES.nullNode(),
            NODES.booleanNode(true),
            NODES.numberNode(-1),
            NODES.numberNode(0),
            NODES.numberNode(1.5),
            NODES.numberNode(new BigDecimal("1e400")),
            NODES.textNode(""),
            NODES.textNode(" "),
            NODES.textNode("x"),
            NODES.textNode("-5.00"),
            NODES.textNode("1.0"),
            NODES.arrayNode(),
            NODES.arrayNode().add(NODES.nullNode()),
            NODES.objectNode());

    private final EventCodec codec = new EventCodec();
    private final ObjectMapper json = new ObjectMapper();

    @Test
    void anyEnvelopeDecodesToItselfAndItsPayloadToTheOriginalEvent() {
        Properties.forAll(1000, gen -> {
            OrderEvent event = OrderEventSamples.orderEvent(gen);
            UUID eventId = EventSamples.eventId(gen);
            Instant occurredAt = EventSamples.instant(gen);
            String traceparent = EventSamples.traceparent(gen);
            EventEnvelope envelope = codec.wrap(event, eventId, occurredAt, "order-service", traceparent);

            EventEnvelope decoded = codec.decode(codec.encode(envelope));

            assertThat(decoded).isEqualTo(envelope);
            assertThat(codec.decodePayload(decoded)).isEqualTo(event);
        });
    }

    @Test
    void decodingArbitraryBytesFailsOnlyAsUndecodable() {
        Properties.forAll(1000, gen -> {
            byte[] value = gen.bytes(0, 255);
            try {
                codec.decodePayload(codec.decode(value));
            } catch (UndecodableEventException expected) {
                // the one way decoding may fail
            }
        });
    }

    @Test
    void decodingAnEventWithOneFieldReplacedByAnyJsonValueFailsOnlyAsUndecodable() {
        Properties.forAll(1000, gen -> {
            EventEnvelope envelope = EventSamples.envelope(gen, codec);
            JsonNode replacement = gen.oneOf(JSON_VALUES);
            int choice = gen.ints(0, Integer.MAX_VALUE);
            ObjectNode doc = (ObjectNode) json.readTree(codec.encode(envelope));
            List<ObjectNode> owners = new ArrayList<>();
            List<String> names = new ArrayList<>();
            collectFields(doc, owners, names);
            int field = choice % names.size();
            owners.get(field).set(names.get(field), replacement);

            try {
                codec.decodePayload(codec.decode(doc.toString().getBytes(UTF_8)));
            } catch (UndecodableEventException expected) {
                // the one way decoding may fail
            }
        });
    }

    @Test
    void envelopeMissingAnyRequiredFieldIsMalformedNamingThatField() {
        List<String> requiredEnvelopeFields =
                List.copyOf(ContractSchema.envelope().required());
        Properties.forAll(1000, gen -> {
            EventEnvelope envelope = EventSamples.envelope(gen, codec);
            String field = gen.oneOf(requiredEnvelopeFields);
            ObjectNode doc = (ObjectNode) json.readTree(codec.encode(envelope));
            doc.remove(field);

            assertThatThrownBy(() -> codec.decode(doc.toString().getBytes(UTF_8)))
                    .isInstanceOf(MalformedEventException.class)
                    .hasMessageContaining(field);
        });
    }

    /** Every field of the envelope, of its payload, and of the payload's nested objects and arrays of objects. */
    private static void collectFields(ObjectNode node, List<ObjectNode> owners, List<String> names) {
        node.fieldNames().forEachRemaining(name -> {
            owners.add(node);
            names.add(name);
            JsonNode child = node.get(name);
            if (child instanceof ObjectNode object) {
                collectFields(object, owners, names);
            } else if (child.isArray()) {
                child.forEach(element -> {
                    if (element instanceof ObjectNode object) {
                        collectFields(object, owners, names);
                    }
                });
            }
        });
    }
}
