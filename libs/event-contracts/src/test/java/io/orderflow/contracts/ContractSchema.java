package io.orderflow.contracts;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SchemaValidatorsConfig;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/** One of the module's JSON Schema resources, loaded from the classpath and compiled with format assertions on. */
record ContractSchema(String resource, JsonNode node, JsonSchema compiled) {

    private static final ObjectMapper MAPPER = EventJson.newObjectMapper();
    private static final JsonSchemaFactory FACTORY = JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012);
    private static final SchemaValidatorsConfig CONFIG =
            SchemaValidatorsConfig.builder().formatAssertionsEnabled(true).build();

    static ContractSchema load(String resource) {
        try (InputStream in = ContractSchema.class.getClassLoader().getResourceAsStream(resource)) {
            assertThat(in).as("schema resource %s", resource).isNotNull();
            JsonNode node = MAPPER.readTree(in);
            return new ContractSchema(resource, node, FACTORY.getSchema(node, CONFIG));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static ContractSchema envelope() {
        return load(EventSchemas.ENVELOPE);
    }

    static ContractSchema payload(String eventType, EventVersion version) {
        return load(EventSchemas.payload(eventType, version));
    }

    /** The validator's messages for {@code document}; empty when it is valid. */
    Set<String> violations(JsonNode document) {
        return compiled.validate(document).stream()
                .map(ValidationMessage::getMessage)
                .collect(Collectors.toCollection(TreeSet::new));
    }

    Set<String> properties() {
        Set<String> names = new TreeSet<>();
        node.path("properties").fieldNames().forEachRemaining(names::add);
        return names;
    }

    Set<String> required() {
        Set<String> names = new TreeSet<>();
        node.path("required").forEach(name -> names.add(name.asText()));
        return names;
    }
}
