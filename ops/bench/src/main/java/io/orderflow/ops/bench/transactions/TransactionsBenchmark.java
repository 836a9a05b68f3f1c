package io.orderflow.ops.bench.transactions;

import io.orderflow.ops.bench.BenchCommandLine;
import io.orderflow.ops.bench.Directories;
import io.orderflow.ops.bench.orders.Machine;
import io.orderflow.ops.load.WholeNumber;
import io.orderflow.process.ApacheKafkaLauncher;
import io.orderflow.process.BrokerLauncher;
import io.orderflow.process.OrderflowBrokerLauncher;
import io.orderflow.process.RunningBroker;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code ops/bin/bench/transactions}: transactional produce and {@code read_committed} consume on our broker and on
 * Apache Kafka 4.4.0, measured in the same run with the same client (kafka-clients 4.4.0, in this JVM). For each
 * transaction size (records per transaction), one transactional producer runs back-to-back transactions for the
 * measured time, each {@code beginTransaction}, the sends, {@code commitTransaction}; the figures are transactions
 * and records per second and the commit latency (the {@code commitTransaction} call: flushing the sends, EndTxn and,
 * on our broker, the markers made durable) at p50 and p99. A {@code read_committed} consumer then reads the topic
 * from its start; its figure is records per second. Each broker at its defaults (ours fsyncs before acknowledging,
 * Kafka leaves it to the page cache); rounds alternate which broker goes first; the table gives medians over rounds
 * and our figure over Kafka's.
 */
@Command(
        name = "ops/bin/bench/transactions",
        description = "Transactional produce and read_committed consume: our broker against Apache Kafka 4.4.0.")
public final class TransactionsBenchmark implements Callable<Integer> {
    @Option(
            names = "--seconds",
            paramLabel = "S",
            defaultValue = "10",
            converter = WholeNumber.Positive.class,
            description = "measured seconds of each transaction size on each broker (default: ${DEFAULT-VALUE})")
    private int seconds;

    @Option(
            names = "--rounds",
            paramLabel = "N",
            defaultValue = "3",
            converter = WholeNumber.Positive.class,
            description = "rounds; each starts both brokers afresh (default: ${DEFAULT-VALUE})")
    private int rounds;

    @Option(
            names = "--record-bytes",
            paramLabel = "B",
            defaultValue = "100",
            converter = WholeNumber.Positive.class,
            description = "bytes of each record's value (default: ${DEFAULT-VALUE})")
    private int recordBytes;

    @Option(
            names = "--sizes",
            paramLabel = "N",
            split = ",",
            defaultValue = "1,10,100",
            converter = WholeNumber.Positive.class,
            description = "records per transaction (default: ${DEFAULT-VALUE})")
    private List<Integer> sizes;

    @Option(
            names = "--work-dir",
            paramLabel = "DIR",
            defaultValue = "ops/bench/target/transactions",
            description = "the brokers' data and logs (default: ${DEFAULT-VALUE})")
    private Path workDir;

    @Option(
            names = "--our-broker",
            paramLabel = "DIR",
            defaultValue = "log-broker/target",
            description = "log-broker.jar and lib/ (default: ${DEFAULT-VALUE})")
    private Path ourBroker;

    @Option(
            names = "--kafka-lib",
            paramLabel = "DIR",
            defaultValue = "log-broker/kafka-anchor/target/kafka-broker",
            description = "Apache Kafka's jars (default: ${DEFAULT-VALUE})")
    private Path kafkaLib;

    @Option(
            names = {"-h", "--help"},
            usageHelp = true,
            description = "print this text")
    private boolean help;

    private TransactionsBenchmark() {}

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    static CommandLine commandLine() {
        return BenchCommandLine.of(new TransactionsBenchmark());
    }

    /** One measurement: one broker, one transaction size, one round. */
    record Figures(
            double transactionsPerSecond,
            double recordsPerSecond,
            double commitP50Ms,
            double commitP99Ms,
            double readCommittedRecordsPerSecond) {}

