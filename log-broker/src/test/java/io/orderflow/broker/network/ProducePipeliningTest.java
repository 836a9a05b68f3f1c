package io.orderflow.broker.network;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.broker.handler.PipelinedApiHandler;
import io.orderflow.broker.handler.RequestDispatcher;
import io.orderflow.frames.WireClient;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;
import org.apache.kafka.common.requests.ProduceRequest;
import org.apache.kafka.common.requests.ProduceResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A Produce's wait (for its fsync) does not hold up the next pipelined Produce of the same connection, while
 * answers still leave in request order and any other request waits until every earlier one is answered. The
 * Produce handler here is a stub whose wait ends when the test opens its gate.
 */
class ProducePipeliningTest {
    private ServerSocketChannel listener;
    private SocketChannel accepted;
    private WireClient client;
    private final List<String> events = Collections.synchronizedList(new ArrayList<>());
    private final List<CountDownLatch> gates = List.of(new CountDownLatch(1), new CountDownLatch(1));
    private final CountDownLatch bothStarted = new CountDownLatch(2);

    @BeforeEach
    void connect() throws IOException {
        listener = ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0));
        client = WireClient.connect(((InetSocketAddress) listener.getLocalAddress()).getPort());
        accepted = listener.accept();
    }

    @AfterEach
    void close() throws IOException {
        gates.forEach(CountDownLatch::countDown);
        client.close();
        accepted.close();
        listener.close();
    }

    private Connection connection() {
        PipelinedApiHandler<ProduceRequest> produce = (c, request) -> {
            int n = request.data().timeoutMs(); // the test numbers its Produce requests by their timeout
            events.add("start produce " + n);
            bothStarted.countDown();
            return () -> {
                try {
                    gates.get(n - 1).await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                events.add("answer produce " + n);
                return new ProduceResponse(new ProduceResponseData());
            };
        };
        RequestDispatcher dispatcher = RequestDispatcher.builder()
                .register(ApiKeys.PRODUCE, 3, 12, produce)
                .register(ApiKeys.METADATA, 12, (c, request) -> {
                    events.add("metadata");
                    return new MetadataResponse(new MetadataResponseData(), request.version());
                })
                .build();
        return new Connection(
                "conn-test",
                accepted,
                dispatcher,
                NetworkLimits.DEFAULTS,
                new NetworkStats(),
                ConnectionThreads.PLATFORM,
                () -> {});
    }

    private static ProduceRequest produce(int n) {
        return ProduceRequest.builder(
                        new ProduceRequestData().setAcks((short) -1).setTimeoutMs(n))
                .build((short) 12);
    }

    @Test
    void aProduceStartsWhileTheOneBeforeItWaitsAndAnswersKeepRequestOrder() throws Exception {
        Thread serving = Thread.ofVirtual().start(connection());
        RequestHeader first = client.send(produce(1), 101);
        RequestHeader second = client.send(produce(2), 102);
        RequestHeader metadata = client.send(new MetadataRequest.Builder(List.of("t"), false).build((short) 12), 103);

        // Both Produce requests do their work although the first one's wait has not ended.
        assertThat(bothStarted.await(15, TimeUnit.SECONDS)).isTrue();

        // The second wait ends first; its answer still leaves after the first one's.
        gates.get(1).countDown();
        gates.get(0).countDown();
        assertThat(client.receive(first)).isInstanceOf(ProduceResponse.class);
        assertThat(client.receive(second)).isInstanceOf(ProduceResponse.class);
        assertThat(client.receive(metadata)).isInstanceOf(MetadataResponse.class);
        client.shutdownOutput();
        serving.join();

        // The Metadata request ran only once both Produce requests were answered.
        assertThat(events)
                .containsExactly(
                        "start produce 1", "start produce 2", "answer produce 1", "answer produce 2", "metadata");
    }

    @Test
    void answersWhatIsPendingWhenTheClientStopsSending() throws Exception {
        Thread serving = Thread.ofVirtual().start(connection());
        RequestHeader first = client.send(produce(1), 201);
        RequestHeader second = client.send(produce(2), 202);
        client.shutdownOutput();
        assertThat(bothStarted.await(15, TimeUnit.SECONDS)).isTrue();

        gates.forEach(CountDownLatch::countDown);
        assertThat(client.receive(first)).isInstanceOf(ProduceResponse.class);
        assertThat(client.receive(second)).isInstanceOf(ProduceResponse.class);
        serving.join();
        assertThat(client.closedByBroker()).isTrue();
    }
}
