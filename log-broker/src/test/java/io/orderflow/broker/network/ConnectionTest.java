package io.orderflow.broker.network;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.broker.handler.ApiVersionsHandler;
import io.orderflow.broker.handler.RequestDispatcher;
import io.orderflow.frames.WireClient;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** One {@link Connection} on the test's own thread, over a loopback socket pair, with a stub dispatcher. */
class ConnectionTest {
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    private ServerSocketChannel listener;
    private SocketChannel client;
    private SocketChannel accepted;
    private final List<String> topicsSeen = new ArrayList<>();

    @BeforeEach
    void connect() throws IOException {
        listener = ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0));
        client = SocketChannel.open(listener.getLocalAddress());
        accepted = listener.accept();
    }

    @AfterEach
    void close() throws IOException {
        client.close();
        accepted.close();
        listener.close();
    }

    private Connection connection() {
        AtomicReference<RequestDispatcher> self = new AtomicReference<>();
        RequestDispatcher dispatcher = RequestDispatcher.builder()
                .register(
                        ApiKeys.API_VERSIONS,
                        4,
                        new ApiVersionsHandler(
                                self::get,
                                new io.orderflow.broker.handler.BrokerNode(1, "localhost", 9092, "test-cluster")))
                .register(ApiKeys.METADATA, 12, (c, request) -> {
                    topicsSeen.addAll(((MetadataRequest) request).topics());
                    return new MetadataResponse(new MetadataResponseData(), request.version());
                })
                .build();
        self.set(dispatcher);
        return new Connection(
                "conn-test",
                accepted,
                dispatcher,
                new NetworkLimits(100 * 1024 * 1024, 10),
                new NetworkStats(),
                ConnectionThreads.VIRTUAL,
                () -> {});
    }

    @Test
    void aSizeFieldDoesNotReserveTheMemoryItClaims() throws IOException {
        // 64 MiB claimed, 10 bytes sent, then the client hangs up.
        client.write(ByteBuffer.allocate(14).putInt(64 * 1024 * 1024).flip());
        client.shutdownOutput();

        long before = THREADS.getCurrentThreadAllocatedBytes();
        connection().run();
        long allocated = THREADS.getCurrentThreadAllocatedBytes() - before;

        assertThat(accepted.isOpen()).isFalse();
        assertThat(allocated).isLessThan(1024 * 1024);
    }

    @Test
    void reassemblesALargeFrameThatArrivesInPieces() throws Exception {
        List<String> topics = new ArrayList<>();
        for (int i = 0; i < 20_000; i++) {
            topics.add("topic-" + i);
        }
        RequestHeader header = new RequestHeader(ApiKeys.METADATA, (short) 12, "pieces", 31);
        byte[] frame = WireClient.withSize(
                WireClient.frame(new MetadataRequest.Builder(topics, false).build((short) 12), header));
        assertThat(frame.length).isGreaterThan(4 * 64 * 1024);

        Thread serving = Thread.ofVirtual().start(connection());
        for (int at = 0; at < frame.length; at += 7_001) {
            client.write(ByteBuffer.wrap(frame, at, Math.min(7_001, frame.length - at)));
        }
        ByteBuffer size = ByteBuffer.allocate(4);
        while (size.hasRemaining()) {
            client.read(size);
        }
        ByteBuffer answer = ByteBuffer.allocate(size.flip().getInt());
        while (answer.hasRemaining()) {
            client.read(answer);
        }
        AbstractResponse response = AbstractResponse.parseResponse(answer.flip(), header);
        client.shutdownOutput();
        serving.join();

        assertThat(response).isInstanceOf(MetadataResponse.class);
        assertThat(topicsSeen).isEqualTo(topics);
    }
}
