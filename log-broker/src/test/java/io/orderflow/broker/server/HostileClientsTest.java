package io.orderflow.broker.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.orderflow.frames.WireClient;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.common.requests.JoinGroupRequest;
import org.apache.kafka.common.requests.JoinGroupResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Clients that lie about their frames' sizes, hold connections open without a request, or open more connections
 * than they may, against a broker over TCP: each is closed or made to wait, and a well-behaved client beside them is
 * answered throughout.
 */
class HostileClientsTest {
    private static final Duration WITHIN = Duration.ofSeconds(15);

    @TempDir
    Path dataDir;

    private final List<WireClient> clients = new ArrayList<>();
    private TestBroker broker;

    @AfterEach
    void stop() throws IOException {
        for (WireClient client : clients) {
            client.close();
        }
        if (broker != null) {
            broker.close();
        }
    }

    private WireClient connect() throws IOException {
        WireClient client = WireClient.connect(broker.broker().port());
        clients.add(client);
        return client;
    }

    /** A size prefix claiming {@code claimed} bytes, and {@code sent} bytes of the frame after it. */
    private static byte[] lyingFrame(int claimed, int sent) {
        return ByteBuffer.allocate(4 + sent).putInt(claimed).array();
    }

    private static void assertAnswersApiVersions(WireClient client, int correlationId) throws IOException {
        RequestHeader header = client.send(new ApiVersionsRequest.Builder().build((short) 3), correlationId);
        ApiVersionsResponse answer = (ApiVersionsResponse) client.receive(header);
        assertThat(Errors.forCode(answer.data().errorCode())).isEqualTo(Errors.NONE);
    }

    @Test
    void aFrameClaimingMoreThanTheWholeRequestMemoryClosesItsConnectionAtOnce() throws Exception {
        broker = TestBroker.start(dataDir, Map.of("queued.max.request.bytes", "1048576"));
        WireClient liar = connect();

        liar.sendRaw(lyingFrame(2 * 1024 * 1024, 10));

        assertThat(liar.closedByBroker()).isTrue();
        assertThat(broker.broker().requestMemory().reserved()).isZero();
        assertAnswersApiVersions(connect(), 1);
    }

    @Test
    void framesThatClaimTheRequestMemoryWaitWithoutHeapWhileOtherClientsAreAnswered() throws Exception {
        broker = TestBroker.start(dataDir, Map.of("queued.max.request.bytes", "1048576"));
        List<WireClient> liars = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            WireClient liar = connect();
            liar.sendRaw(lyingFrame(900 * 1024, 10));
            liars.add(liar);
        }

        // One lie holds 900 KiB of the 1 MiB; the other three wait for room, their connections unread.
        await().atMost(WITHIN).until(() -> broker.broker().requestMemory().waitingFrames() == 3);
        assertThat(broker.broker().requestMemory().reserved()).isEqualTo(900 * 1024);
        WireClient honest = connect();
        assertAnswersApiVersions(honest, 1);
        try (KafkaProducer<String, String> producer = broker.producer()) {
            producer.send(new ProducerRecord<>("beside-the-liars", "k", "v")).get(30, TimeUnit.SECONDS);
        }

