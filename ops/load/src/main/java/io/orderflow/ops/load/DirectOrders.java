package io.orderflow.ops.load;

import io.orderflow.contracts.EventVersion;
import io.orderflow.kafka.KafkaClientSettings;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import org.apache.kafka.clients.producer.KafkaProducer;

/**
 * The new orders of a load whose {@code OrderCreated} goes on {@code orders} directly, at the versions order-service
 * does not write ({@link EventVersionMix#direct()}): each version paced at its share of the rate for the duration, on a
 * thread of its own, every record a distinct order of one unit of a random SKU, keyed by its id. A record counts as
 * published once the broker acknowledged it ({@code acks=all}). Thread-safe; one run per instance.
 */
final class DirectOrders implements AutoCloseable {

    /** Null when the mix publishes nothing directly: no producer, no connection to the broker. */
    private final KafkaProducer<String, byte[]> producer;

    private final OrderCreatedRecords records = new OrderCreatedRecords("ops-load");
    private final Map<EventVersion, Double> rates = new TreeMap<>();
    private final Duration duration;
    private final Map<EventVersion, LongAdder> published = new ConcurrentHashMap<>();
    private final LongAdder failed = new LongAdder();
    private final List<Thread> senders = new ArrayList<>();

    DirectOrders(KafkaClientSettings cluster, int rate, Duration duration, EventVersionMix mix) {
        this.duration = duration;
        mix.direct().forEach((version, share) -> rates.put(version, rate * share));
        this.producer = rates.isEmpty() ? null : OrderCreatedRecords.producer(cluster);
    }

    /** Starts publishing at {@code startNanos} ({@link System#nanoTime()}). */
    void start(long startNanos) {
        int seed = 0;
        for (Map.Entry<EventVersion, Double> rate : rates.entrySet()) {
            SplittableRandom random = new SplittableRandom(seed++);
            published.put(rate.getKey(), new LongAdder());
            senders.add(Thread.ofPlatform()
                    .name("direct-orders-" + rate.getKey())
                    .start(() -> send(startNanos, rate.getKey(), rate.getValue(), random)));
        }
    }

    private void send(long startNanos, EventVersion version, double rate, SplittableRandom random) {
        long total = Math.round(rate * duration.toSeconds());
        for (long i = 0; i < total; i++) {
            try {
                OpenLoopLoad.sleepUntil(startNanos + Math.round(i * 1e9 / rate));
            } catch (InterruptedException e) {
                return;
            }
            String order = UUID.randomUUID().toString();
            String customer = "customer-" + random.nextInt(100_000);
            String sku = "sku-" + (1 + random.nextInt(1_000));
            producer.send(records.record(order, customer, sku, version, order), (metadata, error) -> {
                if (error == null) {
                    published.get(version).increment();
                } else {
                    failed.increment();
                }
            });
        }
    }

    /** Waits until every record has been sent and acknowledged (or failed). */
    void join() throws InterruptedException {
        for (Thread sender : senders) {
            sender.join();
        }
        if (producer != null) {
            producer.flush();
        }
    }

    /** Records the broker acknowledged, by version. */
    Map<EventVersion, Long> published() {
        Map<EventVersion, Long> counts = new TreeMap<>();
        published.forEach((version, count) -> counts.put(version, count.sum()));
        return counts;
    }

    long failed() {
        return failed.sum();
    }

    @Override
    public void close() {
        if (producer != null) {
            producer.close();
        }
    }
}
