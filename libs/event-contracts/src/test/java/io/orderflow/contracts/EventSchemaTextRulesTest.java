package io.orderflow.contracts;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.json.JsonWriteFeature;
import com.fasterxml.jackson.databind.BeanDescription;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.introspect.BeanPropertyDefinition;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.orderflow.contracts.inventory.InventoryRejected;
import io.orderflow.contracts.inventory.InventoryReserved;
import io.orderflow.contracts.inventory.ReservedLine;
import io.orderflow.contracts.order.OrderEvent;
import io.orderflow.contracts.order.OrderEventSamples;
import io.orderflow.property.Gen;
import io.orderflow.property.Properties;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The schemas state the text rule ({@link StorableText}) and each field's length as the Java reader applies them: for
 * any text put into any text field of any event, the schemas accept the event exactly when the codec reads it.
 */
class EventSchemaTextRulesTest {

    private static final String STORABLE_TEXT = "#/$defs/storableText";
    private static final Set<String> NOT_FREE_TEXT = Set.of("currency");

    private static final ObjectMapper ASCII_JSON =
            JsonMapper.builder().enable(JsonWriteFeature.ESCAPE_NON_ASCII).build();

    private final ObjectMapper json = new ObjectMapper();
    private final ObjectMapper mapper = EventJson.newObjectMapper();
    private final EventCodec orders = new EventCodec();
    private final EventCodec inventory = new EventCodec(EventCatalog.inventoryEvents());

    /** One text field of an encoded event: the object that holds it and its name, or its array and index. */
    private record Slot(JsonNode owner, String name, int index, int maxLength, boolean isTheOrderId) {

        void set(String text) {
            if (owner instanceof ObjectNode object) {
                object.put(name, text);
            } else {
                ((ArrayNode) owner).set(index, text);
            }
        }
    }

    @Test
    void theSchemasAcceptAnyTextInAnyTextFieldExactlyWhenTheReaderDoes() {
        AtomicInteger accepted = new AtomicInteger();
        AtomicInteger refused = new AtomicInteger();
        Set<String> fieldsTried = new TreeSet<>();
        Properties.forAll(1500, gen -> {
            boolean isInventory = gen.chance(0.3);
            EventCodec codec = isInventory ? inventory : orders;
            OrderEvent event = isInventory ? inventoryEvent(gen) : OrderEventSamples.orderEvent(gen);
            ObjectNode document = (ObjectNode) json.readTree(codec.encode(EventSamples.envelope(gen, codec, event)));
            String eventType = document.path("eventType").textValue();
            EventVersion version =
                    EventVersion.parse(document.path("eventVersion").textValue());
            ContractSchema envelopeSchema = ContractSchema.envelope();
            ContractSchema payloadSchema = ContractSchema.payload(eventType, version);
            List<Slot> slots = new ArrayList<>();
            textSlots(document, envelopeSchema.node(), true, slots);
            textSlots(document.get("payload"), payloadSchema.node(), true, slots);
            Slot slot = gen.oneOf(slots);
            String text = EdgeText.draw(gen, slot.maxLength());
            if (slot.isTheOrderId()) {
                // Envelope and payload name one order; a mismatch is refused for another reason than the text.
                document.put("orderId", text);
                ((ObjectNode) document.get("payload")).put("orderId", text);
            } else {
                slot.set(text);
            }
            fieldsTried.add(eventType + "." + slot.name());

            boolean schemasAccept = envelopeSchema.violations(document).isEmpty()
                    && payloadSchema.violations(document.get("payload")).isEmpty();
            boolean readerAccepts = reads(codec, document);

            assertThat(schemasAccept)
                    .as(
                            "%s.%s = \"%s\": the reader accepts it = %s, and the schemas must agree",
                            eventType, slot.name(), escaped(text), readerAccepts)
                    .isEqualTo(readerAccepts);
            assertThat(readerAccepts)
                    .as("the oracle for %s", escaped(text))
                    .isEqualTo(EdgeText.storable(text, slot.maxLength()));
            (readerAccepts ? accepted : refused).incrementAndGet();
        });
        assertThat(accepted).hasValueGreaterThan(200);
        assertThat(refused).hasValueGreaterThan(200);
        assertThat(fieldsTried)
                .contains("OrderCreated.customerId", "OrderCancelled.reason", "InventoryRejected.shortSkus");
    }

