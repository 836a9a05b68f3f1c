package io.orderflow.compatibility;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.orderflow.compatibility.TransactionalChecker.Outcome;
import io.orderflow.process.ApacheKafkaLauncher;
import io.orderflow.process.ChildProcesses;
import io.orderflow.process.OrderflowBrokerLauncher;
import io.orderflow.process.RunningBroker;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Jepsen-style check of transactions ({@link TransactionalChecker}) on our broker and on Apache Kafka 4.4.0, the
 * same workload on each: three transactional producers committing or aborting (seeded at random) transactions of one
 * to four records over three partitions, a {@code read_committed} consumer reading all along, and the broker killed
 * with SIGKILL three times and restarted on its data. A producer whose call fails is closed and replaced (the new
 * one fences it and settles its transaction), and the transaction is recorded as aborted when it never asked to
 * commit, unknown when its commit failed. Our broker must show no anomaly; Apache Kafka's anomalies, if any, are
 * printed for the record.
 */
class TransactionalCheckerTest {
    private static final String TOPIC = "checked";
    private static final int PARTITIONS = 3;
    private static final int WRITERS = 3;
    private static final int KILLS = 3;
    private static final long SEED = 98;

    @TempDir
    Path workDir;

    /** A broker this test can kill and start again at the same address with the same data. */
    private interface Restartable {
        RunningBroker start() throws IOException;

        RunningBroker restart() throws IOException;
    }

    @Test
    void ourBrokerShowsNoAnomaly() throws Exception {
        int port = ChildProcesses.freeLoopbackPort();
        OrderflowBrokerLauncher launcher = new OrderflowBrokerLauncher(
                Path.of("..", "..", "log-broker", "target"), List.of("-Xmx256m", "-XX:+UseSerialGC"), 1, List.of());
        Restartable ours = new Restartable() {
            @Override
            public RunningBroker start() throws IOException {
                return launcher.start(
                        new OrderflowBrokerLauncher.Addresses(RunningBroker.HOST, port, RunningBroker.HOST, -1),
                        workDir.resolve("data"),
                        workDir.resolve("broker.log"),
                        null);
            }

            @Override
            public RunningBroker restart() throws IOException {
                return start();
            }
        };
        List<String> anomalies = run("orderflow log-broker", ours);
        assertThat(anomalies).isEmpty();
    }

    @Test
    void apacheKafkaRunsTheSameWorkload() throws Exception {
        ApacheKafkaLauncher launcher =
                ApacheKafkaLauncher.onClasspath(System.getProperty("java.class.path"), List.of("-Xmx512m"), 1);
        Restartable kafka = new Restartable() {
            @Override
            public RunningBroker start() throws IOException {
                return launcher.start(workDir, workDir.resolve("kafka.log"));
            }

            @Override
            public RunningBroker restart() throws IOException {
                return launcher.restart(workDir, workDir.resolve("kafka.log"));
            }
        };
        List<String> anomalies = run(ApacheKafkaLauncher.NAME, kafka);
        System.out.println(ApacheKafkaLauncher.NAME + " anomalies: " + (anomalies.isEmpty() ? "none" : anomalies));
    }

    /** Runs the workload with the kills; returns the anomalies and asserts the workload did something. */
    private List<String> run(String name, Restartable broker) throws Exception {
        RunningBroker running = broker.start();
        String bootstrap = running.bootstrapServers();
        KafkaClients.createTopic(bootstrap, TOPIC, PARTITIONS);
        TransactionalChecker checker = new TransactionalChecker();
        AtomicBoolean stop = new AtomicBoolean();
        List<Thread> threads = new ArrayList<>();
        for (int w = 0; w < WRITERS; w++) {
            int writer = w;
            threads.add(Thread.ofPlatform().name("writer-" + w).start(() -> write(bootstrap, writer, checker, stop)));
        }
        Map<Integer, List<String>> live = new HashMap<>();
        Thread reader = Thread.ofPlatform().name("reader").start(() -> read(bootstrap, live, stop));
        Random random = new Random(SEED);
        try {
            for (int k = 0; k < KILLS; k++) {
                Thread.sleep(2_000 + random.nextInt(2_000));
                running.kill();
                running = broker.restart();
            }
            Thread.sleep(3_000);
        } finally {
            stop.set(true);
            for (Thread t : threads) {
                t.join(Duration.ofMinutes(2).toMillis());
            }
            reader.join(Duration.ofMinutes(1).toMillis());
        }
        checker.liveRead(live);
        Map<Integer, List<String>> finalRead = finalRead(bootstrap);
        running.close();
        List<String> anomalies = checker.anomalies(finalRead);
        System.out.printf(
                "%s: %d committed, %d aborted, %d unknown transactions, %d values read; %d anomalies%n",
                name,
                checker.count(Outcome.COMMITTED),
                checker.count(Outcome.ABORTED),
                checker.count(Outcome.UNKNOWN),
                finalRead.values().stream().mapToInt(List::size).sum(),
                anomalies.size());
        assertThat(checker.count(Outcome.COMMITTED))
                .as("committed transactions")
                .isGreaterThan(20);
        assertThat(checker.count(Outcome.ABORTED)).as("aborted transactions").isGreaterThan(5);
        return anomalies;
    }

