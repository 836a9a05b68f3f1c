package io.orderflow.lag;

import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * {@code orderflow.lag-monitor.timeout}: a cluster that accepts connections and never answers makes a reading give up
 * after the configured 500 ms (not the default 10 s), and {@code GET /lag} says so.
 */
@QuarkusTest
@WithTestResource(LagTimeoutTest.SilentBroker.class)
class LagTimeoutTest {

    @Test
    void aReadingOfAClusterThatNeverAnswersIsAbandonedAfterTheConfiguredTimeout() {
        // Well under the default timeout of 10 s: only the configured 500 ms can end a reading in time.
        await().atMost(Duration.ofSeconds(5))
                .until(
                        () -> given().get("/lag").then().extract().asString(),
                        body -> body.contains("TimeoutException"));
        given().get("/lag").then().statusCode(503).contentType("application/problem+json");
    }

    /** A TCP listener that accepts every connection and never writes a byte. */
    public static class SilentBroker implements QuarkusTestResourceLifecycleManager {

        private ServerSocket server;
        private final List<Socket> held = new CopyOnWriteArrayList<>();

        @Override
        public Map<String, String> start() {
            try {
                server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            Thread.ofPlatform().daemon().name("silent-broker").start(() -> {
                while (!server.isClosed()) {
                    try {
                        held.add(server.accept());
                    } catch (IOException e) {
                        return; // closed
                    }
                }
            });
            return Map.of(
                    "kafka.bootstrap.servers",
                    "127.0.0.1:" + server.getLocalPort(),
                    "orderflow.lag-monitor.timeout",
                    "500ms");
        }

        @Override
        public void stop() {
            try {
                server.close();
                for (Socket socket : held) {
                    socket.close();
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
