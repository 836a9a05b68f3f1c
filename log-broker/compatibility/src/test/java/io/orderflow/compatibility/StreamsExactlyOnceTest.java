package io.orderflow.compatibility;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.orderflow.process.ChildProcesses;
import io.orderflow.process.OrderflowBrokerLauncher;
import io.orderflow.process.RunningBroker;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kafka Streams with {@code exactly_once_v2} (Apache Kafka's kafka-streams 4.4.0, {@link StreamsCountingApp}) on the
 * packaged broker while both are killed with SIGKILL, again and again: the application three times, the broker twice,
 * each restarted at once (the broker on the same port and data). Order events go in all along from an idempotent
 * producer. At the end the {@code read_committed} output must hold, for every customer, the counts 1, 2, ..., n with
 * n the customer's events in the input topic as the log holds them: a count repeated would be an event counted twice,
 * a count skipped or a final count short of n an event lost.
 */
class StreamsExactlyOnceTest {
    private static final int CUSTOMERS = 23;
    private static final int EVENTS = 3_000;
    private static final long SEED = 848;

    @TempDir
    Path workDir;

    private final OrderflowBrokerLauncher launcher = new OrderflowBrokerLauncher(
            Path.of("..", "..", "log-broker", "target"), List.of("-Xmx256m", "-XX:+UseSerialGC"), 3, List.of());
    private RunningBroker broker;
    private Process app;
    private int port;

    @AfterEach
    void stop() {
        if (app != null) {
            app.destroyForcibly();
        }
        if (broker != null) {
            broker.close();
        }
    }

    private String bootstrap() {
        return RunningBroker.HOST + ":" + port;
    }

    private void startBroker() throws IOException {
        broker = launcher.start(
                new OrderflowBrokerLauncher.Addresses(RunningBroker.HOST, port, RunningBroker.HOST, -1),
                workDir.resolve("data"),
                workDir.resolve("broker.log"),
                null);
    }

    private void startApp() throws IOException {
        ProcessBuilder builder = new ProcessBuilder(
                        ChildProcesses.java(),
                        "-Xmx256m",
                        "-cp",
                        System.getProperty("java.class.path"),
                        StreamsCountingApp.class.getName(),
                        bootstrap(),
                        workDir.resolve("streams-state").toString())
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(
                        workDir.resolve("app.log").toFile()));
        app = ChildProcesses.start(builder);
    }

    @Test
    void countsAreExactlyOnceWhileTheBrokerAndTheApplicationAreKilled() throws Exception {
        port = ChildProcesses.freeLoopbackPort();
        startBroker();
        KafkaClients.createTopic(bootstrap(), StreamsCountingApp.INPUT, 3);
        KafkaClients.createTopic(bootstrap(), StreamsCountingApp.OUTPUT, 3);
        startApp();

        AtomicReference<Throwable> producerFailure = new AtomicReference<>();
        Thread producer = Thread.ofPlatform().name("order-events").start(() -> {
            try {
                produceEvents();
            } catch (Throwable t) {
                producerFailure.set(t);
            }
        });
        Random random = new Random(SEED);
        String[] faults = {"app", "broker", "app", "broker", "app"};
        for (String fault : faults) {
            Thread.sleep(3_000 + random.nextInt(3_000));
            if (fault.equals("app")) {
                app.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
                startApp();
            } else {
                broker.kill();
                startBroker();
            }
        }
        producer.join(Duration.ofMinutes(3).toMillis());
        assertThat(producerFailure.get()).as("the producer's failure").isNull();
        assertThat(producer.isAlive()).as("the producer finished").isFalse();

        Map<String, Long> expected = inputCounts();
        assertThat(expected.values().stream().mapToLong(Long::longValue).sum()).isEqualTo(EVENTS);
        Map<String, List<Long>> seen = new HashMap<>();
        try (KafkaConsumer<String, String> consumer = consumer("read_committed")) {
            List<TopicPartition> partitions = partitions(StreamsCountingApp.OUTPUT);
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            await("every customer's final count")
                    .atMost(Duration.ofMinutes(2))
                    .pollInSameThread()
                    .pollInterval(Duration.ofMillis(1))
                    .until(() -> {
                        for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                            seen.computeIfAbsent(r.key(), k -> new ArrayList<>())
                                    .add(Long.parseLong(r.value()));
                        }
                        return expected.entrySet().stream()
                                .allMatch(e -> !seen.getOrDefault(e.getKey(), List.of())
                                                .isEmpty()
                                        && seen.get(e.getKey()).getLast() >= e.getValue());
                    });
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            throw new AssertionError(
                    "the output did not reach the input's counts; application log:\n"
                            + Files.readString(workDir.resolve("app.log")),
                    e);
        }
        for (Map.Entry<String, Long> e : expected.entrySet()) {
            List<Long> counts = seen.get(e.getKey());
            List<Long> oneToN = new ArrayList<>();
            for (long i = 1; i <= e.getValue(); i++) {
                oneToN.add(i);
            }
            assertThat(counts).as("the committed counts of %s", e.getKey()).isEqualTo(oneToN);
        }
    }

    private void produceEvents() throws Exception {
        Map<String, Object> config = Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrap(),
                ProducerConfig.ACKS_CONFIG,
                "all",
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG,
                true,
                ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG,
                180_000,
                ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG,
                5_000);
        try (KafkaProducer<String, String> producer =
                new KafkaProducer<>(config, new StringSerializer(), new StringSerializer())) {
            List<java.util.concurrent.Future<?>> sent = new ArrayList<>();
            for (int i = 0; i < EVENTS; i++) {
                String customer = "customer-" + (i * 7 % CUSTOMERS);
                sent.add(producer.send(new ProducerRecord<>(StreamsCountingApp.INPUT, "order-" + i, customer)));
                if (i % 100 == 99) {
                    Thread.sleep(200); // about 15 s of events, across the faults
                }
            }
            for (java.util.concurrent.Future<?> ack : sent) {
                ack.get(3, TimeUnit.MINUTES);
            }
        }
    }

    /** Each customer's events as the input topic holds them. */
    private Map<String, Long> inputCounts() {
        Map<String, Long> counts = new HashMap<>();
        try (KafkaConsumer<String, String> consumer = consumer("read_uncommitted")) {
            List<TopicPartition> partitions = partitions(StreamsCountingApp.INPUT);
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> ends = consumer.endOffsets(partitions);
            await().atMost(Duration.ofMinutes(1)).pollInSameThread().until(() -> {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                    counts.merge(r.value(), 1L, Long::sum);
                }
                return partitions.stream().allMatch(tp -> consumer.position(tp) >= ends.get(tp));
            });
        }
        return counts;
    }

    private List<TopicPartition> partitions(String topic) {
        return List.of(new TopicPartition(topic, 0), new TopicPartition(topic, 1), new TopicPartition(topic, 2));
    }

    private KafkaConsumer<String, String> consumer(String isolation) {
        return new KafkaConsumer<>(
                Map.of(
                        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                        bootstrap(),
                        ConsumerConfig.ISOLATION_LEVEL_CONFIG,
                        isolation,
                        ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
                        false),
                new StringDeserializer(),
                new StringDeserializer());
    }
}
