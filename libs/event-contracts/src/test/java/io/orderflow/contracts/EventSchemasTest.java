package io.orderflow.contracts;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.BeanDescription;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.introspect.BeanPropertyDefinition;
import io.orderflow.contracts.order.OrderCancelled;
import io.orderflow.contracts.order.OrderCreated;
import io.orderflow.contracts.order.OrderEventSamples;
import io.orderflow.property.Properties;
import java.io.IOException;
import java.lang.reflect.RecordComponent;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The JSON Schemas are the wire contract for non-Java readers; these tests keep them and the Java types in step. */
class EventSchemasTest {

    private final EventCodec codec = new EventCodec();
    private final ObjectMapper mapper = EventJson.newObjectMapper();

    /**
     * Each catalogue whose current versions have schemas: this build's order and inventory events, and the 1.0 release
     * of OrderCreated.
     */
    private static final List<EventCatalog> CATALOGUES =
            List.of(EventCatalog.orderEvents(), EventCatalog.inventoryEvents(), OrderCreatedV1.CATALOG);

    /** This build's catalogues. */
    private static final List<EventType<?>> BUILD_TYPES = Stream.concat(
                    EventCatalog.orderEvents().types().stream(), EventCatalog.inventoryEvents().types().stream())
            .toList();

    @Test
    void everyEncodedEventValidatesAgainstTheEnvelopeSchemaAndItsVersionsPayloadSchema() {
        Properties.forAll(300, gen -> {
            EventEnvelope envelope = EventSamples.envelope(gen, codec);
            JsonNode written = mapper.readTree(codec.encode(envelope));

            assertThat(ContractSchema.envelope().violations(written)).isEmpty();
            assertThat(ContractSchema.payload(envelope.eventType(), envelope.eventVersion())
                            .violations(written.get("payload")))
                    .isEmpty();
        });
    }

    @Test
    void orderCreated1_1ValidatesAgainstThe1_0SchemaToo() {
        Properties.forAll(300, gen -> {
            EventEnvelope envelope = EventSamples.envelope(gen, codec, OrderEventSamples.orderCreated(gen));

            assertThat(envelope.eventVersion()).isEqualTo(EventVersion.V1_1);

            assertThat(ContractSchema.payload("OrderCreated", EventVersion.V1_0).violations(envelope.payload()))
                    .isEmpty();
        });
    }

    @Test
    void orderCreated1_0ValidatesAgainstThe1_1Schema() {
        EventCodec v1Codec = new EventCodec(OrderCreatedV1.CATALOG);
        Properties.forAll(300, gen -> {
            OrderCreated created = OrderEventSamples.orderCreated(gen);
            OrderCreatedV1 v1 = new OrderCreatedV1(
                    created.orderId(), created.customerId(), created.currency(), created.items(), created.total());
            EventEnvelope envelope = EventSamples.envelope(gen, v1Codec, v1);

            assertThat(envelope.eventVersion()).isEqualTo(EventVersion.V1_0);

            assertThat(ContractSchema.payload("OrderCreated", EventVersion.V1_1).violations(envelope.payload()))
                    .isEmpty();
        });
    }

    @Test
    void everyCataloguedVersionHasADraft2020_12Schema() {
        for (EventType<?> type : BUILD_TYPES) {
            for (EventVersion version : type.versions()) {
                ContractSchema schema = ContractSchema.payload(type.name(), version);
                assertThat(schema.node().path("$schema").textValue())
                        .as(schema.resource())
                        .isEqualTo("https://json-schema.org/draft/2020-12/schema");
            }
        }
        assertThat(ContractSchema.envelope().node().path("$schema").textValue())
                .isEqualTo("https://json-schema.org/draft/2020-12/schema");
    }

    @Test
    void payloadSchemaPropertiesAreTheJsonPropertiesOfTheRecordOfThatVersion() {
        for (EventCatalog catalogue : CATALOGUES) {
            for (EventType<?> type : catalogue.types()) {
                ContractSchema schema = ContractSchema.payload(type.name(), type.current());
                assertSameProperties(
                        schema.node(),
                        mapper.constructType(type.payloadType()),
                        schema.resource() + " vs " + type.payloadType().getSimpleName());
            }
        }
    }

    @Test
    void envelopeSchemaPropertiesAreTheEnvelopeRecordComponentsAndTheEncodedFields() throws IOException {
        Set<String> schemaProperties = ContractSchema.envelope().properties();
        Set<String> components = Arrays.stream(EventEnvelope.class.getRecordComponents())
                .map(RecordComponent::getName)
                .collect(Collectors.toCollection(TreeSet::new));
        EventEnvelope traced = codec.wrap(
                new OrderCancelled("order-1", "duplicate"),
                UUID.randomUUID(),
                Instant.EPOCH,
                "order-service",
                "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
        Set<String> encoded = new TreeSet<>();
        mapper.readTree(codec.encode(traced)).fieldNames().forEachRemaining(encoded::add);

        assertThat(schemaProperties).isEqualTo(components).isEqualTo(encoded);
    }

    @Test
    void aMinorVersionOnlyAddsOptionalPropertiesToThePreviousOne() {
        for (EventType<?> type : BUILD_TYPES) {
            for (int i = 1; i < type.versions().size(); i++) {
                ContractSchema older =
                        ContractSchema.payload(type.name(), type.versions().get(i - 1));
                ContractSchema newer =
                        ContractSchema.payload(type.name(), type.versions().get(i));
                assertThat(newer.properties()).as(newer.resource()).containsAll(older.properties());
                assertThat(newer.required()).as(newer.resource()).isEqualTo(older.required());
                for (String name : older.properties()) {
                    assertThat(newer.node().path("properties").get(name))
                            .as("%s property %s", newer.resource(), name)
                            .isEqualTo(older.node().path("properties").get(name));
                }
            }
        }
    }

    private void assertSameProperties(JsonNode schema, JavaType type, String where) {
        Map<String, JavaType> javaProperties = new TreeMap<>();
        BeanDescription description = mapper.getSerializationConfig().introspect(type);
        for (BeanPropertyDefinition property : description.findProperties()) {
            javaProperties.put(property.getName(), property.getPrimaryType());
        }
        Set<String> schemaProperties = new TreeSet<>();
        schema.path("properties").fieldNames().forEachRemaining(schemaProperties::add);

        assertThat(schemaProperties).as(where).isEqualTo(javaProperties.keySet());
        javaProperties.forEach((name, javaType) -> {
            JsonNode property = schema.path("properties").path(name);
            if (javaType.isCollectionLikeType()) {
                property = property.path("items");
                javaType = javaType.getContentType();
            }
            if (javaType.isRecordType()) {
                assertSameProperties(property, javaType, where + "." + name);
            }
        });
    }
}
