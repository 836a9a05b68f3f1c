package io.orderflow.broker.handler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.orderflow.broker.server.TestBroker;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicCollection;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.UnknownTopicIdException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.message.DeleteTopicsRequestData;
import org.apache.kafka.common.message.DeleteTopicsRequestData.DeleteTopicState;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.DeleteTopicsRequest;
import org.apache.kafka.common.requests.DeleteTopicsResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** DeleteTopics through the stock admin client, over TCP. */
class DeleteTopicsHandlerTest {
    @TempDir
    Path dataDir;

    private TestBroker broker;
    private Admin admin;

    @BeforeEach
    void start() {
        broker = TestBroker.start(dataDir);
        admin = broker.admin();
    }

    @AfterEach
    void stop() {
        admin.close();
        broker.close();
    }

    @Test
    void deletedTopicIsGoneAndIsRecreatedEmptyWithANewTopicId() throws Exception {
        broker.createTopic("orders", 2, Map.of());
        Uuid firstId = topicId("orders");
        try (KafkaProducer<String, String> producer = broker.producer()) {
            producer.send(new ProducerRecord<>("orders", 0, "k", "v")).get(30, TimeUnit.SECONDS);
        }

        admin.deleteTopics(List.of("orders")).all().get(30, TimeUnit.SECONDS);

        assertThat(admin.listTopics().names().get(30, TimeUnit.SECONDS)).doesNotContain("orders");
        assertThatThrownBy(() -> topicId("orders"))
                .isInstanceOf(ExecutionException.class)
                .hasCauseInstanceOf(UnknownTopicOrPartitionException.class);
        assertThat(dataDir.resolve("orders-0")).doesNotExist();

        broker.createTopic("orders", 1, Map.of());
        assertThat(topicId("orders")).isNotEqualTo(firstId);
        try (KafkaConsumer<String, String> consumer = broker.consumer()) {
            TopicPartition tp = new TopicPartition("orders", 0);
            assertThat(consumer.endOffsets(Set.of(tp))).containsEntry(tp, 0L);
        }
    }

    @Test
    void deletesByTopicIdAndTheDeletionSurvivesARestart() throws Exception {
        broker.createTopic("payments", 1, Map.of());
        broker.createTopic("kept", 1, Map.of());

        admin.deleteTopics(TopicCollection.ofTopicIds(List.of(topicId("payments"))))
                .all()
                .get(30, TimeUnit.SECONDS);
        admin.close();
        broker.restart();
        admin = broker.admin();

        assertThat(admin.listTopics().names().get(30, TimeUnit.SECONDS)).containsExactly("kept");
    }

    @Test
    void unknownNameOrIdIsRefusedWithItsOwnError() {
        assertThatThrownBy(
                        () -> admin.deleteTopics(List.of("no-such-topic")).all().get(30, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .hasCauseInstanceOf(UnknownTopicOrPartitionException.class);
        assertThatThrownBy(() -> admin.deleteTopics(TopicCollection.ofTopicIds(List.of(Uuid.randomUuid())))
                        .all()
                        .get(30, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .hasCauseInstanceOf(UnknownTopicIdException.class);
    }

    @Test
    void eachTopicGivesEitherANameOrAnIdAndOnlyOnce() throws Exception {
        broker.createTopic("orders", 1, Map.of());
        DeleteTopicsRequestData data = new DeleteTopicsRequestData()
                .setTopics(List.of(
                        new DeleteTopicState().setName("orders").setTopicId(topicId("orders")),
                        new DeleteTopicState().setName(null).setTopicId(Uuid.ZERO_UUID),
                        new DeleteTopicState().setName("twice"),
                        new DeleteTopicState().setName("twice")));
        DeleteTopicsHandler handler = new DeleteTopicsHandler(broker.broker().logs());

        DeleteTopicsResponse response = (DeleteTopicsResponse) handler.handle(
                new ClientInfo("test", "test", "127.0.0.1"), new DeleteTopicsRequest.Builder(data).build((short) 6));

        assertThat(response.data().responses())
                .extracting(r -> Errors.forCode(r.errorCode()))
                .containsExactly(
                        Errors.INVALID_REQUEST,
                        Errors.INVALID_REQUEST,
                        Errors.UNKNOWN_TOPIC_OR_PARTITION,
                        Errors.INVALID_REQUEST);
        assertThat(broker.broker().logs().topic("orders")).isPresent();
    }

    private Uuid topicId(String name) throws Exception {
        return admin.describeTopics(List.of(name))
                .allTopicNames()
                .get(30, TimeUnit.SECONDS)
                .get(name)
                .topicId();
    }
}