    /**
     * Every text property of the payload records and of the envelope is a storable text with a length in its schema;
     * only the currency code, whose pattern is stricter, is not.
     */
    @Test
    void everyTextPropertyOfTheRecordsIsAStorableTextWithALimitInItsSchema() {
        Map<String, JsonNode> textProperties = new TreeMap<>();
        for (EventCatalog catalogue : List.of(EventCatalog.orderEvents(), EventCatalog.inventoryEvents())) {
            for (EventType<?> type : catalogue.types()) {
                for (EventVersion version : type.versions()) {
                    ContractSchema schema = ContractSchema.payload(type.name(), version);
                    collectTextProperties(
                            schema.node(),
                            mapper.constructType(type.payloadType()),
                            schema.resource() + "#",
                            textProperties);
                }
            }
        }
        ContractSchema envelope = ContractSchema.envelope();
        for (String name : List.of("eventType", "producer", "orderId")) {
            textProperties.put(
                    envelope.resource() + "#" + name,
                    envelope.node().path("properties").path(name));
        }

        assertThat(textProperties).isNotEmpty().allSatisfy((where, property) -> {
            assertThat(property.path("$ref").textValue()).as(where).isEqualTo(STORABLE_TEXT);
            assertThat(property.path("maxLength").isInt()).as(where).isTrue();
        });
    }

    private void collectTextProperties(JsonNode schema, JavaType type, String where, Map<String, JsonNode> found) {
        BeanDescription description = mapper.getSerializationConfig().introspect(type);
        for (BeanPropertyDefinition property : description.findProperties()) {
            JavaType propertyType = property.getPrimaryType();
            JsonNode node = schema.path("properties").path(property.getName());
            if (propertyType.isCollectionLikeType()) {
                propertyType = propertyType.getContentType();
                node = node.path("items");
            }
            String at = where + property.getName();
            if (node.isMissingNode()) {
                continue; // a field of a later minor version than this schema's
            }
            if (propertyType.isRecordType()) {
                collectTextProperties(node, propertyType, at + ".", found);
            } else if (propertyType.hasRawClass(String.class) && !NOT_FREE_TEXT.contains(property.getName())) {
                found.put(at, node);
            }
        }
    }

    /** The text fields of {@code node} that its schema gives the storable-text rule, with their lengths. */
    private static void textSlots(JsonNode node, JsonNode schema, boolean root, List<Slot> slots) {
        if (node instanceof ObjectNode object) {
            object.properties().forEach(field -> {
                JsonNode property = schema.path("properties").path(field.getKey());
                JsonNode value = field.getValue();
                if (value.isTextual()
                        && STORABLE_TEXT.equals(property.path("$ref").textValue())) {
                    int maxLength = property.path("maxLength").intValue();
                    boolean orderId = root && field.getKey().equals("orderId");
                    slots.add(new Slot(object, field.getKey(), -1, maxLength, orderId));
                } else if (value.isArray()) {
                    JsonNode items = property.path("items");
                    for (int i = 0; i < value.size(); i++) {
                        JsonNode element = value.get(i);
                        if (element.isTextual()
                                && STORABLE_TEXT.equals(items.path("$ref").textValue())) {
                            slots.add(new Slot(
                                    value,
                                    field.getKey(),
                                    i,
                                    items.path("maxLength").intValue(),
                                    false));
                        } else {
                            textSlots(element, items, false, slots);
                        }
                    }
                } else if (value.isObject() && !field.getKey().equals("payload")) {
                    textSlots(value, property, false, slots);
                }
            });
        }
    }

    private static boolean reads(EventCodec codec, ObjectNode document) throws JsonProcessingException {
        // Escaped, so that a lone surrogate reaches the reader as the JSON escape a producer would write for it.
        byte[] value = ASCII_JSON.writeValueAsBytes(document);
        try {
            codec.decodePayload(codec.decode(value));
            return true;
        } catch (UnknownEventTypeException e) {
            return true; // a storable eventType this reader does not know: the envelope was read, and is skipped
        } catch (MalformedEventException e) {
            return false;
        }
    }

    private static OrderEvent inventoryEvent(Gen gen) {
        return gen.bool()
                ? new InventoryReserved(
                        OrderEventSamples.text(gen),
                        gen.list(1, 3, g -> new ReservedLine(OrderEventSamples.text(g), g.ints(1, 100))))
                : new InventoryRejected(
                        OrderEventSamples.text(gen),
                        OrderEventSamples.text(gen),
                        gen.list(1, 3, OrderEventSamples::text));
    }

    private static String escaped(String text) {
        StringBuilder shown = new StringBuilder();
        text.chars()
                .forEach(c ->
                        shown.append(c < 0x20 || c >= 0x7F ? String.format("\\u%04X", c) : String.valueOf((char) c)));
        return shown.toString();
    }
}
