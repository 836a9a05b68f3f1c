package io.orderflow.ops.bench.orders;

import io.orderflow.contracts.EventCodec;
import io.orderflow.contracts.EventEnvelope;
import io.orderflow.contracts.UndecodableEventException;
import io.orderflow.ops.load.WallClock;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Reads the {@code orders} topic as any consumer of the platform would (kafka-clients, default fetch settings:
 * the broker answers a fetch as soon as one byte is there), and notes for each order when its first event became
 * readable here: the wall time {@code poll()} returned it. With the envelope's {@code occurredAt} that gives the
 * commit-to-readable latency, see {@link Arrival}.
 *
 * <p>Every partition is assigned (no group, no rebalance) and read from the beginning: the topic is created empty
 * for each run, and orders are told apart by id, not by offset, so nothing needs to be skipped.
 *
 * <p>The consumer lives on its own thread; the other methods may be called from any thread.
 */
public final class OrderEventsReader implements AutoCloseable {
    private final KafkaConsumer<byte[], byte[]> consumer;
    private final EventCodec codec = new EventCodec();
    private final Map<String, Arrival> arrivals = new ConcurrentHashMap<>();
    private final LongAdder records = new LongAdder();
    private final LongAdder polls = new LongAdder();
    private final LongAdder duplicates = new LongAdder();
    private final LongAdder undecodable = new LongAdder();
    private final Thread thread;
    private volatile boolean stopping;
    private volatile RuntimeException failure;

    /**
     * When an order's first event became readable, and the time it claims to have happened.
     *
     * @param readableMicros wall time {@code poll()} returned the record
     * @param occurredMicros the envelope's {@code occurredAt}: set by the order service inside the transaction that
     *     also inserts the outbox row, before the commit, so {@code readable - occurred} slightly overestimates the
     *     time from commit to readable (by the transaction's remaining work and its commit, a few milliseconds)
     */
    public record Arrival(long readableMicros, long occurredMicros) {}

    private OrderEventsReader(KafkaConsumer<byte[], byte[]> consumer) {
        this.consumer = consumer;
        this.thread = Thread.ofPlatform().name("orders-reader").daemon().unstarted(this::pollLoop);
    }

    /** Assigns every partition of {@code topic} on {@code bootstrapServers} and starts reading. */
    public static OrderEventsReader start(String bootstrapServers, String topic) {
        Properties config = new Properties();
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        config.put(ConsumerConfig.CLIENT_ID_CONFIG, "orders-bench-reader");
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(config, new ByteArrayDeserializer(), new ByteArrayDeserializer());
        try {
            List<TopicPartition> partitions = consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
                    .map(p -> new TopicPartition(p.topic(), p.partition()))
                    .toList();
            if (partitions.isEmpty()) {
                throw new IllegalStateException("Topic " + topic + " has no partitions on " + bootstrapServers);
            }
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
        } catch (RuntimeException e) {
            consumer.close();
            throw e;
        }
        OrderEventsReader reader = new OrderEventsReader(consumer);
        reader.thread.start();
        return reader;
    }

    private void pollLoop() {
        try {
            while (!stopping) {
                ConsumerRecords<byte[], byte[]> batch = consumer.poll(Duration.ofMillis(200));
                long readable = WallClock.micros();
                polls.increment();
                for (ConsumerRecord<byte[], byte[]> record : batch) {
                    records.increment();
                    note(record, readable);
                }
            }
        } catch (WakeupException e) {
            // close() asked us to stop
        } catch (RuntimeException e) {
            failure = e;
        } finally {
            consumer.close(Duration.ofSeconds(5));
        }
    }

    private void note(ConsumerRecord<byte[], byte[]> record, long readableMicros) {
        EventEnvelope envelope;
        try {
            envelope = codec.decode(record.value());
        } catch (UndecodableEventException | IllegalArgumentException e) {
            undecodable.increment();
            return;
        }
        String orderId = record.key() == null ? envelope.orderId() : new String(record.key(), StandardCharsets.UTF_8);
        Arrival first =
                arrivals.putIfAbsent(orderId, new Arrival(readableMicros, WallClock.micros(envelope.occurredAt())));
        if (first != null) {
            duplicates.increment();
        }
    }

    public Arrival arrival(String orderId) {
        return arrivals.get(orderId);
    }

    long records() {
        return records.sum();
    }

    /** How many times {@code poll()} returned, with records or without. */
    long polls() {
        return polls.sum();
    }

    /** Records of an order already seen (a relay resending after a crash would cause them; none are expected). */
    long duplicates() {
        return duplicates.sum();
    }

    long undecodable() {
        return undecodable.sum();
    }

    /** Throws what stopped the consumer, if anything did. */
    public void checkHealthy() {
        RuntimeException e = failure;
        if (e != null) {
            throw new IllegalStateException("The orders reader stopped: " + e, e);
        }
    }

    @Override
    public void close() throws InterruptedException {
        stopping = true;
        consumer.wakeup();
        thread.join(10_000);
    }
}