    @Override
    public Integer call() throws Exception {
        Path work = workDir.toAbsolutePath();
        Files.createDirectories(work);
        System.out.printf(Locale.ROOT, "%s, %s%n", Instant.now(), Machine.describe());
        System.out.printf(
                Locale.ROOT,
                "transactions of %s records of %d bytes, %d s each, %d rounds%n",
                sizes,
                recordBytes,
                seconds,
                rounds);
        Map<String, BrokerLauncher> brokers = new LinkedHashMap<>();
        brokers.put("ours", new OrderflowBrokerLauncher(ourBroker.toAbsolutePath(), List.of()));
        brokers.put("kafka", new ApacheKafkaLauncher(kafkaLib.toAbsolutePath()));
        Map<String, Map<Integer, List<Figures>>> all = new LinkedHashMap<>();
        brokers.keySet().forEach(b -> all.put(b, new LinkedHashMap<>()));
        for (int round = 1; round <= rounds; round++) {
            List<String> order = new ArrayList<>(brokers.keySet());
            if (round % 2 == 0) {
                order = order.reversed();
            }
            for (String name : order) {
                Path runDir = work.resolve("data").resolve(name + "-" + round);
                Directories.deleteRecursively(runDir);
                try (RunningBroker broker =
                        brokers.get(name).start(runDir, work.resolve(name + "-" + round + ".log"))) {
                    for (int size : sizes) {
                        Figures f = measure(broker.bootstrapServers(), size, "tx-" + size);
                        all.get(name)
                                .computeIfAbsent(size, s -> new ArrayList<>())
                                .add(f);
                        System.out.printf(
                                Locale.ROOT,
                                "round %d %-5s %3d/tx: %8.0f tx/s %9.0f records/s, commit p50 %6.2f ms p99 %6.2f ms;"
                                        + " read_committed %9.0f records/s%n",
                                round,
                                name,
                                size,
                                f.transactionsPerSecond(),
                                f.recordsPerSecond(),
                                f.commitP50Ms(),
                                f.commitP99Ms(),
                                f.readCommittedRecordsPerSecond());
                    }
                } finally {
                    Directories.deleteRecursively(runDir);
                }
            }
        }
        System.out.println();
        System.out.println("| records/tx | broker | tx/s | records/s | commit p50 ms | commit p99 ms | read_committed"
                + " records/s |");
        System.out.println("|---|---|---|---|---|---|---|");
        for (int size : sizes) {
            Figures ours = median(all.get("ours").get(size));
            Figures kafka = median(all.get("kafka").get(size));
            row(size, "ours", ours);
            row(size, "Apache Kafka", kafka);
            System.out.printf(
                    Locale.ROOT,
                    "| %d | ours / Kafka | %.2fx | %.2fx | %.2fx | %.2fx | %.2fx |%n",
                    size,
                    ours.transactionsPerSecond() / kafka.transactionsPerSecond(),
                    ours.recordsPerSecond() / kafka.recordsPerSecond(),
                    ours.commitP50Ms() / kafka.commitP50Ms(),
                    ours.commitP99Ms() / kafka.commitP99Ms(),
                    ours.readCommittedRecordsPerSecond() / kafka.readCommittedRecordsPerSecond());
        }
        return 0;
    }

    private static void row(int size, String broker, Figures f) {
        System.out.printf(
                Locale.ROOT,
                "| %d | %s | %.0f | %.0f | %.2f | %.2f | %.0f |%n",
                size,
                broker,
                f.transactionsPerSecond(),
                f.recordsPerSecond(),
                f.commitP50Ms(),
                f.commitP99Ms(),
                f.readCommittedRecordsPerSecond());
    }

    private Figures measure(String bootstrap, int size, String topic) throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get(60, TimeUnit.SECONDS);
        }
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "bench-" + topic);
        p.put(ProducerConfig.LINGER_MS_CONFIG, "0");
        byte[] value = new byte[recordBytes];
        long records = 0;
        List<Long> commitNanos = new ArrayList<>();
        try (KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
            producer.initTransactions();
            // Warm-up: a second of transactions, not measured.
            runTransactions(producer, topic, size, value, Duration.ofSeconds(1), new ArrayList<>());
            long start = System.nanoTime();
            records = runTransactions(producer, topic, size, value, Duration.ofSeconds(seconds), commitNanos);
            double elapsed = (System.nanoTime() - start) / 1e9;
            long[] sorted =
                    commitNanos.stream().mapToLong(Long::longValue).sorted().toArray();
            double readRate = readCommitted(bootstrap, topic);
            return new Figures(
                    commitNanos.size() / elapsed,
                    records / elapsed,
                    sorted[sorted.length / 2] / 1e6,
                    sorted[(int) Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)] / 1e6,
                    readRate);
        }
    }

    private static long runTransactions(
            KafkaProducer<byte[], byte[]> producer,
            String topic,
            int size,
            byte[] value,
            Duration duration,
            List<Long> commitNanos) {
        long end = System.nanoTime() + duration.toNanos();
        long records = 0;
        while (System.nanoTime() < end) {
            producer.beginTransaction();
            for (int i = 0; i < size; i++) {
                producer.send(new ProducerRecord<>(topic, 0, null, value));
            }
            long t0 = System.nanoTime();
            producer.commitTransaction();
            commitNanos.add(System.nanoTime() - t0);
            records += size;
        }
        return records;
    }

    /** Records per second a read_committed consumer reads the whole topic at. */
    private static double readCommitted(String bootstrap, String topic) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "5000");
        TopicPartition tp = new TopicPartition(topic, 0);
        try (KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            long endOffset = consumer.endOffsets(List.of(tp)).get(tp);
            long read = 0;
            long start = System.nanoTime();
            while (consumer.position(tp) < endOffset) {
                ConsumerRecords<byte[], byte[]> batch = consumer.poll(Duration.ofMillis(500));
                read += batch.count();
            }
            return read / ((System.nanoTime() - start) / 1e9);
        }
    }

    private static Figures median(List<Figures> runs) {
        return new Figures(
                median(runs.stream().mapToDouble(Figures::transactionsPerSecond).toArray()),
                median(runs.stream().mapToDouble(Figures::recordsPerSecond).toArray()),
                median(runs.stream().mapToDouble(Figures::commitP50Ms).toArray()),
                median(runs.stream().mapToDouble(Figures::commitP99Ms).toArray()),
                median(runs.stream()
                        .mapToDouble(Figures::readCommittedRecordsPerSecond)
                        .toArray()));
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted.length % 2 == 1
                ? sorted[sorted.length / 2]
                : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2;
    }
}
