package io.orderflow.testing;

import io.orderflow.contracts.EventCodec;
import io.orderflow.contracts.Topics;
import io.orderflow.contracts.order.OrderEvent;
import java.time.Instant;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Order events onto the {@code orders} topic as the outbox relay writes them (keyed by order id, the envelope as
 * value), for consumer tests: {@link #send(OrderEvent)} waits for the broker's acknowledgement. {@link #encode} gives
 * the bytes, to send twice or to tamper with. Not thread-safe.
 */
public final class OrderEventsProducer implements AutoCloseable {

    private final EventCodec codec = new EventCodec();
    private final KafkaProducer<String, byte[]> producer;

    public OrderEventsProducer(String bootstrapServers) {
        producer = new KafkaProducer<>(
                Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers, ProducerConfig.ACKS_CONFIG, "all"),
                new StringSerializer(),
                new ByteArraySerializer());
    }

    public EventCodec codec() {
        return codec;
    }

    /** {@code event} in a new envelope (a fresh event id) that occurred now. */
    public byte[] encode(OrderEvent event) {
        return encode(event, Instant.now());
    }

    public byte[] encode(OrderEvent event, Instant occurredAt) {
        return codec.encode(codec.wrap(event, UUID.randomUUID(), occurredAt, "test", null));
    }

    public void send(OrderEvent event) throws InterruptedException, ExecutionException {
        send(event.orderId(), encode(event));
    }

    /** {@code value} keyed by {@code key}, acknowledged by the broker when this returns. */
    public void send(String key, byte[] value) throws InterruptedException, ExecutionException {
        producer.send(new ProducerRecord<>(Topics.ORDERS, key, value)).get();
    }

    @Override
    public void close() {
        producer.close();
    }
}
