package io.orderflow.compatibility;

import java.nio.file.Path;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.state.Stores;

/**
 * A Kafka Streams application with {@code processing.guarantee=exactly_once_v2}: it counts order events per customer
 * (the event's value) and writes every new count to {@value #OUTPUT}. Without a record cache, each input record makes
 * one output update, so a customer's committed counts are 1, 2, 3... with none repeated and none skipped exactly when
 * processing is exactly once. Run as its own JVM by {@link StreamsExactlyOnceTest}, which kills it with SIGKILL.
 *
 * <p>Arguments: bootstrap servers, state directory.
 */
public final class StreamsCountingApp {
    static final String APPLICATION_ID = "order-counter";
    static final String INPUT = "order-events";
    static final String OUTPUT = "customer-counts";

    private StreamsCountingApp() {}

    public static void main(String[] args) throws InterruptedException {
        Properties p = new Properties();
        p.put(StreamsConfig.APPLICATION_ID_CONFIG, APPLICATION_ID);
        p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
        p.put(StreamsConfig.STATE_DIR_CONFIG, Path.of(args[1]).toString());
        p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 200);
        p.put(StreamsConfig.STATESTORE_CACHE_MAX_BYTES_CONFIG, 0);
        p.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, 1);
        p.put(StreamsConfig.consumerPrefix(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG), "earliest");
        // Static membership: a restarted instance takes its place in the group at once, not after a session timeout.
        p.put(StreamsConfig.consumerPrefix(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG), "counter-1");
        p.put(StreamsConfig.consumerPrefix(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG), 10_000);

        StreamsBuilder builder = new StreamsBuilder();
        builder.stream(INPUT, Consumed.with(Serdes.String(), Serdes.String()))
                .groupBy((orderId, customer) -> customer, Grouped.with(Serdes.String(), Serdes.String()))
                .count(Materialized.<String, Long>as(Stores.inMemoryKeyValueStore("counts-by-customer"))
                        .withKeySerde(Serdes.String())
                        .withValueSerde(Serdes.Long())
                        .withCachingDisabled())
                .toStream()
                .mapValues(count -> Long.toString(count))
                .to(OUTPUT, Produced.with(Serdes.String(), Serdes.String()));

        KafkaStreams streams = new KafkaStreams(builder.build(), p);
        CountDownLatch stopped = new CountDownLatch(1);
        streams.setStateListener((now, before) -> {
            System.out.println("streams state " + before + " -> " + now);
            if (now == KafkaStreams.State.ERROR || now == KafkaStreams.State.NOT_RUNNING) {
                stopped.countDown();
            }
        });
        // A thread that fails (the broker gone longer than a timeout) is replaced, as a long-running service would be.
        streams.setUncaughtExceptionHandler(e -> {
            System.out.println("stream thread failed, replacing it: " + e);
            return StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse.REPLACE_THREAD;
        });
        Runtime.getRuntime().addShutdownHook(new Thread(streams::close));
        streams.start();
        stopped.await();
        System.exit(1);
    }
}
