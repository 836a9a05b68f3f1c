package io.orderflow.broker.network;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.broker.server.LogContents;
import io.orderflow.broker.server.TestBroker;
import io.orderflow.frames.RequestCorpus;
import io.orderflow.frames.WireClient;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Frames the broker cannot or must not read (too large, negative or empty size, an API key nobody knows, a
 * truncated body, a frame cut off by the client) close their connection and nothing else: a producer connected
 * all along keeps producing on its own connection, and new connections are served.
 */
class BadFramesTest {
    private static final int MAX_REQUEST_BYTES = 64 * 1024;
    private static final String TOPIC = "steady";

    @TempDir
    static Path dataDir;

    private static TestBroker broker;
    private static KafkaProducer<String, String> producer;
    private static int sent;

    @BeforeAll
    static void start() throws Exception {
        broker = TestBroker.start(dataDir, Map.of("socket.request.max.bytes", Integer.toString(MAX_REQUEST_BYTES)));
        broker.createTopic(TOPIC, 1, Map.of());
        producer = broker.producer();
        produceOne();
    }

    @AfterAll
    static void stop() {
        producer.close();
        broker.close();
    }

    /** After each bad frame: the producer's long-lived connection still works, and so does a new one. */
    @AfterEach
    void otherConnectionsAreUnaffected() throws Exception {
        produceOne();
        assertThat(LogContents.values(broker.broker(), TOPIC, 0)).hasSize(sent);
        try (WireClient fresh = WireClient.connect(broker.broker().port())) {
            RequestHeader header = fresh.send(new ApiVersionsRequest.Builder().build((short) 3), 1);
            ApiVersionsResponse response = (ApiVersionsResponse) fresh.receive(header);
            assertThat(response.data().errorCode()).isEqualTo(Errors.NONE.code());
        }
    }

    private static void produceOne() throws Exception {
        producer.send(new ProducerRecord<>(TOPIC, "k", "v" + sent)).get(30, TimeUnit.SECONDS);
        sent++;
    }

    @Test
    void closesOnAFrameOverTheLimitWithoutWaitingForItsBody() throws Exception {
        long rejectedBefore = broker.broker().server().stats().rejectedFrames();
        try (WireClient client = WireClient.connect(broker.broker().port())) {
            // Only the size: a broker that tried to read the body would wait for it until the read timeout.
            client.sendRaw(ByteBuffer.allocate(4).putInt(MAX_REQUEST_BYTES + 1).array());
            assertThat(client.closedByBroker()).isTrue();
        }
        assertThat(broker.broker().server().stats().rejectedFrames()).isGreaterThan(rejectedBefore);
    }

    @Test
    void closesOnAHugeFrameSize() throws Exception {
        try (WireClient client = WireClient.connect(broker.broker().port())) {
            client.sendRaw(ByteBuffer.allocate(4).putInt(Integer.MAX_VALUE).array());
            assertThat(client.closedByBroker()).isTrue();
        }
    }

    @Test
    void closesOnANegativeFrameSize() throws Exception {
        try (WireClient client = WireClient.connect(broker.broker().port())) {
            client.sendRaw(new byte[] {(byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFE, 0, 0, 0, 0});
            assertThat(client.closedByBroker()).isTrue();
        }
    }

    @Test
    void closesOnAnEmptyFrame() throws Exception {
        try (WireClient client = WireClient.connect(broker.broker().port())) {
            client.sendFrame(new byte[0]);
            assertThat(client.closedByBroker()).isTrue();
        }
    }

    @Test
    void closesOnAnUnknownApiKey() throws Exception {
        byte[] frame = metadataFrame();
        ByteBuffer.wrap(frame).putShort(0, (short) 32_000);
        try (WireClient client = WireClient.connect(broker.broker().port())) {
            client.sendFrame(frame);
            assertThat(client.closedByBroker()).isTrue();
        }
    }

    @Test
    void closesOnAnApiKeyWithNoVersionsLeft() throws Exception {
        // LeaderAndIsr (key 4) was removed from the protocol: the codec knows the key but no version of it.
        byte[] frame = metadataFrame();
        ByteBuffer.wrap(frame).putShort(0, ApiKeys.LEADER_AND_ISR.id).putShort(2, (short) 0);
        try (WireClient client = WireClient.connect(broker.broker().port())) {
            client.sendFrame(frame);
            assertThat(client.closedByBroker()).isTrue();
        }
    }

    @Test
    void closesOnAVersionTheCodecDoesNotKnow() throws Exception {
        byte[] frame = metadataFrame();
        ByteBuffer.wrap(frame).putShort(2, (short) (ApiKeys.METADATA.latestVersion(true) + 1));
        try (WireClient client = WireClient.connect(broker.broker().port())) {
            client.sendFrame(frame);
            assertThat(client.closedByBroker()).isTrue();
        }
    }

    @Test
    void closesOnATruncatedRequestOfEveryServedApi() throws Exception {
        List<RequestCorpus.Sample> samples = RequestCorpus.served(
                new RequestCorpus.Target(TOPIC, LogContents.topicId(broker.broker(), TOPIC)),
                RequestCorpus.records("k", "truncated"));
        for (RequestCorpus.Sample sample : samples) {
            byte[] frame = sample.frame();
            // The size prefix matches what is sent, so the frame arrives whole but its body ends too early.
            byte[] truncated = Arrays.copyOf(frame, frame.length - 1);
            try (WireClient client = WireClient.connect(broker.broker().port())) {
                client.sendFrame(truncated);
                assertThat(client.closedByBroker())
                        .as("%s cut by one byte", sample)
                        .isTrue();
            }
        }
        assertThat(LogContents.values(broker.broker(), TOPIC, 0)).doesNotContain("truncated");
    }

    @Test
    void closesWhenTheClientHangsUpInsideAFrame() throws Exception {
        byte[] frame = WireClient.withSize(metadataFrame());
        try (WireClient client = WireClient.connect(broker.broker().port())) {
            client.sendRaw(Arrays.copyOf(frame, frame.length / 2));
            client.shutdownOutput();
            assertThat(client.closedByBroker()).isTrue();
        }
    }

    @Test
    void aBadFrameDoesNotUndoTheRequestsBeforeIt() throws Exception {
        try (WireClient client = WireClient.connect(broker.broker().port())) {
            RequestHeader good = client.send(new MetadataRequest.Builder(List.of(TOPIC), false).build((short) 12), 5);
            client.sendRaw(ByteBuffer.allocate(4).putInt(-1).array());
            assertThat(client.receive(good).errorCounts()).containsOnlyKeys(Errors.NONE);
            assertThat(client.closedByBroker()).isTrue();
        }
    }

    private static byte[] metadataFrame() {
        MetadataRequest request = new MetadataRequest.Builder(List.of(TOPIC), false).build((short) 12);
        return WireClient.frame(request, new RequestHeader(ApiKeys.METADATA, (short) 12, "bad-frames", 9));
    }
}
