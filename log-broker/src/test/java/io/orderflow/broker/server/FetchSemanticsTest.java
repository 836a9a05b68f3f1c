package io.orderflow.broker.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.orderflow.broker.network.NetworkStats;
import io.orderflow.frames.RequestCorpus;
import io.orderflow.frames.WireClient;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.FetchResponse;
import org.apache.kafka.common.requests.ProduceResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Fetch as consumers rely on it: a long poll ends as soon as data arrives (not at {@code max.wait.ms}), or at
 * once when a partition cannot be read; without a fetch session (session id 0) the response lists exactly the
 * requested partitions, each once and with its own error.
 */
class FetchSemanticsTest {
    /** What kafka-clients 4.4 consumers send; topics are named by id. */
    private static final short FETCH_VERSION = 18;

    private static final short PRODUCE_VERSION = 13;

    private static final int LONG_WAIT_MS = 60_000;

    @TempDir
    static Path dataDir;

    private static TestBroker broker;

    @BeforeAll
    static void start() {
        broker = TestBroker.start(dataDir);
    }

    @AfterAll
    static void stop() {
        broker.close();
    }

    private static RequestCorpus.Target newTopic(String name, int partitions) throws Exception {
        broker.createTopic(name, partitions, Map.of());
        return new RequestCorpus.Target(name, LogContents.topicId(broker.broker(), name));
    }

