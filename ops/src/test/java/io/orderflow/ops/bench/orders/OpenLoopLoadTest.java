package io.orderflow.ops.bench.orders;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Duration;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class OpenLoopLoadTest {
    private final HttpClient client =
            HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private HttpServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.stop(0);
        }
    }

    @Test
    void sendsEveryDueRequestAndCountsOnlyTheMeasuredWindow() throws Exception {
        URI uri = serve(Duration.ZERO, new AtomicInteger());
        OpenLoopLoad load = new OpenLoopLoad(client, uri, 100, 64, false);

        OpenLoopLoad.Result result = load.run(System.nanoTime(), Duration.ofSeconds(1), Duration.ofSeconds(1));

        assertThat(result.scheduled()).isEqualTo(100);
        assertThat(result.accepted()).isEqualTo(100);
        assertThat(result.warmupAccepted()).isEqualTo(100);
        assertThat(result.failed()).isZero();
        assertThat(result.notSent()).isZero();
        assertThat(result.acceptedAtMicros()).hasSize(100);
        assertThat(result.latency().count()).isEqualTo(100);
    }

    @Test
    void doesNotWaitForASlowServiceButCountsWhatItCouldNotSend() throws Exception {
        AtomicInteger received = new AtomicInteger();
        URI uri = serve(Duration.ofMillis(500), received);
        OpenLoopLoad load = new OpenLoopLoad(client, uri, 100, 10, false);

        OpenLoopLoad.Result result = load.run(System.nanoTime(), Duration.ZERO, Duration.ofSeconds(1));

        // 100 fall due in the second; a closed loop of 10 would have sent 20, waiting on each answer. Open loop sends
        // whenever fewer than 10 are outstanding and counts the rest as not sent, instead of sending them late.
        assertThat(result.scheduled()).isEqualTo(100);
        assertThat(result.accepted() + result.notSent()).isEqualTo(100);
        assertThat(result.notSent()).isGreaterThanOrEqualTo(70);
        assertThat(received.get()).isEqualTo((int) result.accepted());
        assertThat(result.latency().percentileMillis(50)).isGreaterThanOrEqualTo(500);
    }

    @Test
    void orderBodiesAreValidRequestsOfTheOrdersApi() throws Exception {
        ObjectMapper json = new ObjectMapper();
        SplittableRandom random = new SplittableRandom(1);
        for (int i = 0; i < 1000; i++) {
            JsonNode order = json.readTree(OpenLoopLoad.orderBody(random));

            assertThat(order.get("customerId").asText()).startsWith("customer-");
            assertThat(order.get("currency").asText()).isEqualTo("EUR");
            assertThat(order.get("items").size()).isBetween(1, 3);
            for (JsonNode item : order.get("items")) {
                assertThat(item.get("sku").asText()).startsWith("SKU-");
                assertThat(item.get("quantity").asInt()).isBetween(1, 5);
                assertThat(item.get("unitPrice").asText()).matches("[1-9][0-9]*\\.[0-9]{2}");
            }
        }
    }

    /** A stand-in for order-service: 201 with a Location after {@code delay}, one thread per request. */
    private URI serve(Duration delay, AtomicInteger received) throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        server.createContext("/orders", exchange -> {
            exchange.getRequestBody().readAllBytes();
            received.incrementAndGet();
            try {
                Thread.sleep(delay);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            exchange.getResponseHeaders().add("Location", "/orders/" + UUID.randomUUID());
            exchange.sendResponseHeaders(201, -1);
            exchange.close();
        });
        server.start();
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }
}
