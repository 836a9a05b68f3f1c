package io.orderflow.broker.network;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.orderflow.broker.handler.ApiVersionsHandler;
import io.orderflow.broker.handler.BrokerNode;
import io.orderflow.broker.handler.RequestDispatcher;
import io.orderflow.frames.WireClient;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * The request memory behind the real socket server, on a clock the test moves: a frame that waits for room longer
 * than {@link RequestMemory#MAX_WAIT} has its connection closed, and nothing else is disturbed.
 */
class RequestMemoryOverTcpTest {
    private static final int KIB = 1024;
    private static final Duration WITHIN = Duration.ofSeconds(15);

    private final AtomicLong nanos = new AtomicLong();
    private final RequestMemory memory = new RequestMemory(100 * KIB);
    private final NetworkStats stats = new NetworkStats();
    private final ListAppender<ILoggingEvent> logged = new ListAppender<>();
    private final Logger connectionLog = (Logger) LoggerFactory.getLogger(Connection.class);
    private final List<WireClient> clients = new ArrayList<>();
    private SocketServer server;

    @BeforeEach
    void start() throws Exception {
        logged.start();
        connectionLog.addAppender(logged);
        AtomicReference<RequestDispatcher> self = new AtomicReference<>();
        RequestDispatcher dispatcher = RequestDispatcher.builder()
                .register(ApiKeys.API_VERSIONS, 4, new ApiVersionsHandler(self::get, new BrokerNode(1, "h", 1, "c")))
                .build();
        self.set(dispatcher);
        NetworkLimits limits = new NetworkLimits(1024 * KIB, 1000);
        server = SocketServer.bind(
                Listener.plaintext(new InetSocketAddress("127.0.0.1", 0)),
                limits,
                ConnectionThreads.VIRTUAL,
                stats,
                new ConnectionQuotas(limits),
                memory,
                nanos::get);
        server.start(dispatcher);
    }

    @AfterEach
    void stop() throws IOException {
        for (WireClient client : clients) {
            client.close();
        }
        server.close();
        connectionLog.detachAppender(logged);
    }

    private WireClient connect() throws IOException {
        WireClient client = WireClient.connect(server.port());
        clients.add(client);
        return client;
    }

    /** A size prefix claiming {@code claimed} bytes, and {@code sent} bytes of the frame after it. */
    private static byte[] lyingFrame(int claimed, int sent) {
        return ByteBuffer.allocate(4 + sent).putInt(claimed).array();
    }

    @Test
    void aFrameThatFindsNoRoomWithinTheLongestWaitClosesOnlyItsOwnConnection() throws Exception {
        WireClient holder = connect();
        holder.sendRaw(lyingFrame(80 * KIB, 10)); // its body trickles in: it holds 80 of the 100 KiB
        await().atMost(WITHIN).until(() -> memory.reserved() == 80 * KIB);
        WireClient waiter = connect();
        waiter.sendRaw(lyingFrame(50 * KIB, 10));
        await().atMost(WITHIN).until(() -> memory.waitingFrames() == 1);

        // Just short of the longest wait the frame still waits, rechecking ten times a second.
        nanos.addAndGet(RequestMemory.MAX_WAIT.toNanos() - 1_000_000);
        waiter.readTimeout(500);
        assertThatThrownBy(waiter::closedByBroker)
                .as("the broker neither answers nor closes a frame that may still wait")
                .isInstanceOf(AssertionError.class);
        assertThat(memory.waitingFrames()).isEqualTo(1);

        nanos.addAndGet(2_000_000);
        waiter.readTimeout(WireClient.READ_TIMEOUT_MS);
        assertThat(waiter.closedByBroker()).isTrue();

        assertThat(memory.waitingFrames()).isZero();
        assertThat(memory.reserved()).as("the holder keeps its reservation").isEqualTo(80 * KIB);
        assertThat(stats.rejectedFrames()).isEqualTo(1);
        await().atMost(WITHIN)
                .untilAsserted(() -> assertThat(logged.list)
                        .filteredOn(e -> e.getLevel() == Level.WARN)
                        .extracting(ILoggingEvent::getFormattedMessage)
                        .containsExactly(
                                "Closing a connection: its request found no room in queued.max.request.bytes"));
        ILoggingEvent warning = logged.list.stream()
                .filter(e -> e.getLevel() == Level.WARN)
                .findFirst()
                .orElseThrow();
        assertThat(warning.getKeyValuePairs()).anySatisfy(kv -> {
            assertThat(kv.key).isEqualTo("waitedMs");
            assertThat(kv.value).isEqualTo(10_000L);
        });

        WireClient honest = connect();
        RequestHeader header = honest.send(new ApiVersionsRequest.Builder().build((short) 3), 1);
        ApiVersionsResponse answer = (ApiVersionsResponse) honest.receive(header);
        assertThat(Errors.forCode(answer.data().errorCode())).isEqualTo(Errors.NONE);

        holder.close();
        await().atMost(WITHIN).until(() -> memory.reserved() == 0);
    }
}
