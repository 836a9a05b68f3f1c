package io.orderflow.ops.load;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.orderflow.contracts.EventCodec;
import io.orderflow.contracts.EventEnvelope;
import io.orderflow.contracts.EventHeaders;
import io.orderflow.contracts.EventVersion;
import io.orderflow.contracts.Topics;
import io.orderflow.contracts.order.OrderCreated;
import io.orderflow.contracts.order.OrderLine;
import io.orderflow.kafka.KafkaClientSettings;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * {@code OrderCreated} records published on {@code orders} directly, by a drill or the load generator playing a
 * producer other than order-service's relay: the envelope as the value and its id, type and version as headers, as the relay writes them,
 * but at a version and under a key the drill chooses. Thread-safe.
 */
public final class OrderCreatedRecords {

    /** The breaking version the schema-change drill publishes: the lines are {@code lines}, prices in cents. */
    public static final EventVersion V2_0 = new EventVersion(2, 0);

    private final EventCodec codec = new EventCodec();
    private final String producer;

    /** Records whose envelopes name {@code producer} as their producer. */
    public OrderCreatedRecords(String producer) {
        this.producer = producer;
    }

    /**
     * One unit of {@code sku} ordered by {@code customer} as {@code order}, at {@code version} (1.0 without the
     * {@code channel} 1.1 added, 1.1 as order-service writes it, or {@link #V2_0}), keyed by {@code key}.
     */
    public ProducerRecord<String, byte[]> record(
            String order, String customer, String sku, EventVersion version, String key) {
        OrderCreated created = new OrderCreated(
                order,
                customer,
                "EUR",
                List.of(new OrderLine(sku, 1, new BigDecimal("1.00"))),
                new BigDecimal("1.00"),
                "web");
        EventEnvelope current = codec.wrap(created, UUID.randomUUID(), Instant.now(), producer, null);
        ObjectNode payload = current.payload().deepCopy();
        if (version.equals(EventVersion.V1_0)) {
            payload.remove("channel");
        } else if (version.equals(V2_0)) {
            ArrayNode lines = payload.putArray("lines");
            lines.addObject().put("sku", sku).put("quantity", 1).put("unitPriceCents", 100);
            payload.remove("items");
            payload.remove("total");
            payload.put("totalCents", 100);
        } else if (!version.equals(EventVersion.V1_1)) {
            throw new IllegalArgumentException("no OrderCreated " + version + " to make");
        }
        EventEnvelope envelope = new EventEnvelope(
                current.eventId(), current.eventType(), version, current.occurredAt(), producer, order, null, payload);
        RecordHeaders headers = new RecordHeaders();
        EventHeaders.of(envelope).forEach((name, value) -> headers.add(name, value.getBytes(StandardCharsets.UTF_8)));
        return new ProducerRecord<>(Topics.ORDERS, null, key, codec.encode(envelope), headers);
    }

    /** An idempotent producer with {@code acks=all}, as the relay's. */
    public static KafkaProducer<String, byte[]> producer(KafkaClientSettings cluster) {
        return new KafkaProducer<>(
                cluster.producer(
                        Map.of(ProducerConfig.ACKS_CONFIG, "all", ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true)),
                new StringSerializer(),
                new ByteArraySerializer());
    }
}
