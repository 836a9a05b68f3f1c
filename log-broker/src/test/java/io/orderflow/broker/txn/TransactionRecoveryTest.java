package io.orderflow.broker.txn;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.broker.log.LogConfig;
import io.orderflow.broker.log.LogFiles;
import io.orderflow.broker.log.PartitionLog;
import io.orderflow.broker.server.TestBroker;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
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
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A stop at every step of the two-phase commit, and what a restart makes of it. A transaction writes to two
 * partitions; the broker stops with it open; then, with the broker down, its files are brought to the state a crash
 * at each step leaves (the decision recorded in {@code __transaction_state} or not, its marker written to none, one
 * or both partitions) and the broker starts again. A decided transaction must end as decided on both partitions, an
 * undecided one aborted, and no partition may keep a transaction open.
 */
class TransactionRecoveryTest {
    private static final String TOPIC = "two-phase";
    private static final TopicPartition P0 = new TopicPartition(TOPIC, 0);
    private static final TopicPartition P1 = new TopicPartition(TOPIC, 1);

    @TempDir
    Path dataDir;

    @ParameterizedTest(name = "decided {0}, markers written {1}")
    @CsvSource({
        "none, 0",
        "commit, 0",
        "commit, 1",
        "commit, 2",
        "abort, 0",
        "abort, 1",
        "abort, 2",
    })
    void aRestartEndsTheTransactionAsDecidedOnEveryPartition(String decided, int markersWritten) throws Exception {
        TestBroker broker = TestBroker.start(dataDir);
        try {
            broker.createTopic(TOPIC, 2, Map.of());
            Properties p = new Properties();
            p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrap());
            p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "two-phase-tx");
            KafkaProducer<String, String> producer =
                    new KafkaProducer<>(p, new StringSerializer(), new StringSerializer());
            producer.initTransactions();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>(TOPIC, 0, "k", "on-0")).get();
            producer.send(new ProducerRecord<>(TOPIC, 1, "k", "on-1")).get();
            producer.close(Duration.ZERO);
        } finally {
            broker.close();
        }

        if (!decided.equals("none")) {
            crashAfter(decided.equals("commit"), markersWritten);
        }

        // What a crash leaves: no clean-shutdown marker anywhere (after a clean stop an open transaction stays open).
        try (var paths = java.nio.file.Files.walk(dataDir)) {
            for (Path p : paths.filter(p -> p.getFileName().toString().equals("clean-shutdown"))
                    .toList()) {
                java.nio.file.Files.delete(p);
            }
        }
        broker = TestBroker.start(dataDir);
        try {
            List<String> read = readCommitted(broker);
            if (decided.equals("commit")) {
                assertThat(read).containsExactlyInAnyOrder("on-0", "on-1");
            } else {
                assertThat(read).isEmpty();
            }
            try (Admin admin = broker.admin()) {
                var state = admin.describeTransactions(List.of("two-phase-tx"))
                        .description("two-phase-tx")
                        .get(10, TimeUnit.SECONDS)
                        .state();
                assertThat(state.toString()).isEqualTo(decided.equals("commit") ? "CompleteCommit" : "CompleteAbort");
                for (TopicPartition tp : List.of(P0, P1)) {
                    long stable = admin.listOffsets(
                                    Map.of(tp, OffsetSpec.latest()),
                                    new ListOffsetsOptions(IsolationLevel.READ_COMMITTED))
                            .partitionResult(tp)
                            .get(10, TimeUnit.SECONDS)
                            .offset();
                    long end = admin.listOffsets(Map.of(tp, OffsetSpec.latest()))
                            .partitionResult(tp)
                            .get(10, TimeUnit.SECONDS)
                            .offset();
                    assertThat(stable).as("no transaction left open on %s", tp).isEqualTo(end);
                }
            }
        } finally {
            broker.close();
        }
    }

    /**
     * Leaves the files as a crash would after the coordinator made its decision durable and wrote {@code markers} of
     * the two markers: the decision record in the transaction log, the markers in the first partitions.
     */
    private void crashAfter(boolean commit, int markers) {
        ExecutorService flusher = Executors.newSingleThreadExecutor();
        try {
            PartitionLog stateLog = TransactionLog.openLog(dataDir, Clock.systemUTC(), LogFiles.real(), flusher);
            TransactionLog txnLog = new TransactionLog(stateLog, Clock.systemUTC());
            TransactionMetadata open = txnLog.replay().get("two-phase-tx");
            assertThat(open.state()).isEqualTo(TransactionState.ONGOING);
            assertThat(open.partitions()).containsExactlyInAnyOrder(P0, P1);
            txnLog.write(open.with(
                            commit ? TransactionState.PREPARE_COMMIT : TransactionState.PREPARE_ABORT,
                            System.currentTimeMillis()))
                    .join();
            stateLog.close();
            List<TopicPartition> marked = new ArrayList<>(List.of(P0, P1)).subList(0, markers);
            for (TopicPartition tp : marked) {
                String name = tp.topic() + "-" + tp.partition();
                PartitionLog partition = PartitionLog.open(
                        name, dataDir.resolve(name), LogConfig.defaults(), Clock.systemUTC(), LogFiles.real(), flusher);
                long offset = partition.appendMarker(open.producerId(), open.producerEpoch(), commit, 0);
                partition.awaitDurable(offset + 1).join();
                partition.close();
            }
        } finally {
            flusher.shutdownNow();
        }
    }

    private static List<String> readCommitted(TestBroker broker) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrap());
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        try (KafkaConsumer<String, String> consumer =
                new KafkaConsumer<>(p, new StringDeserializer(), new StringDeserializer())) {
            consumer.assign(List.of(P0, P1));
            consumer.seekToBeginning(List.of(P0, P1));
            Map<TopicPartition, Long> ends = consumer.endOffsets(List.of(P0, P1));
            List<String> values = new ArrayList<>();
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(100))) {
                    values.add(r.value());
                }
                return consumer.position(P0) >= ends.get(P0) && consumer.position(P1) >= ends.get(P1);
            });
            return values;
        }
    }
}
