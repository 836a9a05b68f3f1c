package io.orderflow.broker.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.frames.WireClient;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * 10,000 connections opened and held against a broker with its default settings but the connection limits (10,000
 * by default, and all come from 127.0.0.1): every one is kept and served, and one more client is answered beside them. The broker runs in a
 * JVM of its own, since one JVM may not hold both ends' file descriptors here.
 */
class ManyConnectionsTest {
    private static final int HELD = 10_000;

    @TempDir
    Path dir;

    @Test
    void tenThousandConnectionsAreHeldAndServed() throws Exception {
        List<Socket> held = new ArrayList<>(HELD);
        try (ChildBroker broker = ChildBroker.start(
                dir.resolve("data"),
                List.of("-Xmx256m"),
                List.of(
                        "--max.connections=" + (HELD + 10),
                        "--max.connections.per.ip.overrides=127.0.0.1:" + (HELD + 10)))) {
            InetSocketAddress address = new InetSocketAddress("127.0.0.1", broker.port());
            for (int i = 0; i < HELD; i++) {
                Socket socket = new Socket();
                held.add(socket);
                socket.connect(address);
            }

            try (WireClient client = WireClient.connect(broker.port())) {
                assertAnswers(client, 1);
            }
            // Every hundredth held connection is still open and answers.
            for (int i = 0; i < HELD; i += 100) {
                assertAnswers(held.get(i), i + 1);
            }
            assertThat(broker.process().isAlive()).isTrue();
            assertThat(broker.output()).doesNotContain("Refusing a connection").doesNotContain("OutOfMemoryError");
        } finally {
            for (Socket socket : held) {
                socket.close();
            }
        }
    }

    private static void assertAnswers(WireClient client, int correlationId) throws IOException {
        RequestHeader header = client.send(new ApiVersionsRequest.Builder().build((short) 3), correlationId);
        ApiVersionsResponse answer = (ApiVersionsResponse) client.receive(header);
        assertThat(Errors.forCode(answer.data().errorCode())).isEqualTo(Errors.NONE);
    }

    private static void assertAnswers(Socket socket, int correlationId) throws IOException {
        assertAnswers(WireClient.over(socket), correlationId); // closed with the others
    }
}