        // Each lie that goes away lets the next one in, and nothing stays reserved once all are gone.
        for (WireClient liar : liars) {
            liar.close();
        }
        await().atMost(WITHIN)
                .until(() -> broker.broker().requestMemory().waitingFrames() == 0
                        && broker.broker().requestMemory().reserved() == 0);
        assertAnswersApiVersions(honest, 2);
    }

    /**
     * A request that waits long after it was read (here a JoinGroup of 900 KiB waiting for its group's first
     * rebalance) gives its frame's request memory back once it is decoded: a 900 KiB frame from another client is
     * let in at once instead of waiting, against a 1 MiB budget, for the join to be answered. Found by the
     * hostile-frames harness, where long-polling Fetches of mutated sizes held the whole budget and every large frame
     * behind them waited until 2,000 connections from one address were held.
     */
    @Test
    void aRequestWaitingAfterItWasReadHoldsNoRequestMemory() throws Exception {
        broker = TestBroker.start(
                dataDir, Map.of("queued.max.request.bytes", "1048576", "group.initial.rebalance.delay.ms", "60000"));
        WireClient member = connect();
        RequestHeader first = member.send(join("patient", JoinGroupRequest.UNKNOWN_MEMBER_ID, 0), 1);
        String memberId = ((JoinGroupResponse) member.receive(first)).data().memberId();
        member.send(join("patient", memberId, 900 * 1024), 2);
        try (Admin admin = broker.admin()) {
            await().atMost(WITHIN)
                    .until(() -> admin.describeConsumerGroups(List.of("patient"))
                                    .all()
                                    .get(10, TimeUnit.SECONDS)
                                    .get("patient")
                                    .groupState()
                            == GroupState.PREPARING_REBALANCE);
        }

        connect().sendRaw(lyingFrame(900 * 1024, 10));

        await().atMost(WITHIN)
                .until(() -> broker.broker().requestMemory().reserved() == 900 * 1024
                        && broker.broker().requestMemory().waitingFrames() == 0);
    }

    private static JoinGroupRequest join(String group, String memberId, int metadataBytes) {
        JoinGroupRequestData.JoinGroupRequestProtocolCollection protocols =
                new JoinGroupRequestData.JoinGroupRequestProtocolCollection();
        protocols.add(new JoinGroupRequestData.JoinGroupRequestProtocol()
                .setName("range")
                .setMetadata(new byte[metadataBytes]));
        return new JoinGroupRequest.Builder(new JoinGroupRequestData()
                        .setGroupId(group)
                        .setMemberId(memberId)
                        .setProtocolType("consumer")
                        .setSessionTimeoutMs(30_000)
                        .setRebalanceTimeoutMs(60_000)
                        .setProtocols(protocols))
                .build((short) 9);
    }

    @Test
    void maxConnectionsCountsTheConnectionsOfEveryListenerTogether() throws Exception {
        broker = TestBroker.start(
                dataDir,
                Map.of(
                        "max.connections", "3",
                        "listeners", "PLAINTEXT://127.0.0.1:0,SECOND://127.0.0.1:0",
                        "listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,SECOND:PLAINTEXT"));
        WireClient first = connect();
        WireClient second = connect();
        WireClient onTheOtherListener = WireClient.connect(broker.broker().port("SECOND"));
        clients.add(onTheOtherListener);
        assertAnswersApiVersions(onTheOtherListener, 1);

        WireClient fourth = connect();

        assertThat(fourth.closedByBroker()).isTrue();
        assertAnswersApiVersions(first, 2);
        second.close();
        await().atMost(WITHIN).until(() -> broker.broker().connectionQuotas().open() == 2);
        assertAnswersApiVersions(connect(), 3);
    }

    @Test
    void connectionsBeyondTheLimitForOneAddressAreClosedAtOnceAndAnOverrideRaisesIt() throws Exception {
        broker = TestBroker.start(
                dataDir, Map.of("max.connections.per.ip", "3", "max.connections.per.ip.overrides", "localhost:5"));
        InetAddress loopback = InetAddress.getByName("127.0.0.1");
        List<WireClient> allowed = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            allowed.add(connect());
        }
        await().atMost(WITHIN).until(() -> broker.broker().connectionQuotas().open(loopback) == 5);

        WireClient sixth = connect();

        assertThat(sixth.closedByBroker()).isTrue();
        assertAnswersApiVersions(allowed.getLast(), 1);
        allowed.getFirst().close();
        await().atMost(WITHIN).until(() -> broker.broker().connectionQuotas().open(loopback) == 4);
        assertAnswersApiVersions(connect(), 2);
    }

    @Test
    void aConnectionThatCompletesNoRequestForTheIdleTimeIsClosedHoweverSlowlyItSends() throws Exception {
        broker = TestBroker.start(dataDir, Map.of("connections.max.idle.ms", "1000"));
        WireClient silent = connect();
        WireClient slowLoris = connect();
        slowLoris.sendRaw(lyingFrame(100, 0));
        long started = System.nanoTime();
        WireClient busy = connect();

        // The busy client completes a request every 200 ms for three idle periods; the slow one sends a byte each time.
        int correlationId = 0;
        while (System.nanoTime() - started < TimeUnit.MILLISECONDS.toNanos(3_000)) {
            assertAnswersApiVersions(busy, ++correlationId);
            try {
                slowLoris.sendRaw(new byte[1]);
            } catch (IOException closedAlready) {
                // the broker closed it: asserted below
            }
            Thread.sleep(200); // the client's pace, not a wait for the broker
        }

        assertThat(silent.closedByBroker()).isTrue();
        assertThat(slowLoris.closedByBroker()).isTrue();
        assertAnswersApiVersions(busy, ++correlationId);
    }
}
