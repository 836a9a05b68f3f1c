package io.orderflow.broker.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.frames.RequestCorpus;
import io.orderflow.frames.WireClient;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.common.requests.ProduceRequest;
import org.apache.kafka.common.requests.ProduceResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Requests the broker can read but must not or cannot serve get the protocol's error, on a connection that stays
 * open: ApiVersions at a version it does not know (the v0 answer with {@code UNSUPPORTED_VERSION} and our ranges
 * that newer clients expect), a corrupt batch ({@code CORRUPT_MESSAGE}), a batch over {@code max.message.bytes}
 * ({@code MESSAGE_TOO_LARGE}), a record without a key on a compacted topic ({@code INVALID_RECORD}). A rejected
 * batch is never stored. Any other API or version the broker does not advertise closes the connection instead, as
 * in Apache Kafka: {@code EveryApiKeyMatrixTest}.
 */
class BadRequestsTest {
    private static final String TOPIC = "guarded";
    private static final String SMALL = "small-messages";
    private static final String COMPACTED = "compacted";
    private static final String MULTI = "multi-batch";

    @TempDir
    static Path dataDir;

    private static TestBroker broker;
    private static WireClient client;
    private static int correlationId;

    @BeforeAll
    static void start() throws Exception {
        broker = TestBroker.start(dataDir);
        broker.createTopic(TOPIC, 2, Map.of());
        broker.createTopic(SMALL, 1, Map.of("max.message.bytes", "1024"));
        broker.createTopic(COMPACTED, 1, Map.of("cleanup.policy", "compact"));
        broker.createTopic(MULTI, 1, Map.of());
        client = WireClient.connect(broker.broker().port());
    }

    @AfterAll
    static void stop() throws Exception {
        client.close();
        broker.close();
    }

    private static RequestCorpus.Target target(String topic) {
        return new RequestCorpus.Target(topic, LogContents.topicId(broker.broker(), topic));
    }

    /** What ApiVersions advertises: API key to its supported range. */
    private static Map<Short, ApiVersionsResponseData.ApiVersion> advertised() throws Exception {
        RequestHeader header = client.send(new ApiVersionsRequest.Builder().build((short) 3), ++correlationId);
        ApiVersionsResponse response = (ApiVersionsResponse) client.receive(header);
        assertThat(response.data().errorCode()).isEqualTo(Errors.NONE.code());
        Map<Short, ApiVersionsResponseData.ApiVersion> ranges = new TreeMap<>();
        response.data().apiKeys().forEach(v -> ranges.put(v.apiKey(), v));
        return ranges;
    }

    @Test
    void answersApiVersionsFromANewerClientAtVersionZeroWithItsRanges() throws Exception {
        Map<Short, ApiVersionsResponseData.ApiVersion> advertised = advertised();
        short future = (short) (ApiKeys.API_VERSIONS.latestVersion(true) + 3);
        byte[] clientId = "future-client".getBytes(StandardCharsets.UTF_8);
        ByteBuffer frame = ByteBuffer.allocate(10 + clientId.length + 9)
                .putShort(ApiKeys.API_VERSIONS.id)
                .putShort(future)
                .putInt(777)
                .putShort((short) clientId.length)
                .put(clientId)
                .put((byte) 0) // header tagged fields
                .put(new byte[] {3, 'n', 'e', 3, '9', '.', 0, 0}); // a body only the future knows
        client.sendFrame(frame.array());

        RequestHeader v0 = new RequestHeader(ApiKeys.API_VERSIONS, (short) 0, "future-client", 777);
        ApiVersionsResponse response = (ApiVersionsResponse) client.receive(v0);

        assertThat(response.data().errorCode()).isEqualTo(Errors.UNSUPPORTED_VERSION.code());
        assertThat(response.data().apiKeys()).containsExactlyInAnyOrderElementsOf(advertised.values());
        assertThat(advertised()).isEqualTo(advertised);
    }

    @Test
    void refusesACorruptBatchAndStoresNothingOfIt() throws Exception {
        MemoryRecords good = RequestCorpus.records("k", "good");
        MemoryRecords corrupt = RequestCorpus.withBadCrc(RequestCorpus.records("k", "corrupt"));
        RequestHeader header = client.send(
                RequestCorpus.produce(target(TOPIC), Map.of(0, corrupt, 1, good), (short) -1, (short) 13),
                ++correlationId);

        ProduceResponse response = (ProduceResponse) client.receive(header);

        assertThat(errorsByPartition(response))
                .containsEntry(0, Errors.CORRUPT_MESSAGE)
                .containsEntry(1, Errors.NONE);
        assertThat(LogContents.values(broker.broker(), TOPIC, 0)).isEmpty();
        assertThat(LogContents.values(broker.broker(), TOPIC, 1)).containsExactly("good");
    }