    private static KafkaProducer<String, String> producer(String bootstrap, int writer) {
        Map<String, Object> config = Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ProducerConfig.TRANSACTIONAL_ID_CONFIG, "w" + writer,
                ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, 10_000,
                ProducerConfig.MAX_BLOCK_MS_CONFIG, 20_000,
                ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 20_000,
                ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000);
        return new KafkaProducer<>(config, new StringSerializer(), new StringSerializer());
    }

    private static void write(String bootstrap, int writer, TransactionalChecker checker, AtomicBoolean stop) {
        Random random = new Random(SEED * 31 + writer);
        int txn = 0;
        KafkaProducer<String, String> producer = null;
        while (!stop.get()) {
            if (producer == null) {
                producer = producer(bootstrap, writer);
                try {
                    producer.initTransactions();
                } catch (RuntimeException e) {
                    producer.close(Duration.ZERO);
                    producer = null;
                    continue;
                }
            }
            String id = "w" + writer + "-" + (++txn);
            boolean commit = random.nextInt(10) < 7;
            Map<Integer, List<String>> writes = new LinkedHashMap<>();
            boolean commitAsked = false;
            try {
                producer.beginTransaction();
                int records = 1 + random.nextInt(4);
                for (int i = 0; i < records; i++) {
                    int partition = random.nextInt(PARTITIONS);
                    String value = id + "-" + i;
                    writes.computeIfAbsent(partition, p -> new ArrayList<>()).add(value);
                    producer.send(new ProducerRecord<>(TOPIC, partition, id, value));
                }
                if (commit) {
                    commitAsked = true;
                    producer.commitTransaction();
                    checker.transaction(id, writes, Outcome.COMMITTED);
                } else {
                    producer.flush();
                    producer.abortTransaction();
                    checker.transaction(id, writes, Outcome.ABORTED);
                }
            } catch (RuntimeException e) {
                checker.transaction(id, writes, commitAsked ? Outcome.UNKNOWN : Outcome.ABORTED);
                producer.close(Duration.ZERO);
                producer = null;
            }
        }
        if (producer != null) {
            producer.close(Duration.ofSeconds(10));
        }
    }

    private static KafkaConsumer<String, String> committedReader(String bootstrap) {
        return new KafkaConsumer<>(
                Map.of(
                        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                        bootstrap,
                        ConsumerConfig.ISOLATION_LEVEL_CONFIG,
                        "read_committed",
                        ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG,
                        false),
                new StringDeserializer(),
                new StringDeserializer());
    }

    private static List<TopicPartition> partitions() {
        List<TopicPartition> out = new ArrayList<>();
        for (int p = 0; p < PARTITIONS; p++) {
            out.add(new TopicPartition(TOPIC, p));
        }
        return out;
    }

    private static void read(String bootstrap, Map<Integer, List<String>> live, AtomicBoolean stop) {
        try (KafkaConsumer<String, String> consumer = committedReader(bootstrap)) {
            consumer.assign(partitions());
            consumer.seekToBeginning(partitions());
            while (!stop.get()) {
                try {
                    for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(100))) {
                        live.computeIfAbsent(r.partition(), p -> new ArrayList<>())
                                .add(r.value());
                    }
                } catch (RuntimeException e) {
                    // the broker is down: poll again once it is back
                }
            }
        }
    }

    /** Every partition from its start to its end once no transaction is open (last stable offset = end). */
    private static Map<Integer, List<String>> finalRead(String bootstrap) throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
            partitions().forEach(tp -> latest.put(tp, OffsetSpec.latest()));
            await("no transaction left open").atMost(Duration.ofSeconds(60)).until(() -> {
                var committed = admin.listOffsets(latest, new ListOffsetsOptions(IsolationLevel.READ_COMMITTED))
                        .all()
                        .get();
                var uncommitted = admin.listOffsets(latest, new ListOffsetsOptions(IsolationLevel.READ_UNCOMMITTED))
                        .all()
                        .get();
                return partitions().stream()
                        .allMatch(tp -> committed.get(tp).offset()
                                == uncommitted.get(tp).offset());
            });
        }
        Map<Integer, List<String>> values = new HashMap<>();
        try (KafkaConsumer<String, String> consumer = committedReader(bootstrap)) {
            consumer.assign(partitions());
            consumer.seekToBeginning(partitions());
            Map<TopicPartition, Long> ends = consumer.endOffsets(partitions());
            await().atMost(Duration.ofSeconds(60)).pollInSameThread().until(() -> {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(100))) {
                    values.computeIfAbsent(r.partition(), p -> new ArrayList<>())
                            .add(r.value());
                }
                return partitions().stream().allMatch(tp -> consumer.position(tp) >= ends.get(tp));
            });
        }
        return values;
    }
}
