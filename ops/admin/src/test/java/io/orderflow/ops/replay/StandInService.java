package io.orderflow.ops.replay;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * What a replay sees of a consuming service, with none of the service: a plain kafka-clients consumer in the group,
 * on a thread of its own, that "applies" each record's key once (a set standing in for the processed-events table,
 * kept across restarts), commits after every poll, and serves {@code orderflow_consumer_events_total{group,outcome}}
 * on {@code /q/metrics} as Micrometer writes it, counted from its last start. {@link #control} stops it (the consumer
 * closes and leaves the group, as on SIGTERM) and starts it again, counting its stops and starts.
 *
 * <p>Thread-safe: the counters and the set are concurrent; start and stop are synchronized.
 */
final class StandInService implements AutoCloseable {

    private final String bootstrapServers;
    private final String group;
    private final List<String> topics;
    private final Set<String> appliedKeys = ConcurrentHashMap.newKeySet();
    private final AtomicLong applied = new AtomicLong();
    private final AtomicLong duplicates = new AtomicLong();
    private final AtomicInteger stops = new AtomicInteger();
    private final AtomicInteger starts = new AtomicInteger();
    private final HttpServer metrics;
    private Thread consumer;
    private AtomicBoolean running;

    StandInService(String bootstrapServers, String group, List<String> topics) throws IOException {
        this.bootstrapServers = bootstrapServers;
        this.group = group;
        this.topics = List.copyOf(topics);
        metrics = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        metrics.createContext("/q/metrics", exchange -> {
            byte[] body = exposition().getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        metrics.start();
    }

    URI metricsUri() {
        return URI.create("http://127.0.0.1:" + metrics.getAddress().getPort() + "/q/metrics");
    }

    long applied() {
        return applied.get();
    }

    int stops() {
        return stops.get();
    }

    int starts() {
        return starts.get();
    }

    /** Stops and starts this stand-in, whatever the service's name. */
    ServiceControl control() {
        return new ServiceControl() {
            @Override
            public String stop(String service) throws InterruptedException {
                StandInService.this.stop();
                return "stopped " + service;
            }

            @Override
            public String start(String service) {
                StandInService.this.start();
                return "started " + service;
            }
        };
    }

    /** A new "process": counters from 0, a new consumer in the group, reading from the committed offsets. */
    synchronized void start() {
        if (consumer != null) {
            throw new IllegalStateException("the stand-in runs");
        }
        applied.set(0);
        duplicates.set(0);
        AtomicBoolean flag = new AtomicBoolean(true);
        running = flag;
        consumer = Thread.ofPlatform().name("stand-in-" + group).start(() -> consume(flag));
        starts.incrementAndGet();
    }

    /** Closes the consumer, which leaves the group, and returns once it has. */
    synchronized void stop() throws InterruptedException {
        if (consumer == null) {
            return;
        }
        running.set(false);
        consumer.join();
        consumer = null;
        stops.incrementAndGet();
    }

    /** A member of {@code group} as the stand-in runs one: committing by hand, from the earliest offset. */
    static KafkaConsumer<String, String> member(String bootstrapServers, String group) {
        return new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrapServers,
                ConsumerConfig.GROUP_ID_CONFIG,
                group,
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
                "earliest",
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
                "false",
                // A member learns of a rebalance from its heartbeat's answer: every 0.5 s instead of 3.
                ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG,
                "500",
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG,
                StringDeserializer.class.getName(),
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG,
                StringDeserializer.class.getName()));
    }

    private void consume(AtomicBoolean flag) {
        try (KafkaConsumer<String, String> kafka = member(bootstrapServers, group)) {
            kafka.subscribe(topics);
            while (flag.get()) {
                var records = kafka.poll(Duration.ofMillis(100));
                for (ConsumerRecord<String, String> record : records) {
                    (appliedKeys.add(record.key()) ? applied : duplicates).incrementAndGet();
                }
                if (!records.isEmpty()) {
                    kafka.commitSync();
                }
            }
        }
    }

    private String exposition() {
        String metric = ConsumerCounters.METRIC;
        return "# HELP " + metric + " Events by outcome\n"
                + "# TYPE " + metric + " counter\n"
                + sample(metric, "applied", applied.get())
                + sample(metric, "dead_lettered", 0)
                + sample(metric, "duplicate", duplicates.get())
                + sample(metric, "ignored", 0)
                + sample(metric, "retried", 0);
    }

    private String sample(String metric, String outcome, long value) {
        return metric + "{group=\"" + group + "\",outcome=\"" + outcome + "\"} " + value + ".0\n";
    }

    @Override
    public void close() throws InterruptedException {
        stop();
        metrics.stop(0);
    }
}