    @Test
    void refusesMoreThanOneBatchPerPartitionAsKafkaDoes() throws Exception {
        MemoryRecords first = RequestCorpus.records("k", "first-of-two");
        MemoryRecords second = RequestCorpus.records("k", "second-of-two");
        ByteBuffer both = ByteBuffer.allocate(first.sizeInBytes() + second.sizeInBytes())
                .put(first.buffer())
                .put(second.buffer())
                .flip();
        ProduceRequestData.TopicProduceData topic =
                new ProduceRequestData.TopicProduceData().setTopicId(LogContents.topicId(broker.broker(), MULTI));
        topic.partitionData()
                .add(new ProduceRequestData.PartitionProduceData()
                        .setIndex(0)
                        .setRecords(MemoryRecords.readableRecords(both)));
        ProduceRequestData data = new ProduceRequestData()
                .setAcks((short) -1)
                .setTimeoutMs(10_000)
                .setTopicData(new ProduceRequestData.TopicProduceDataCollection(
                        List.of(topic).iterator()));
        long endBefore =
                broker.broker().logs().partition(MULTI, 0).orElseThrow().logEndOffset();
        // Built directly: kafka-clients' request builder refuses to build what no client may send.
        RequestHeader header = client.send(new ProduceRequest(data, (short) 13), ++correlationId);

        ProduceResponse response = (ProduceResponse) client.receive(header);

        assertThat(errorsByPartition(response)).containsEntry(0, Errors.INVALID_RECORD);
        assertThat(broker.broker().logs().partition(MULTI, 0).orElseThrow().logEndOffset())
                .isEqualTo(endBefore);
    }

    @Test
    void refusesACorruptBatchOnACompactedTopic() throws Exception {
        // The compressed records are garbage (the CRC, left alone, no longer matches): to check for keys, as a
        // compacted topic must, the broker would have to decompress garbage unless it checks the CRC first.
        MemoryRecords batch = MemoryRecords.withRecords(
                Compression.gzip().build(),
                new SimpleRecord("k".getBytes(), "compacted".repeat(20).getBytes()));
        ByteBuffer bytes =
                ByteBuffer.allocate(batch.sizeInBytes()).put(batch.buffer()).flip();
        for (int i = 61; i < bytes.limit(); i++) {
            bytes.put(i, (byte) (0x5A ^ i));
        }
        MemoryRecords corrupt = MemoryRecords.readableRecords(bytes);
        RequestHeader header =
                client.send(RequestCorpus.produce(target(COMPACTED), corrupt, (short) -1, (short) 13), ++correlationId);

        ProduceResponse response = (ProduceResponse) client.receive(header);

        assertThat(errorsByPartition(response)).containsEntry(0, Errors.CORRUPT_MESSAGE);
        assertThat(LogContents.values(broker.broker(), COMPACTED, 0)).isEmpty();
    }

    @Test
    void refusesARecordWithoutAKeyOnACompactedTopicAsKafkaDoesAndStoresNothingOfIt() throws Exception {
        MemoryRecords oneKeyless = MemoryRecords.withRecords(
                Compression.NONE,
                new SimpleRecord("k".getBytes(StandardCharsets.UTF_8), "keyed".getBytes(StandardCharsets.UTF_8)),
                new SimpleRecord(null, "keyless".getBytes(StandardCharsets.UTF_8)));
        RequestHeader header = client.send(
                RequestCorpus.produce(target(COMPACTED), oneKeyless, (short) -1, (short) 13), ++correlationId);

        ProduceResponse response = (ProduceResponse) client.receive(header);

        assertThat(errorsByPartition(response)).containsEntry(0, Errors.INVALID_RECORD);
        assertThat(Errors.INVALID_RECORD.code()).isEqualTo((short) 87);
        ProduceResponseData.PartitionProduceResponse partition = response.data()
                .responses()
                .iterator()
                .next()
                .partitionResponses()
                .getFirst();
        assertThat(partition.errorMessage()).contains("compacted-0", "no key");
        assertThat(partition.recordErrors())
                .as("the keyless record (index 1 of its batch) is named, as Kafka's record_errors do")
                .singleElement()
                .satisfies(error -> {
                    assertThat(error.batchIndex()).isEqualTo(1);
                    assertThat(error.batchIndexErrorMessage()).contains("no key");
                });
        assertThat(LogContents.values(broker.broker(), COMPACTED, 0)).isEmpty();
    }

    @Test
    void refusesABatchOverMaxMessageBytes() throws Exception {
        MemoryRecords large =
                MemoryRecords.withRecords(Compression.NONE, new SimpleRecord("k".getBytes(), new byte[2048]));
        RequestHeader header =
                client.send(RequestCorpus.produce(target(SMALL), large, (short) -1, (short) 13), ++correlationId);

        ProduceResponse response = (ProduceResponse) client.receive(header);

        assertThat(errorsByPartition(response)).containsEntry(0, Errors.MESSAGE_TOO_LARGE);
        assertThat(LogContents.values(broker.broker(), SMALL, 0)).isEmpty();
    }

    private static Map<Integer, Errors> errorsByPartition(ProduceResponse response) {
        Map<Integer, Errors> errors = new TreeMap<>();
        for (ProduceResponseData.TopicProduceResponse topic : response.data().responses()) {
            for (ProduceResponseData.PartitionProduceResponse p : topic.partitionResponses()) {
                errors.put(p.index(), Errors.forCode(p.errorCode()));
            }
        }
        return errors;
    }
}
