package io.orderflow.consumer;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.consumer.DeadLetteredOrigin.State;
import io.orderflow.kafka.KafkaClientSettings;
import io.orderflow.testing.InProcessBroker;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Re-drive on our broker, with the service's side played by {@link FailureRouting} alone (a failed attempt is the
 * record it routes): dead letters keep their origin through re-drives, each origin is copied once, and one that fails
 * again after a re-drive is copied again only when asked.
 */
class DeadLetterRedriveTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final RetryTopics TOPICS =
            RetryTopics.of("redrive-group", List.of(Duration.ofMillis(200), Duration.ofMillis(400)));

    private final FailureRouting routing = new FailureRouting(TOPICS, Clock.systemUTC());
    private InProcessBroker broker;
    private KafkaProducer<String, byte[]> producer;

    @BeforeEach
    void startBroker(@TempDir Path directory) throws Exception {
        broker = InProcessBroker.start(directory);
        FailureTopicsOnBroker.create(broker.bootstrapServers(), TOPICS, new NewTopic("orders", 2, (short) 1));
        producer = FailureRouting.newProducer(KafkaClientSettings.plaintext(broker.bootstrapServers()), "test");
    }

    @AfterEach
    void stopBroker() {
        producer.close();
        broker.close();
    }

    @Test
    void aReDrivenDeadLetterThatFailsAgainStillNamesItsOriginCountsItsReDriveAndGivesItsReasonOnOneLine()
            throws Exception {
        ConsumerRecord<String, byte[]> original = produceOriginal("order-7", 1);
        failForGood(original);

        RedriveReport first = redrive(false);
        ConsumerRecord<String, byte[]> copy = readAll(TOPICS.retryTopic(0)).getLast();
        failForGood(copy);
        ConsumerRecord<String, byte[]> again = readAll(TOPICS.deadLetterTopic()).getLast();

        assertThat(first.copied()).isEqualTo(1);
        assertThat(first.origins())
                .singleElement()
                .satisfies(o -> assertThat(o.state()).isEqualTo(State.NOT_REDRIVEN));
        assertThat(copy.key()).isEqualTo("order-7");
        assertThat(copy.value()).isEqualTo(original.value());
        assertThat(header(copy, FailureHeaders.RETRY_TOPIC)).isEqualTo("orders");
        assertThat(header(copy, FailureHeaders.RETRY_PARTITION)).isEqualTo("1");
        assertThat(header(copy, FailureHeaders.RETRY_OFFSET)).isEqualTo(Long.toString(original.offset()));
        assertThat(header(copy, FailureHeaders.RETRY_COUNT)).isNull();
        assertThat(header(copy, FailureHeaders.DEAD_LETTER_REASON)).isNull();
        assertThat(header(copy, FailureHeaders.REDRIVE_COUNT)).isEqualTo("1");
        assertThat(header(again, FailureHeaders.DEAD_LETTER_TOPIC)).isEqualTo("orders");
        assertThat(header(again, FailureHeaders.DEAD_LETTER_PARTITION)).isEqualTo("1");
        assertThat(header(again, FailureHeaders.DEAD_LETTER_OFFSET)).isEqualTo(Long.toString(original.offset()));
        assertThat(header(again, FailureHeaders.REDRIVE_COUNT)).isEqualTo("1");
        assertThat(header(again, FailureHeaders.DEAD_LETTER_REASON))
                .isEqualTo("value too long for type character varying(64) Detail: row 3 Where: COPY");
    }

    @Test
    void aRetriedReDriveKeepsItsOriginThroughEveryRetryTopicToTheDeadLetterTopic() throws Exception {
        ConsumerRecord<String, byte[]> original = produceOriginal("order-8", 0);
        failForGood(original);
        redrive(false);

        ConsumerRecord<String, byte[]> attempt = readAll(TOPICS.retryTopic(0)).getLast();
        for (int retry = 0; retry <= TOPICS.maxRetries(); retry++) {
            send(routing.route(attempt, new IllegalStateException("still down"), true));
            attempt = retry < TOPICS.maxRetries()
                    ? readAll(TOPICS.retryTopic(retry)).getLast()
                    : readAll(TOPICS.deadLetterTopic()).getLast();
        }

        assertThat(attempt.topic()).isEqualTo(TOPICS.deadLetterTopic());
        assertThat(header(attempt, FailureHeaders.DEAD_LETTER_TOPIC)).isEqualTo("orders");
        assertThat(header(attempt, FailureHeaders.DEAD_LETTER_OFFSET)).isEqualTo(Long.toString(original.offset()));
        assertThat(header(attempt, FailureHeaders.REDRIVE_COUNT)).isEqualTo("1");
        assertThat(DeadLetterRedrive.list(KafkaClientSettings.plaintext(broker.bootstrapServers()), TOPICS, TIMEOUT)
                        .origins())
                .singleElement()
                .satisfies(o -> {
                    assertThat(o.origin()).isEqualTo(new RecordOrigin("orders", 0, original.offset()));
                    assertThat(o.copies()).isEqualTo(2);
                    assertThat(o.state()).isEqualTo(State.FAILED_AFTER_REDRIVE);
                });
    }

    @Test
    void aSecondReDriveCopiesNothingAndAnOriginThatFailedAgainIsCopiedOnlyWhenAsked() throws Exception {
        failForGood(produceOriginal("order-9", 0));
        redrive(false);
        failForGood(readAll(TOPICS.retryTopic(0)).getLast());

        RedriveReport unasked = redrive(false);
        RedriveReport asked = redrive(true);
        RedriveReport after = redrive(false);

        assertThat(unasked.copied()).isZero();
        assertThat(unasked.records()).isEqualTo(2);
        assertThat(unasked.count(State.FAILED_AFTER_REDRIVE)).isEqualTo(1);
        assertThat(asked.copied()).isEqualTo(1);
        assertThat(after.copied()).isZero();
        assertThat(after.count(State.REDRIVEN)).isEqualTo(1);
        List<ConsumerRecord<String, byte[]>> copies = readAll(TOPICS.retryTopic(0));
        assertThat(copies).hasSize(2);
        assertThat(header(copies.getLast(), FailureHeaders.REDRIVE_COUNT)).isEqualTo("2");
    }

    @Test
    void anOriginDeadLetteredTwiceByAReplayIsOneDeadLetterWithTwoCopiesAndIsCopiedOnce() throws Exception {
        ConsumerRecord<String, byte[]> original = produceOriginal("order-10", 1);
        failForGood(original);
        failForGood(original); // the same record read again after its group's offsets were reset
        failForGood(produceOriginal("order-11", 1));

        RedriveReport report = redrive(false);

        assertThat(report.records()).isEqualTo(3);
        assertThat(report.origins()).hasSize(2);
        assertThat(report.origins().getFirst().copies()).isEqualTo(2);
        assertThat(report.copied()).isEqualTo(2);
        assertThat(readAll(TOPICS.retryTopic(0)))
                .extracting(ConsumerRecord::key)
                .containsExactly("order-10", "order-11");
    }

    @Test
    void aRecordWrittenToTheDeadLetterTopicWithoutHeadersIsItsOwnOrigin() throws Exception {
        RecordMetadata written = send(
                new ProducerRecord<>(TOPICS.deadLetterTopic(), "order-12", "by hand".getBytes(StandardCharsets.UTF_8)));

        RedriveReport report = redrive(false);

        assertThat(report.origins()).singleElement().satisfies(o -> {
            assertThat(o.origin()).isEqualTo(new RecordOrigin(TOPICS.deadLetterTopic(), 0, written.offset()));
            assertThat(o.latest().reason()).isEqualTo("(no reason header)");
        });
        assertThat(report.copied()).isEqualTo(1);
    }

    @Test
    void anOriginReadsBackFromItsText() {
        RecordOrigin origin = new RecordOrigin("dead-letter-topic-inventory-service", 3, 1207);

        assertThat(origin.toString()).isEqualTo("dead-letter-topic-inventory-service-3@1207");
        assertThat(RecordOrigin.parse(origin.toString())).isEqualTo(origin);
    }

    private ConsumerRecord<String, byte[]> produceOriginal(String orderId, int partition) throws Exception {
        byte[] value = ("not json { " + orderId).getBytes(StandardCharsets.UTF_8);
        RecordMetadata written = send(new ProducerRecord<>("orders", partition, orderId, value));
        return new ConsumerRecord<>("orders", partition, written.offset(), orderId, value);
    }

    /** A failure that is permanent, whose message spans lines as PostgreSQL's do. */
    private void failForGood(ConsumerRecord<String, byte[]> record) throws Exception {
        send(routing.route(
                record,
                new IllegalStateException(
                        "value too long for type character varying(64)\n  Detail: row 3\r\nWhere: COPY"),
                false));
    }

    private RedriveReport redrive(boolean again) throws Exception {
        return DeadLetterRedrive.redrive(
                KafkaClientSettings.plaintext(broker.bootstrapServers()), TOPICS, again, TIMEOUT);
    }

    private RecordMetadata send(ProducerRecord<String, byte[]> record) throws Exception {
        return producer.send(record).get(30, TimeUnit.SECONDS);
    }

    private List<ConsumerRecord<String, byte[]>> readAll(String topic) {
        try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(
                Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()),
                new StringDeserializer(),
                new ByteArrayDeserializer())) {
            TopicPartition partition = new TopicPartition(topic, 0);
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            long end = consumer.endOffsets(List.of(partition)).get(partition);
            List<ConsumerRecord<String, byte[]>> read = new ArrayList<>();
            while (consumer.position(partition) < end) {
                consumer.poll(Duration.ofMillis(200)).forEach(read::add);
            }
            return read;
        }
    }

    private static String header(ConsumerRecord<?, ?> record, String name) {
        var header = record.headers().lastHeader(name);
        return header == null ? null : new String(header.value(), StandardCharsets.UTF_8);
    }
}