    /** Sends {@code request} and reads its answer on another thread. */
    private static CompletableFuture<FetchResponse> fetchAsync(WireClient client, FetchRequest request, int id)
            throws IOException {
        RequestHeader header = client.send(request, id);
        return CompletableFuture.supplyAsync(() -> {
            try {
                return (FetchResponse) client.receive(header);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
    }

    @Test
    void aLongPollEndsAsSoonAsARecordArrives() throws Exception {
        RequestCorpus.Target quiet = newTopic("quiet", 1);
        NetworkStats stats = broker.broker().server().stats();
        try (WireClient client = WireClient.connect(broker.broker().port());
                KafkaProducer<String, String> producer = broker.producer()) {
            long bytesIn = stats.bytesIn();
            CompletableFuture<FetchResponse> answer =
                    fetchAsync(client, RequestCorpus.fetch(quiet, 0, LONG_WAIT_MS, FETCH_VERSION), 1);
            // The broker has read the Fetch, found nothing and is waiting; only now is the record produced.
            await().atMost(Duration.ofSeconds(10)).until(() -> stats.bytesIn() > bytesIn);
            producer.send(new ProducerRecord<>("quiet", "k", "wake up")).get(30, TimeUnit.SECONDS);

            // Far sooner than max.wait.ms: the answer came because of the record.
            await().atMost(Duration.ofSeconds(10)).until(answer::isDone);
            FetchResponse response = answer.join();
            assertThat(response.error()).isEqualTo(Errors.NONE);
            assertThat(values(response)).containsExactly("wake up");
        }
    }

    @Test
    void aLongPollWokenByAProduceAnswersWithEveryPartitionTheProduceWrote() throws Exception {
        int partitions = 6;
        RequestCorpus.Target spread = newTopic("spread", partitions);
        List<Integer> all =
                java.util.stream.IntStream.range(0, partitions).boxed().toList();
        Map<Integer, MemoryRecords> oneRequest = new LinkedHashMap<>();
        all.forEach(p -> oneRequest.put(p, RequestCorpus.records("k" + p, "in-" + p)));
        NetworkStats stats = broker.broker().server().stats();
        for (int round = 0; round < 5; round++) {
            try (WireClient consumer = WireClient.connect(broker.broker().port());
                    WireClient producer = WireClient.connect(broker.broker().port())) {
                long bytesIn = stats.bytesIn();
                CompletableFuture<FetchResponse> answer = fetchAsync(
                        consumer,
                        RequestCorpus.fetch(spread, all, round, LONG_WAIT_MS, 1024 * 1024, FETCH_VERSION),
                        10 + round);
                await().atMost(Duration.ofSeconds(10)).until(() -> stats.bytesIn() > bytesIn);
                ProduceResponse produced = (ProduceResponse) producer.receive(producer.send(
                        RequestCorpus.produce(spread, oneRequest, (short) -1, PRODUCE_VERSION), 20 + round));
                assertThat(produced.errorCounts()).containsOnlyKeys(Errors.NONE);

                // acks=all: the partitions became readable in one commit round, so the fetch they woke has all six.
                await().atMost(Duration.ofSeconds(10)).until(answer::isDone);
                assertThat(values(answer.join()))
                        .as("round %d", round)
                        .containsExactlyInAnyOrderElementsOf(
                                all.stream().map(p -> "in-" + p).toList());
            }
        }
    }

    @Test
    void anEmptyPartitionIsAnsweredEmptyOnceMaxWaitPasses() throws Exception {
        RequestCorpus.Target idle = newTopic("idle", 1);
        int maxWaitMs = 300;
        try (WireClient client = WireClient.connect(broker.broker().port())) {
            long start = System.nanoTime();
            RequestHeader header = client.send(RequestCorpus.fetch(idle, 0, maxWaitMs, FETCH_VERSION), 2);
            FetchResponse response = (FetchResponse) client.receive(header);
            long waitedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

            assertThat(errors(response)).containsOnly(Map.entry(new TopicPartition("idle", 0), Errors.NONE));
            assertThat(values(response)).isEmpty();
            assertThat(waitedMs).isGreaterThanOrEqualTo(maxWaitMs - 50L);
        }
    }

    @Test
    void aFullFetchListsExactlyTheRequestedPartitionsWithSessionIdZero() throws Exception {
        RequestCorpus.Target wide = newTopic("wide", 4);
        try (KafkaProducer<String, String> producer = broker.producer()) {
            for (int p = 0; p < 4; p++) {
                producer.send(new ProducerRecord<>("wide", p, "k", "in-" + p)).get(30, TimeUnit.SECONDS);
            }
        }
        RequestCorpus.Target missing = new RequestCorpus.Target("missing", Uuid.randomUuid());
        FetchRequest request = FetchRequest.Builder.forConsumer(
                        FETCH_VERSION,
                        0,
                        1,
                        partitions(Map.of(
                                wide, List.of(3, 1, 9),
                                missing, List.of(0))))
                .build(FETCH_VERSION);
        try (WireClient client = WireClient.connect(broker.broker().port())) {
            FetchResponse response = (FetchResponse) client.receive(client.send(request, 3));

            assertThat(response.sessionId()).isZero();
            assertThat(response.error()).isEqualTo(Errors.NONE);
            assertThat(errors(response))
                    .containsOnly(
                            Map.entry(new TopicPartition("wide", 3), Errors.NONE),
                            Map.entry(new TopicPartition("wide", 1), Errors.NONE),
                            Map.entry(new TopicPartition("wide", 9), Errors.UNKNOWN_TOPIC_OR_PARTITION),
                            Map.entry(new TopicPartition("missing", 0), Errors.UNKNOWN_TOPIC_ID));
            assertThat(values(response)).containsExactlyInAnyOrder("in-3", "in-1");
        }
    }

    /**
     * A partition listed again in the same fetch is read and answered once, as Apache Kafka keys a fetch's partitions
     * by topic and partition: without that, one request of a partition repeated thousands of times cost thousands of
     * reads (found by the hostile-frames harness, where such fetches kept hundreds of threads reading one segment).
     */
    @Test
    void aPartitionListedManyTimesInOneFetchIsReadAndAnsweredOnce() throws Exception {
        RequestCorpus.Target repeated = newTopic("repeated", 2);
        try (KafkaProducer<String, String> producer = broker.producer()) {
            for (int p = 0; p < 2; p++) {
                producer.send(new ProducerRecord<>("repeated", p, "k", "in-" + p))
                        .get(30, TimeUnit.SECONDS);
            }
        }
        org.apache.kafka.common.message.FetchRequestData.FetchTopic topic =
                new org.apache.kafka.common.message.FetchRequestData.FetchTopic().setTopicId(repeated.id());
        for (int i = 0; i < 1000; i++) {
            topic.partitions()
                    .add(new org.apache.kafka.common.message.FetchRequestData.FetchPartition()
                            .setPartition(i == 500 ? 1 : 0)
                            .setFetchOffset(0)
                            .setPartitionMaxBytes(1024 * 1024));
        }
        FetchRequest request = new FetchRequest(
                new org.apache.kafka.common.message.FetchRequestData()
                        .setReplicaId(-1)
                        .setMaxWaitMs(0)
                        .setMinBytes(1)
                        .setMaxBytes(1024 * 1024)
                        .setTopics(List.of(topic)),
                FETCH_VERSION);
        try (WireClient client = WireClient.connect(broker.broker().port())) {
            FetchResponse response = (FetchResponse) client.receive(client.send(request, 4));

            assertThat(response.data().responses()).hasSize(1);
            assertThat(response.data().responses().getFirst().partitions())
                    .extracting(FetchResponseData.PartitionData::partitionIndex)
                    .containsExactly(0, 1);
            assertThat(values(response)).containsExactly("in-0", "in-1");
        }
    }

    @Test
    void aPartitionThatCannotBeReadEndsTheLongPollAtOnce() throws Exception {
        RequestCorpus.Target sparse = newTopic("sparse", 2);
        try (WireClient client = WireClient.connect(broker.broker().port())) {
            // Partition 0 is empty (worth waiting for); offset 100 of partition 1 does not exist.
            Map<TopicPartition, FetchRequest.PartitionData> data = partitions(Map.of(sparse, List.of(0)));
            data.put(
                    new TopicPartition("sparse", 1),
                    new FetchRequest.PartitionData(sparse.id(), 100, -1L, 1024 * 1024, Optional.empty()));
            CompletableFuture<FetchResponse> outOfRange = fetchAsync(
                    client,
                    FetchRequest.Builder.forConsumer(FETCH_VERSION, LONG_WAIT_MS, 1, data)
                            .build(FETCH_VERSION),
                    4);
            await().atMost(Duration.ofSeconds(10)).until(outOfRange::isDone);
            assertThat(errors(outOfRange.join()))
                    .containsEntry(new TopicPartition("sparse", 0), Errors.NONE)
                    .containsEntry(new TopicPartition("sparse", 1), Errors.OFFSET_OUT_OF_RANGE);

            // The same with a partition the topic does not have.
            CompletableFuture<FetchResponse> unknown = fetchAsync(
                    client,
                    FetchRequest.Builder.forConsumer(
                                    FETCH_VERSION, LONG_WAIT_MS, 1, partitions(Map.of(sparse, List.of(0, 7))))
                            .build(FETCH_VERSION),
                    5);
            await().atMost(Duration.ofSeconds(10)).until(unknown::isDone);
            assertThat(errors(unknown.join()))
                    .containsEntry(new TopicPartition("sparse", 7), Errors.UNKNOWN_TOPIC_OR_PARTITION);
        }
    }

    private static Map<TopicPartition, FetchRequest.PartitionData> partitions(
            Map<RequestCorpus.Target, List<Integer>> wanted) {
        Map<TopicPartition, FetchRequest.PartitionData> data = new LinkedHashMap<>();
        wanted.forEach((target, partitions) -> {
            for (int p : partitions) {
                data.put(
                        new TopicPartition(target.name(), p),
                        new FetchRequest.PartitionData(target.id(), 0, -1L, 1024 * 1024, Optional.empty()));
            }
        });
        return data;
    }

    /** Each partition of the response, named by topic name (v13+ responses carry only topic ids). */
    private static Map<TopicPartition, Errors> errors(FetchResponse response) {
        Map<TopicPartition, Errors> errors = new TreeMap<>(Comparator.comparing(TopicPartition::toString));
        for (FetchResponseData.FetchableTopicResponse topic : response.data().responses()) {
            String name = broker.broker().logs().topics().stream()
                    .filter(t -> topicIdOf(t.name()).equals(topic.topicId()))
                    .map(t -> t.name())
                    .findFirst()
                    .orElse("missing");
            for (FetchResponseData.PartitionData p : topic.partitions()) {
                errors.put(new TopicPartition(name, p.partitionIndex()), Errors.forCode(p.errorCode()));
            }
        }
        return errors;
    }

    private static Uuid topicIdOf(String name) {
        return LogContents.topicId(broker.broker(), name);
    }

    private static List<String> values(FetchResponse response) {
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
