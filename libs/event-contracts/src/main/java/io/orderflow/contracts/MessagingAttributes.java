package io.orderflow.contracts;

import io.opentelemetry.api.common.AttributeKey;

/**
 * The span attributes of the platform's messaging spans (the relay's publish spans, the consumers' process and hop
 * spans), named as OpenTelemetry's messaging conventions name them, plus the event type of ours.
 */
public final class MessagingAttributes {

    public static final AttributeKey<String> SYSTEM = AttributeKey.stringKey("messaging.system");
    public static final AttributeKey<String> OPERATION = AttributeKey.stringKey("messaging.operation.type");
    public static final AttributeKey<String> DESTINATION = AttributeKey.stringKey("messaging.destination.name");
    public static final AttributeKey<String> PARTITION = AttributeKey.stringKey("messaging.destination.partition.id");
    public static final AttributeKey<Long> OFFSET = AttributeKey.longKey("messaging.kafka.offset");
    public static final AttributeKey<String> KEY = AttributeKey.stringKey("messaging.kafka.message.key");
    public static final AttributeKey<String> GROUP = AttributeKey.stringKey("messaging.consumer.group.name");
    /** The event id. */
    public static final AttributeKey<String> MESSAGE_ID = AttributeKey.stringKey("messaging.message.id");

    public static final AttributeKey<String> EVENT_TYPE = AttributeKey.stringKey("orderflow.event.type");

    private MessagingAttributes() {}
}
