package io.orderflow.broker.network;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.orderflow.broker.server.LogContents;
import io.orderflow.broker.server.TestBroker;
import io.orderflow.frames.RequestCorpus;
import io.orderflow.frames.WireClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.FetchResponse;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Clients that stop reading their answers in the middle of large Fetch responses, and clients that stop in the
 * middle of sending a request, hold up only their own connections: meanwhile a producer and a consumer on
 * other connections produce and consume as usual, and the stalled connections are served once their clients
 * carry on.
 */
class SlowClientsTest {
    private static final String BULK = "bulk";
    private static final String LIVE = "live";
    private static final int BULK_BATCHES = 3;
    private static final int VALUE_BYTES = 900_000;
    private static final int FETCHES_PER_STUCK_READER = 4;
    private static final int STUCK_READERS = 4; // more than the cores that carry virtual threads here
    private static final int STALLED_WRITERS = 2;

    @TempDir
    Path dataDir;

    private TestBroker broker;
    private final List<WireClient> slowClients = new ArrayList<>();

    @BeforeEach
    void start() throws Exception {
        broker = TestBroker.start(dataDir);
        broker.createTopic(BULK, 1, Map.of());
        broker.createTopic(LIVE, 1, Map.of());
        RequestCorpus.Target bulk = new RequestCorpus.Target(BULK, LogContents.topicId(broker.broker(), BULK));
        try (WireClient loader = WireClient.connect(broker.broker().port())) {
            for (int i = 0; i < BULK_BATCHES; i++) {
                byte[] value = new byte[VALUE_BYTES];
                Arrays.fill(value, (byte) ('a' + i));
                MemoryRecords records = MemoryRecords.withRecords(Compression.NONE, new SimpleRecord(value));
                RequestHeader header = loader.send(RequestCorpus.produce(bulk, records, (short) -1, (short) 12), i);
                assertThat(loader.receive(header).errorCounts()).containsOnlyKeys(Errors.NONE);
            }
        }
    }

    @AfterEach
    void stop() throws Exception {
        for (WireClient c : slowClients) {
            c.close();
        }
        broker.close();
    }

    @Test
    void stalledClientsDoNotHoldUpOthers() throws Exception {
        RequestCorpus.Target bulk = new RequestCorpus.Target(BULK, LogContents.topicId(broker.broker(), BULK));
        FetchRequest bigFetch = RequestCorpus.fetch(bulk, List.of(0), 0, 0, 8 * 1024 * 1024, (short) 12);
        int fetchFrameBytes =
                4 + WireClient.frame(bigFetch, new RequestHeader(ApiKeys.FETCH, (short) 12, "wire-client", 0)).length;
        NetworkStats stats = broker.broker().server().stats();
        long bytesInBefore = stats.bytesIn();
        long bytesOutBefore = stats.bytesOut();

        // Each stuck reader asks for about 4 x 2.7 MB and reads none of it: far more than the socket buffers
        // hold, so the broker's writer for it blocks part-way through an answer.
        List<RequestHeader> stuckHeaders = new ArrayList<>();
        for (int r = 0; r < STUCK_READERS; r++) {
            WireClient reader = WireClient.connect(broker.broker().port(), 4096);
            slowClients.add(reader);
            for (int f = 0; f < FETCHES_PER_STUCK_READER; f++) {
                RequestHeader header = reader.send(bigFetch, r * 100 + f);
                if (r == 0) {
                    stuckHeaders.add(header);
                }
            }
        }
        // Each stalled writer sends half a request and stops.
        byte[] metadata = WireClient.withSize(WireClient.frame(
                new MetadataRequest.Builder(List.of(LIVE), false).build((short) 12),
                new RequestHeader(ApiKeys.METADATA, (short) 12, "stalled", 77)));
        for (int w = 0; w < STALLED_WRITERS; w++) {
            WireClient writer = WireClient.connect(broker.broker().port());
            slowClients.add(writer);
            writer.sendRaw(Arrays.copyOf(metadata, metadata.length / 2));
        }
        // Every stuck reader's first Fetch has been read by the broker, so its answers are under way.
        await().atMost(Duration.ofSeconds(10))
                .until(() -> stats.bytesIn() >= bytesInBefore + (long) STUCK_READERS * fetchFrameBytes);
        assertThat(broker.broker().server().connectionCount()).isGreaterThanOrEqualTo(STUCK_READERS + STALLED_WRITERS);

        // Meanwhile, on other connections: produce and consume as usual.
        List<String> produced = new ArrayList<>();
        try (KafkaProducer<String, String> producer = broker.producer()) {
            for (int i = 0; i < 20; i++) {
                producer.send(new ProducerRecord<>(LIVE, "k", "live-" + i)).get(10, TimeUnit.SECONDS);
                produced.add("live-" + i);
            }
        }
        List<String> consumed = LogContents.consume(broker, LIVE, 1, produced.size()).stream()
                .map(ConsumerRecord::value)
                .toList();
        assertThat(consumed).containsExactlyElementsOf(produced);

        // The stuck readers' answers were not all out meanwhile: their writers really were blocked.
        long asked = (long) STUCK_READERS * FETCHES_PER_STUCK_READER * BULK_BATCHES * VALUE_BYTES;
        assertThat(stats.bytesOut() - bytesOutBefore).isLessThan(asked);

        // The stalled connections were waiting, not dropped: they are served once their clients carry on.
        WireClient reader = slowClients.get(0);
        for (RequestHeader header : stuckHeaders) {
            FetchResponse answer = (FetchResponse) reader.receive(header);
            assertThat(answer.error()).isEqualTo(Errors.NONE);
            assertThat(FetchResponse.recordsSize(
                            answer.data().responses().get(0).partitions().get(0)))
                    .isGreaterThanOrEqualTo(BULK_BATCHES * VALUE_BYTES);
        }
        WireClient writer = slowClients.get(STUCK_READERS);
        writer.sendRaw(Arrays.copyOfRange(metadata, metadata.length / 2, metadata.length));
        RequestHeader metadataHeader = new RequestHeader(ApiKeys.METADATA, (short) 12, "stalled", 77);
        assertThat(writer.receive(metadataHeader).errorCounts()).containsOnlyKeys(Errors.NONE);
    }
}
