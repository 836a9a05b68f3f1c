package io.orderflow.broker.network;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.broker.server.LogContents;
import io.orderflow.broker.server.TestBroker;
import io.orderflow.frames.RequestCorpus;
import io.orderflow.frames.WireClient;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.FetchResponse;
import org.apache.kafka.common.requests.ListOffsetsRequest;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.ProduceResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Requests written back to back on one connection, without waiting for answers, are handled and answered one
 * at a time in the order sent: each answer carries the correlation id of the request in its place, a Produce
 * with {@code acks=0} gets none, and a Fetch sees every Produce sent before it.
 */
class PipelinedRequestsTest {
    private static final String TOPIC = "pipeline";
    private static final short PRODUCE_VERSION = 12;
    private static final short FETCH_VERSION = 12;

    @TempDir
    static Path dataDir;

    private static TestBroker broker;
    private static RequestCorpus.Target target;

    @BeforeAll
    static void start() throws Exception {
        broker = TestBroker.start(dataDir);
        broker.createTopic(TOPIC, 1, Map.of());
        target = new RequestCorpus.Target(TOPIC, LogContents.topicId(broker.broker(), TOPIC));
    }

    @AfterAll
    static void stop() {
        broker.close();
    }

    private record Sent(RequestHeader header, boolean answered) {}

    @Test
    void answersPipelinedRequestsInOrderWithTheirCorrelationIds() throws Exception {
        Random random = new Random(20_240_601L);
        Set<Integer> usedIds = new HashSet<>();
        List<Sent> sent = new ArrayList<>();
        List<String> produced = new ArrayList<>();
        ByteArrayOutputStream wire = new ByteArrayOutputStream();
        for (int i = 0; i < 60; i++) {
            int correlationId;
            do {
                correlationId = random.nextInt();
            } while (!usedIds.add(correlationId));
            AbstractRequest request;
            boolean answered = true;
            switch (random.nextInt(6)) {
                case 0 -> request = new ApiVersionsRequest.Builder().build((short) 3);
                case 1 -> request = new MetadataRequest.Builder(List.of(TOPIC), false).build((short) 12);
                case 2 -> {
                    produced.add("r" + i);
                    request = RequestCorpus.produce(
                            target, RequestCorpus.records("k", "r" + i), (short) 1, PRODUCE_VERSION);
                }
                case 3 -> {
                    produced.add("r" + i);
                    answered = false; // acks=0: the protocol has no answer for it
                    request = RequestCorpus.produce(
                            target, RequestCorpus.records("k", "r" + i), (short) 0, PRODUCE_VERSION);
                }
                case 4 -> request = RequestCorpus.fetch(target, 0, 0, FETCH_VERSION);
                default ->
                    request = ListOffsetsRequest.Builder.forConsumer(false, IsolationLevel.READ_UNCOMMITTED)
                            .setTargetTimes(List.of(new ListOffsetsRequestData.ListOffsetsTopic()
                                    .setName(TOPIC)
                                    .setPartitions(List.of(new ListOffsetsRequestData.ListOffsetsPartition()
                                            .setPartitionIndex(0)
                                            .setTimestamp(ListOffsetsRequest.EARLIEST_TIMESTAMP)))))
                            .build((short) 7);
            }
            RequestHeader header = new RequestHeader(request.apiKey(), request.version(), "pipeline", correlationId);
            wire.write(WireClient.withSize(WireClient.frame(request, header)));
            sent.add(new Sent(header, answered));
        }
        // Last: an acks=all Produce, then a Fetch that must see everything produced before it, in order.
        produced.add("last");
        RequestHeader lastProduce = new RequestHeader(ApiKeys.PRODUCE, PRODUCE_VERSION, "pipeline", 1_000_001);
        wire.write(WireClient.withSize(WireClient.frame(
                RequestCorpus.produce(target, RequestCorpus.records("k", "last"), (short) -1, PRODUCE_VERSION),
                lastProduce)));
        RequestHeader lastFetch = new RequestHeader(ApiKeys.FETCH, FETCH_VERSION, "pipeline", 1_000_002);
        wire.write(WireClient.withSize(WireClient.frame(RequestCorpus.fetch(target, 0, 0, FETCH_VERSION), lastFetch)));

        try (WireClient client = WireClient.connect(broker.broker().port())) {
            client.sendRaw(wire.toByteArray()); // all of it at once, before reading anything
            for (Sent s : sent) {
                if (s.answered()) {
                    AbstractResponse response = client.receive(s.header());
                    assertThat(response.errorCounts().keySet())
                            .as("answer to %s", s.header())
                            .containsOnly(Errors.NONE);
                }
            }
            ProduceResponse produceAnswer = (ProduceResponse) client.receive(lastProduce);
            assertThat(produceAnswer.errorCounts()).containsOnlyKeys(Errors.NONE);
            FetchResponse fetchAnswer = (FetchResponse) client.receive(lastFetch);
            assertThat(valuesIn(fetchAnswer)).containsExactlyElementsOf(produced);
        }
    }

    private static List<String> valuesIn(FetchResponse response) {
        List<String> values = new ArrayList<>();
        for (FetchResponseData.FetchableTopicResponse topic : response.data().responses()) {
            for (FetchResponseData.PartitionData partition : topic.partitions()) {
                for (RecordBatch batch : FetchResponse.recordsOrFail(partition).batches()) {
                    for (Record record : batch) {
                        values.add(StandardCharsets.UTF_8.decode(record.value()).toString());
                    }
                }
            }
        }
        return values;
    }
}
