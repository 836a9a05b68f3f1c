package io.orderflow.broker.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.frames.WireClient;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.FetchResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Fetch sessions (KIP-227) on the wire: a full fetch at epoch 0 opens a session, incremental fetches name only what
 * changed and are answered with only the partitions that have news, forgotten partitions are no longer read, and a
 * wrong epoch, an unknown or a closed session get the protocol's error codes.
 */
class FetchSessionsTest {
    private static final String TOPIC = "sessions";
    private static final short V12 = 12;
    private static final short V17 = 17;

    @TempDir
    Path dataDir;

    private TestBroker broker;
    private WireClient client;
    private int correlationId;

    @BeforeEach
    void start() throws Exception {
        broker = TestBroker.start(dataDir);
        broker.createTopic(TOPIC, 3, Map.of());
        client = WireClient.connect(broker.broker().port());
    }

    @AfterEach
    void stop() throws Exception {
        client.close();
        broker.close();
    }

    private FetchResponseData fetch(FetchRequestData data, short version) throws Exception {
        RequestHeader header = client.send(VersionedExchanges.request(ApiKeys.FETCH, data, version), ++correlationId);
        return ((FetchResponse) client.receive(header)).data();
    }

    private static FetchRequestData session(int id, int epoch) {
        return new FetchRequestData()
                .setReplicaId(-1)
                .setMaxWaitMs(0)
                .setMinBytes(1)
                .setMaxBytes(1 << 20)
                .setSessionId(id)
                .setSessionEpoch(epoch);
    }

    private static FetchRequestData.FetchTopic topic(List<Integer> partitions, long offset) {
        return new FetchRequestData.FetchTopic()
                .setTopic(TOPIC)
                .setPartitions(partitions.stream()
                        .map(p -> new FetchRequestData.FetchPartition()
                                .setPartition(p)
                                .setFetchOffset(offset)
                                .setPartitionMaxBytes(1 << 20))
                        .toList());
    }

    private static Set<Integer> partitionsIn(FetchResponseData response) {
        return response.responses().stream()
                .flatMap(t -> t.partitions().stream())
                .map(FetchResponseData.PartitionData::partitionIndex)
                .collect(Collectors.toSet());
    }

    private void produce(int partition, String value) throws Exception {
        try (KafkaProducer<String, String> producer = broker.producer()) {
            producer.send(new ProducerRecord<>(TOPIC, partition, "k", value)).get();
        }
    }

    @Test
    void anIncrementalFetchIsAnsweredWithOnlyThePartitionsThatHaveNews() throws Exception {
        FetchResponseData full = fetch(session(0, 0).setTopics(List.of(topic(List.of(0, 1, 2), 0))), V12);
        assertThat(Errors.forCode(full.errorCode())).isEqualTo(Errors.NONE);
        assertThat(full.sessionId()).isPositive();
        assertThat(partitionsIn(full)).containsExactlyInAnyOrder(0, 1, 2);

        FetchResponseData quiet = fetch(session(full.sessionId(), 1), V12);
        assertThat(Errors.forCode(quiet.errorCode())).isEqualTo(Errors.NONE);
        assertThat(quiet.sessionId()).isEqualTo(full.sessionId());
        assertThat(quiet.responses()).as("nothing changed").isEmpty();

        produce(1, "news");
        FetchResponseData news = fetch(session(full.sessionId(), 2), V12);
        assertThat(partitionsIn(news)).containsExactly(1);
        FetchResponseData.PartitionData p1 =
                news.responses().getFirst().partitions().getFirst();
        assertThat(p1.highWatermark()).isEqualTo(1);
        assertThat(p1.records().sizeInBytes()).isPositive();

        // The consumer moves its position on partition 1 and only says so; partition 1 has no news at offset 1.
        FetchResponseData moved = fetch(session(full.sessionId(), 3).setTopics(List.of(topic(List.of(1), 1))), V12);
        assertThat(moved.responses()).isEmpty();
    }

    @Test
    void aForgottenPartitionIsNoLongerRead() throws Exception {
        int id = fetch(session(0, 0).setTopics(List.of(topic(List.of(0, 1), 0))), V12)
                .sessionId();
        FetchResponseData forgot = fetch(
                session(id, 1)
                        .setForgottenTopicsData(List.of(new FetchRequestData.ForgottenTopic()
                                .setTopic(TOPIC)
                                .setPartitions(List.of(0)))),
                V12);
        assertThat(forgot.responses()).isEmpty();
        produce(0, "unseen");
        produce(1, "seen");
        assertThat(partitionsIn(fetch(session(id, 2), V12))).containsExactly(1);
    }

    @Test
    void sessionsWorkWithTopicIds() throws Exception {
        Uuid id = LogContents.topicId(broker.broker(), TOPIC);
        FetchRequestData.FetchTopic byId = topic(List.of(0, 2), 0).setTopic("").setTopicId(id);
        FetchResponseData full = fetch(session(0, 0).setTopics(List.of(byId)), V17);
        assertThat(full.sessionId()).isPositive();
        assertThat(full.responses().getFirst().topicId()).isEqualTo(id);
        produce(2, "by-id");
        FetchResponseData news = fetch(session(full.sessionId(), 1), V17);
        assertThat(news.responses()).singleElement().satisfies(t -> {
            assertThat(t.topicId()).isEqualTo(id);
            assertThat(t.partitions())
                    .extracting(FetchResponseData.PartitionData::partitionIndex)
                    .containsExactly(2);
        });
    }

    @Test
    void aWrongEpochAnUnknownSessionAndAClosedSessionAreRefused() throws Exception {
        int id = fetch(session(0, 0).setTopics(List.of(topic(List.of(0), 0))), V12)
                .sessionId();
        assertThat(Errors.forCode(fetch(session(id, 5), V12).errorCode()))
                .isEqualTo(Errors.INVALID_FETCH_SESSION_EPOCH);
        assertThat(Errors.forCode(fetch(session(id, 1), V12).errorCode()))
                .as("the refused fetch did not use up the epoch")
                .isEqualTo(Errors.NONE);
        int unknown = id == Integer.MAX_VALUE ? 1 : id + 1;
        assertThat(Errors.forCode(fetch(session(unknown, 1), V12).errorCode()))
                .isEqualTo(Errors.FETCH_SESSION_ID_NOT_FOUND);
        assertThat(Errors.forCode(fetch(session(0, 3), V12).errorCode()))
                .as("no session has id 0")
                .isEqualTo(Errors.FETCH_SESSION_ID_NOT_FOUND);

        FetchResponseData closing = fetch(session(id, -1).setTopics(List.of(topic(List.of(0), 0))), V12);
        assertThat(closing.sessionId()).as("a sessionless full fetch").isZero();
        assertThat(partitionsIn(closing)).containsExactly(0);
        assertThat(Errors.forCode(fetch(session(id, 2), V12).errorCode())).isEqualTo(Errors.FETCH_SESSION_ID_NOT_FOUND);
    }
}
