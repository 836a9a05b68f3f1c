package io.orderflow.broker.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.clients.admin.TransactionState;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kafka transactions through the Java client, end to end on a real broker: what a {@code read_committed} consumer
 * sees of committed, aborted and open transactions, the last stable offset, fencing of a zombie producer, offsets
 * committed inside a transaction, the coordinator's timeout, a restart, and the admin client's view of it all.
 */
class TransactionsTest {
    private static final String TOPIC = "payments";
    private static final TopicPartition P0 = new TopicPartition(TOPIC, 0);
    private static final TopicPartition P1 = new TopicPartition(TOPIC, 1);

    @TempDir
    Path dataDir;

    private TestBroker broker;

    @BeforeEach
    void start() throws Exception {
        broker = TestBroker.start(dataDir);
        broker.createTopic(TOPIC, 2, Map.of());
    }

    @AfterEach
    void stop() {
        broker.close();
    }

    private KafkaProducer<String, String> transactional(String id, int timeoutMs) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrap());
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, id);
        p.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, Integer.toString(timeoutMs));
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "30000");
        return new KafkaProducer<>(p, new StringSerializer(), new StringSerializer());
    }

    private KafkaProducer<String, String> transactional(String id) {
        return transactional(id, 60_000);
    }

    private KafkaConsumer<String, String> consumer(IsolationLevel isolation, String group) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrap());
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation.toString());
        if (group != null) {
            p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        }
        return new KafkaConsumer<>(p, new StringDeserializer(), new StringDeserializer());
    }

    /** Every value readable from the start of both partitions at {@code isolation}, up to the current end. */
    private List<String> readAll(IsolationLevel isolation) {
        try (KafkaConsumer<String, String> consumer = consumer(isolation, null)) {
            consumer.assign(List.of(P0, P1));
            Map<TopicPartition, Long> ends = consumer.endOffsets(List.of(P0, P1));
            List<String> values = new ArrayList<>();
            await().atMost(Duration.ofSeconds(20)).until(() -> {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(100))) {
                    values.add(r.value());
                }
                return consumer.position(P0) >= ends.get(P0) && consumer.position(P1) >= ends.get(P1);
            });
            return values;
        }
    }

    private long endOffset(TopicPartition tp, IsolationLevel isolation) throws Exception {
        try (Admin admin = broker.admin()) {
            return admin.listOffsets(Map.of(tp, OffsetSpec.latest()), new ListOffsetsOptions(isolation))
                    .partitionResult(tp)
                    .get(10, TimeUnit.SECONDS)
                    .offset();
        }
    }

    @Test
    void aReadCommittedConsumerSeesCommittedTransactionsAndNeverAbortedOnes() {
        try (KafkaProducer<String, String> producer = transactional("payments-tx")) {
            producer.initTransactions();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>(TOPIC, 0, "k", "committed-1"));
            producer.send(new ProducerRecord<>(TOPIC, 1, "k", "committed-2"));
            producer.commitTransaction();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>(TOPIC, 0, "k", "aborted-1"));
            producer.send(new ProducerRecord<>(TOPIC, 1, "k", "aborted-2"));
            producer.flush();
            producer.abortTransaction();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>(TOPIC, 0, "k", "committed-3"));
            producer.commitTransaction();
        }
        assertThat(readAll(IsolationLevel.READ_COMMITTED))
                .containsExactlyInAnyOrder("committed-1", "committed-2", "committed-3");
        assertThat(readAll(IsolationLevel.READ_UNCOMMITTED))
                .containsExactlyInAnyOrder("committed-1", "committed-2", "aborted-1", "aborted-2", "committed-3");
    }

    @Test
    void anOpenTransactionHoldsTheLastStableOffsetBackUntilItCommits() throws Exception {
        try (KafkaProducer<String, String> plain = broker.producer()) {
            plain.send(new ProducerRecord<>(TOPIC, 0, "k", "before")).get();
        }
        try (KafkaProducer<String, String> producer = transactional("open-tx")) {
            producer.initTransactions();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>(TOPIC, 0, "k", "pending")).get();
            producer.send(new ProducerRecord<>(TOPIC, 1, "k", "pending-1")).get();
            assertThat(endOffset(P0, IsolationLevel.READ_UNCOMMITTED)).isEqualTo(2);
            assertThat(endOffset(P0, IsolationLevel.READ_COMMITTED)).isEqualTo(1);
            assertThat(readAll(IsolationLevel.READ_COMMITTED)).containsExactly("before");
            try (Admin admin = broker.admin()) {
                for (IsolationLevel isolation : IsolationLevel.values()) {
                    long byTime = admin.listOffsets(
                                    Map.of(P1, OffsetSpec.forTimestamp(0)), new ListOffsetsOptions(isolation))
                            .partitionResult(P1)
                            .get(10, TimeUnit.SECONDS)
                            .offset();
                    assertThat(byTime)
                            .as("%s by timestamp on a partition holding only the open transaction", isolation)
                            .isEqualTo(isolation == IsolationLevel.READ_COMMITTED ? -1 : 0);
                }
            }
            producer.commitTransaction();
        }
        assertThat(endOffset(P0, IsolationLevel.READ_COMMITTED)).isEqualTo(3); // the data and its marker
        assertThat(readAll(IsolationLevel.READ_COMMITTED)).containsExactlyInAnyOrder("before", "pending", "pending-1");
    }

    @Test
    void aNewInstanceOfATransactionalIdFencesTheOldOneAndAbortsItsTransaction() throws Exception {
        KafkaProducer<String, String> zombie = transactional("fenced-tx");
        try {
            zombie.initTransactions();
            zombie.beginTransaction();
            zombie.send(new ProducerRecord<>(TOPIC, 0, "k", "zombie")).get();
            try (KafkaProducer<String, String> successor = transactional("fenced-tx")) {
                successor.initTransactions();
                successor.beginTransaction();
                successor.send(new ProducerRecord<>(TOPIC, 0, "k", "successor"));
                successor.commitTransaction();
            }
            assertThatThrownBy(() -> {
                        zombie.send(new ProducerRecord<>(TOPIC, 1, "k", "late")).get();
                        zombie.commitTransaction();
                    })
                    .isInstanceOf(Exception.class);
        } finally {
            zombie.close(Duration.ZERO);
        }
        assertThat(readAll(IsolationLevel.READ_COMMITTED)).containsExactly("successor");
    }

    @Test
    void offsetsSentToATransactionCountOnlyWhenItCommits() throws Exception {
        try (KafkaProducer<String, String> producer = transactional("offsets-tx");
                KafkaConsumer<String, String> consumer = consumer(IsolationLevel.READ_COMMITTED, "copier")) {
            producer.initTransactions();
            producer.beginTransaction();
            producer.sendOffsetsToTransaction(Map.of(P0, new OffsetAndMetadata(5)), consumer.groupMetadata());
            producer.abortTransaction();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>(TOPIC, 1, "k", "copied"));
            producer.sendOffsetsToTransaction(Map.of(P0, new OffsetAndMetadata(7)), consumer.groupMetadata());
            producer.commitTransaction();
        }
        try (Admin admin = broker.admin()) {
            Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets("copier")
                    .partitionsToOffsetAndMetadata()
                    .get(10, TimeUnit.SECONDS);
            assertThat(committed.get(P0).offset()).isEqualTo(7);
        }
        broker.restart();
        try (Admin admin = broker.admin()) {
            assertThat(admin.listConsumerGroupOffsets("copier")
                            .partitionsToOffsetAndMetadata()
                            .get(10, TimeUnit.SECONDS)
                            .get(P0)
                            .offset())
                    .as("the offsets after a restart, replayed from __consumer_offsets")
                    .isEqualTo(7);
        }
    }

    @Test
    void aPlainCommitAfterATransactionalOneWinsWhenTheTransactionCommits() throws Exception {
        try (KafkaProducer<String, String> producer = transactional("late-offsets-tx");
                Admin admin = broker.admin()) {
            producer.initTransactions();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>(TOPIC, 1, "k", "v"));
            producer.sendOffsetsToTransaction(
                    Map.of(P0, new OffsetAndMetadata(5)),
                    new org.apache.kafka.clients.consumer.ConsumerGroupMetadata("mixed"));
            admin.alterConsumerGroupOffsets("mixed", Map.of(P0, new OffsetAndMetadata(9)))
                    .all()
                    .get(10, TimeUnit.SECONDS);
            producer.commitTransaction();
            assertThat(admin.listConsumerGroupOffsets("mixed")
                            .partitionsToOffsetAndMetadata()
                            .get(10, TimeUnit.SECONDS)
                            .get(P0)
                            .offset())
                    .as("the commit written after the transaction's offsets stays")
                    .isEqualTo(9);
        }
        broker.restart();
        try (Admin admin = broker.admin()) {
            assertThat(admin.listConsumerGroupOffsets("mixed")
                            .partitionsToOffsetAndMetadata()
                            .get(10, TimeUnit.SECONDS)
                            .get(P0)
                            .offset())
                    .as("and the replay after a restart says the same")
                    .isEqualTo(9);
        }
    }

    @Test
    void aTransactionOpenPastItsTimeoutIsAbortedAndItsProducerFenced() throws Exception {
        try (KafkaProducer<String, String> producer = transactional("slow-tx", 1_000)) {
            producer.initTransactions();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>(TOPIC, 0, "k", "too-slow")).get();
            try (Admin admin = broker.admin()) {
                await().atMost(Duration.ofSeconds(20))
                        .until(() -> admin.describeTransactions(List.of("slow-tx"))
                                        .description("slow-tx")
                                        .get()
                                        .state()
                                == TransactionState.COMPLETE_ABORT);
            }
            assertThatThrownBy(producer::commitTransaction).isInstanceOf(KafkaException.class);
        }
        assertThat(readAll(IsolationLevel.READ_COMMITTED)).isEmpty();
        assertThat(endOffset(P0, IsolationLevel.READ_COMMITTED)).isEqualTo(2);
    }

    /** Removes every clean-shutdown marker under the data directory: the next start recovers as after a crash. */
    private void forgetTheCleanStop() throws Exception {
        try (var paths = java.nio.file.Files.walk(dataDir)) {
            for (Path p : paths.filter(p -> p.getFileName().toString().equals("clean-shutdown"))
                    .toList()) {
                java.nio.file.Files.delete(p);
            }
        }
    }

    @Test
    void aCrashAbortsTheTransactionsFoundOpenFencingTheirProducers() throws Exception {
        KafkaProducer<String, String> producer = transactional("restart-tx");
        try {
            producer.initTransactions();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>(TOPIC, 0, "k", "kept"));
            producer.commitTransaction();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>(TOPIC, 0, "k", "open-at-crash")).get();
        } finally {
            producer.close(Duration.ZERO);
        }
        broker.close();
        forgetTheCleanStop();
        broker = TestBroker.start(dataDir);
        assertThat(readAll(IsolationLevel.READ_COMMITTED)).containsExactly("kept");
        try (Admin admin = broker.admin()) {
            TransactionDescription d = admin.describeTransactions(List.of("restart-tx"))
                    .description("restart-tx")
                    .get(10, TimeUnit.SECONDS);
            assertThat(d.state()).isEqualTo(TransactionState.COMPLETE_ABORT);
            assertThat(d.producerEpoch())
                    .as("bumped, fencing the producer that had it open")
                    .isEqualTo(1);
        }
        try (KafkaProducer<String, String> again = transactional("restart-tx")) {
            again.initTransactions();
            again.beginTransaction();
            again.send(new ProducerRecord<>(TOPIC, 1, "k", "after-restart"));
            again.commitTransaction();
        }
        assertThat(readAll(IsolationLevel.READ_COMMITTED)).containsExactlyInAnyOrder("kept", "after-restart");
    }

    @Test
    void aCleanRestartKeepsAnOpenTransactionForItsProducerToCommit() throws Exception {
        int port;
        try (java.net.ServerSocket free = new java.net.ServerSocket(0)) {
            port = free.getLocalPort();
        }
        broker.close();
        broker = TestBroker.start(dataDir, Map.of("port", Integer.toString(port)));
        try (KafkaProducer<String, String> producer = transactional("rolling-tx")) {
            producer.initTransactions();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>(TOPIC, 0, "k", "before-restart")).get();
            broker.restart(); // a clean stop and start, on the same port
            producer.send(new ProducerRecord<>(TOPIC, 1, "k", "after-restart")).get();
            producer.commitTransaction();
        }
        assertThat(readAll(IsolationLevel.READ_COMMITTED)).containsExactlyInAnyOrder("before-restart", "after-restart");
    }

    @Test
    void aRetriedEpochBumpGetsTheSameAnswerAndAnOlderEpochIsFenced() throws Exception {
        try (io.orderflow.frames.WireClient client =
                io.orderflow.frames.WireClient.connect(broker.broker().port())) {
            var first = initProducerId(client, 1, -1, (short) -1);
            var bumped = initProducerId(client, 2, first.producerId(), first.producerEpoch());
            assertThat(bumped.producerId()).isEqualTo(first.producerId());
            assertThat(bumped.producerEpoch()).isEqualTo((short) (first.producerEpoch() + 1));
            var retried = initProducerId(client, 3, first.producerId(), first.producerEpoch());
            assertThat(org.apache.kafka.common.protocol.Errors.forCode(retried.errorCode()))
                    .as("the retry of a bump whose answer was lost")
                    .isEqualTo(org.apache.kafka.common.protocol.Errors.NONE);
            assertThat(retried.producerEpoch()).isEqualTo(bumped.producerEpoch());
            var again = initProducerId(client, 4, bumped.producerId(), bumped.producerEpoch());
            assertThat(again.producerEpoch()).isEqualTo((short) (bumped.producerEpoch() + 1));
            var stale = initProducerId(client, 5, first.producerId(), first.producerEpoch());
            assertThat(org.apache.kafka.common.protocol.Errors.forCode(stale.errorCode()))
                    .isEqualTo(org.apache.kafka.common.protocol.Errors.PRODUCER_FENCED);
        }
    }

    private static org.apache.kafka.common.message.InitProducerIdResponseData initProducerId(
            io.orderflow.frames.WireClient client, int correlationId, long producerId, short epoch) throws Exception {
        var data = new org.apache.kafka.common.message.InitProducerIdRequestData()
                .setTransactionalId("bumped-tx")
                .setTransactionTimeoutMs(60_000)
                .setProducerId(producerId)
                .setProducerEpoch(epoch);
        var header = client.send(
                VersionedExchanges.request(org.apache.kafka.common.protocol.ApiKeys.INIT_PRODUCER_ID, data, (short) 5),
                correlationId);
        return ((org.apache.kafka.common.requests.InitProducerIdResponse) client.receive(header)).data();
    }

    @Test
    void theAdminClientListsAndDescribesTransactions() throws Exception {
        try (KafkaProducer<String, String> producer = transactional("listed-tx", 45_000)) {
            producer.initTransactions();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>(TOPIC, 1, "k", "v")).get();
            try (Admin admin = broker.admin()) {
                List<TransactionListing> listed =
                        new ArrayList<>(admin.listTransactions().all().get(10, TimeUnit.SECONDS));
                assertThat(listed)
                        .extracting(TransactionListing::transactionalId, TransactionListing::state)
                        .containsExactly(org.assertj.core.groups.Tuple.tuple("listed-tx", TransactionState.ONGOING));
                TransactionDescription d = admin.describeTransactions(List.of("listed-tx"))
                        .description("listed-tx")
                        .get(10, TimeUnit.SECONDS);
                assertThat(d.transactionTimeoutMs()).isEqualTo(45_000);
                assertThat(d.topicPartitions()).containsExactly(P1);
                assertThat(d.transactionStartTimeMs().getAsLong()).isPositive();
            }
            producer.commitTransaction();
        }
    }
}
