package io.orderflow.contracts;

/**
 * Where the JSON Schemas (draft 2020-12) of the envelope and of each payload version live on the classpath.
 *
 * <p>The schemas describe the wire format for readers that are not Java; the Java records are checked against them by
 * this module's tests. Payload schemas never forbid additional properties: a payload of a newer minor must still
 * validate against every older schema of its major.
 */
public final class EventSchemas {

    public static final String ENVELOPE = "schemas/envelope.schema.json";

    private EventSchemas() {}

    /** The classpath resource of one payload version, e.g. {@code schemas/OrderCreated-1.1.schema.json}. */
    public static String payload(String eventType, EventVersion version) {
        return "schemas/" + eventType + "-" + version + ".schema.json";
    }
}
