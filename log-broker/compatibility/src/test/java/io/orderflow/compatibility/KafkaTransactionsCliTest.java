package io.orderflow.compatibility;

import static io.orderflow.compatibility.KafkaCli.Tool.TRANSACTIONS;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code kafka-transactions.sh} (kafka-tools 4.4.0) against transactions that a stock kafka-clients producer runs on
 * the packaged broker: {@code list} and {@code describe} show an open transaction, its partitions and, once it
 * committed, its end; a {@code read_committed} console-style consumer then reads what it wrote.
 */
class KafkaTransactionsCliTest {
    private static final String TOPIC = "tx-cli";

    @TempDir
    static Path workDir;

    private static BrokerProcess broker;

    @BeforeAll
    static void startBroker() {
        broker = BrokerProcess.start(workDir);
        KafkaClients.createTopic(broker.bootstrapServers(), TOPIC, 2);
    }

    @AfterAll
    static void stopBroker() {
        if (broker != null) {
            broker.close();
        }
    }

    private static KafkaCli.Run transactions(String... args) {
        return KafkaCli.runAgainst(broker.bootstrapServers(), TRANSACTIONS, args)
                .succeeded();
    }

    @Test
    void describeProducersShowsAnOpenTransactionAndAbortEndsIt() throws Exception {
        Map<String, Object> config = Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                broker.bootstrapServers(),
                ProducerConfig.TRANSACTIONAL_ID_CONFIG,
                "cli-stuck");
        KafkaProducer<String, String> producer =
                new KafkaProducer<>(config, new StringSerializer(), new StringSerializer());
        try {
            producer.initTransactions();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>(TOPIC, 0, "k", "stuck")).get();

            KafkaCli.Run producers = transactions("describe-producers", "--topic", TOPIC, "--partition", "0");
            String startOffset = producers.stdoutLines().stream()
                    .map(line -> line.trim().split("\\s+"))
                    .filter(cells -> cells.length >= 6 && cells[0].matches("\\d+"))
                    .map(cells -> cells[cells.length - 1])
                    .filter(offset -> !offset.equals("None") && !offset.equals("-1"))
                    .findFirst()
                    .orElseThrow(() -> new AssertionError("no open transaction in:\n" + producers.transcript()));

            // Open for less than the longest transaction timeout, and known to its coordinator: not hanging.
            KafkaCli.Run hanging = transactions("find-hanging", "--topic", TOPIC);
            assertThat(hanging.stdout() + hanging.stderr())
                    .as(hanging::transcript)
                    .doesNotContain("Exception")
                    .doesNotContain(" " + startOffset + " ");

            transactions("abort", "--topic", TOPIC, "--partition", "0", "--start-offset", startOffset);
            KafkaCli.Run after = transactions("describe-producers", "--topic", TOPIC, "--partition", "0");
            assertThat(after.stdoutLines())
                    .as(after::transcript)
                    .noneSatisfy(line -> assertThat(line).contains(" " + startOffset));
        } finally {
            producer.close(java.time.Duration.ZERO);
        }
    }

    @Test
    void listAndDescribeShowAnOpenTransactionAndItsEnd() {
        Map<String, Object> config = Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                broker.bootstrapServers(),
                ProducerConfig.TRANSACTIONAL_ID_CONFIG,
                "cli-tx",
                ProducerConfig.TRANSACTION_TIMEOUT_CONFIG,
                50_000);
        try (KafkaProducer<String, String> producer =
                new KafkaProducer<>(config, new StringSerializer(), new StringSerializer())) {
            producer.initTransactions();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>(TOPIC, 1, "k", "in-a-transaction"));
            producer.flush();

            KafkaCli.Run list = transactions("list");
            assertThat(list.stdoutLines())
                    .as(list::transcript)
                    .anySatisfy(line -> assertThat(line.trim().split("\\s+")).contains("cli-tx", "Ongoing"));
            KafkaCli.Run describe = transactions("describe", "--transactional-id", "cli-tx");
            assertThat(describe.stdout()).as(describe::transcript).contains("cli-tx", "Ongoing", "50000", TOPIC + "-1");

            producer.commitTransaction();
        }
        KafkaCli.Run after = transactions("describe", "--transactional-id", "cli-tx");
        assertThat(after.stdout()).as(after::transcript).contains("CompleteCommit");

        Map<String, Object> consumerConfig = Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
                ConsumerConfig.GROUP_ID_CONFIG, "tx-cli-reader",
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        try (KafkaConsumer<String, String> consumer =
                new KafkaConsumer<>(consumerConfig, new StringDeserializer(), new StringDeserializer())) {
            consumer.subscribe(List.of(TOPIC));
            assertThat(KafkaClients.pollAtLeast(consumer, 1))
                    .extracting(ConsumerRecord::value)
                    .containsExactly("in-a-transaction");
        }
    }
}
