package io.orderflow.contracts;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.orderflow.contracts.order.OrderEvent;
import io.orderflow.contracts.order.OrderEventArbitraries;
import java.io.IOException;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** Round trips against the original as oracle, and fuzzed input against "only typed failures". */
class EventCodecPropertiesTest {

    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private final EventCodec codec = new EventCodec();
    private final ObjectMapper json = new ObjectMapper();

    @Property
    void anyEnvelopeDecodesToItselfAndItsPayloadToTheOriginalEvent(
            @ForAll("events") OrderEvent event,
            @ForAll("eventIds") UUID eventId,
            @ForAll("instants") Instant occurredAt,
            @ForAll("traceparents") String traceparent) {
        EventEnvelope envelope = codec.wrap(event, eventId, occurredAt, "order-service", traceparent);

        EventEnvelope decoded = codec.decode(codec.encode(envelope));

        assertThat(decoded).isEqualTo(envelope);
        assertThat(codec.decodePayload(decoded)).isEqualTo(event);
    }

    @Property
    void decodingArbitraryBytesFailsOnlyAsUndecodable(@ForAll byte[] value) {
        try {
            codec.decodePayload(codec.decode(value));
        } catch (UndecodableEventException expected) {
            // the one way decoding may fail
        }
    }

    @Property
    void decodingAnEventWithOneFieldReplacedByAnyJsonValueFailsOnlyAsUndecodable(
            @ForAll("envelopes") EventEnvelope envelope,
            @ForAll("jsonValues") JsonNode replacement,
            @ForAll("fieldChoices") int choice)
            throws IOException {
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
    }

    @Property
    void envelopeMissingAnyRequiredFieldIsMalformedNamingThatField(
            @ForAll("envelopes") EventEnvelope envelope, @ForAll("requiredEnvelopeFields") String field)
            throws IOException {
        ObjectNode doc = (ObjectNode) json.readTree(codec.encode(envelope));
        doc.remove(field);

        assertThatThrownBy(() -> codec.decode(doc.toString().getBytes(UTF_8)))
                .isInstanceOf(MalformedEventException.class)
                .hasMessageContaining(field);
    }

    @Provide
    Arbitrary<OrderEvent> events() {
        return OrderEventArbitraries.orderEvents();
    }

    @Provide
    Arbitrary<UUID> eventIds() {
        return EventArbitraries.eventIds();
    }

    @Provide
    Arbitrary<Instant> instants() {
        return EventArbitraries.instants();
    }

    @Provide
    Arbitrary<String> traceparents() {
        return EventArbitraries.traceparents();
    }

    @Provide
    Arbitrary<EventEnvelope> envelopes() {
        return EventArbitraries.envelopes(codec);
    }

    @Provide
    Arbitrary<String> requiredEnvelopeFields() {
        return Arbitraries.of(ContractSchema.envelope().required());
    }

    @Provide
    Arbitrary<Integer> fieldChoices() {
        return Arbitraries.integers().greaterOrEqual(0);
    }

    @Provide
    Arbitrary<JsonNode> jsonValues() {
        return Arbitraries.of(
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
