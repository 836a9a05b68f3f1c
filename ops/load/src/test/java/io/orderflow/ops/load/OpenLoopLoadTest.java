package io.orderflow.ops.load;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class OpenLoopLoadTest {
    private HttpServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.stop(0);
        }
    }

    @Test
    void sendsEveryDueRequestAndCountsOnlyTheMeasuredWindow() throws Exception {
        Set<String> issued = ConcurrentHashMap.newKeySet();
        URI uri = serve(exchange -> {
            exchange.getRequestBody().readAllBytes();
            String id = UUID.randomUUID().toString();
            issued.add(id);
            created(exchange, id);
        });
        OpenLoopLoad.Result result;
        try (OpenLoopLoad load = new OpenLoopLoad(uri, 100, 64, false)) {
            result = load.run(System.nanoTime(), Duration.ofSeconds(1), Duration.ofSeconds(1));
        }

        assertThat(result.scheduled()).isEqualTo(100);
        assertThat(result.accepted()).isEqualTo(100);
        assertThat(result.warmupAccepted()).isEqualTo(100);
        assertThat(result.failed()).isZero();
        assertThat(result.notSent()).isZero();
        assertThat(result.unanswered()).isZero();
        assertThat(result.latency().count()).isEqualTo(100);
        assertThat(result.serviceTime().count()).isEqualTo(100);
        assertThat(result.sendLag().count()).isEqualTo(100);
        // Keyed by the order id at the end of the Location, for the measured window's orders only.
        assertThat(result.acceptedAtMicros()).hasSize(100);
        assertThat(issued).hasSize(200).containsAll(result.acceptedAtMicros().keySet());
    }

    @Test
    void doesNotWaitForASlowServiceButCountsWhatItCouldNotSend() throws Exception {
        AtomicInteger received = new AtomicInteger();
        URI uri = serve(createdAfter(Duration.ofMillis(500), received));
        OpenLoopLoad.Result result;
        try (OpenLoopLoad load = new OpenLoopLoad(uri, 100, 10, false)) {
            result = load.run(System.nanoTime(), Duration.ZERO, Duration.ofSeconds(1));
        }

        // 100 fall due in the second; a closed loop of 10 would have sent 20, waiting on each answer. Open loop sends
        // whenever fewer than 10 are outstanding and counts the rest as not sent, instead of sending them late.
        assertThat(result.scheduled()).isEqualTo(100);
        assertThat(result.accepted() + result.notSent()).isEqualTo(100);
        assertThat(result.notSent()).isGreaterThanOrEqualTo(70);
        assertThat(received.get()).isEqualTo((int) result.accepted());
        assertThat(result.latency().percentileMillis(50)).isGreaterThanOrEqualTo(500);
    }

    @Test
    void sendsNothingWhileTheOnlyRequestItMayHaveOutstandingIsUnanswered() throws Exception {
        // The service answers the first request after the last one fell due: every other one meets a full bound.
        AtomicInteger received = new AtomicInteger();
        URI uri = serve(createdAfter(Duration.ofMillis(1500), received));
        OpenLoopLoad.Result result;
        try (OpenLoopLoad load = new OpenLoopLoad(uri, 20, 1, false)) {
            result = load.run(System.nanoTime(), Duration.ZERO, Duration.ofSeconds(1));
        }

        assertThat(result.scheduled()).isEqualTo(20);
        assertThat(result.accepted()).isEqualTo(1);
        assertThat(result.notSent()).isEqualTo(19);
        assertThat(received.get()).isEqualTo(1);
        assertThat(result.latency().percentileMillis(100)).isGreaterThanOrEqualTo(1500);
    }

    @Test
    void countsFailuresByKindWithTheFirstDetailInTheMeasuredWindowOnly() throws Exception {
        URI uri = serve(exchange -> {
            exchange.getRequestBody().readAllBytes();
            byte[] body = "no database".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(500, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        OpenLoopLoad.Result result;
        // Room for every request of the run in flight: on a busy machine the stub's answers may lag by more than a
        // second, and a request not sent would not be a failure to count.
        try (OpenLoopLoad load = new OpenLoopLoad(uri, 50, 1_000, false)) {
            result = load.run(System.nanoTime(), Duration.ofSeconds(1), Duration.ofSeconds(1));
        }

        assertThat(result.scheduled()).isEqualTo(50);
        assertThat(result.notSent()).isZero();
        assertThat(result.accepted()).isZero();
        assertThat(result.warmupAccepted()).isZero();
        assertThat(result.failures()).containsExactlyEntriesOf(Map.of("HTTP 500", 50L));
        assertThat(result.failureDetails()).containsExactlyEntriesOf(Map.of("HTTP 500", "no database"));
        assertThat(result.latency().count()).isZero();
        assertThat(result.acceptedAtMicros()).isEmpty();
    }

    @Test
    void countsARefusedConnectionAsAConnectException() throws Exception {
        int closedPort;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closedPort = socket.getLocalPort();
        }
        OpenLoopLoad.Result result;
        try (OpenLoopLoad load = new OpenLoopLoad(URI.create("http://127.0.0.1:" + closedPort), 10, 64, false)) {
            result = load.run(System.nanoTime(), Duration.ZERO, Duration.ofSeconds(1));
        }

        assertThat(result.scheduled()).isEqualTo(10);
        assertThat(result.failures()).containsExactlyEntriesOf(Map.of("ConnectException", 10L));
        assertThat(result.unanswered()).isZero();
    }

    @Test
    void sendsTheSeededOrdersAsJsonWithADistinctIdempotencyKeyEach() throws Exception {
        List<String> bodies = new CopyOnWriteArrayList<>();
        List<String> keys = new CopyOnWriteArrayList<>();
        List<String> contentTypes = new CopyOnWriteArrayList<>();
        URI uri = serve(exchange -> {
            bodies.add(new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
            keys.add(String.valueOf(exchange.getRequestHeaders().getFirst("Idempotency-Key")));
            contentTypes.add(String.valueOf(exchange.getRequestHeaders().getFirst("Content-Type")));
            created(exchange, UUID.randomUUID().toString());
        });
        try (OpenLoopLoad load = new OpenLoopLoad(uri, 50, 64, true)) {
            OpenLoopLoad.Result result = load.run(System.nanoTime(), Duration.ofSeconds(1), Duration.ofSeconds(1));
            assertThat(result.notSent()).isZero();
        }

        SplittableRandom seeded = new SplittableRandom(42);
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            expected.add(OpenLoopLoad.orderBody(seeded));
        }
        // Answers may overtake one another on the way back, but every body of the seeded sequence went out once.
        assertThat(bodies).containsExactlyInAnyOrderElementsOf(expected);
        assertThat(keys).hasSize(100).doesNotHaveDuplicates().allMatch(key -> UUID.fromString(key) != null);
        assertThat(contentTypes).hasSize(100).containsOnly("application/json");
    }

    @Test
    void leavesOutTheIdempotencyKeyUnlessAsked() throws Exception {
        List<String> keys = new CopyOnWriteArrayList<>();
        URI uri = serve(exchange -> {
            exchange.getRequestBody().readAllBytes();
            keys.add(String.valueOf(exchange.getRequestHeaders().getFirst("Idempotency-Key")));
            created(exchange, UUID.randomUUID().toString());
        });
        try (OpenLoopLoad load = new OpenLoopLoad(uri, 10, 64, false)) {
            load.run(System.nanoTime(), Duration.ZERO, Duration.ofSeconds(1));
        }

        assertThat(keys).hasSize(10).containsOnly("null");
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
                assertThat(item.get("sku").asText()).matches("sku-([1-9][0-9]{0,2}|1000)");
                assertThat(item.get("quantity").asInt()).isBetween(1, 5);
                assertThat(item.get("unitPrice").asText()).matches("[1-9][0-9]*\\.[0-9]{2}");
            }
        }
    }

    /** A stand-in for order-service that answers 201 with a Location after {@code delay} (its service time). */
    private static HttpHandler createdAfter(Duration delay, AtomicInteger received) {
        return exchange -> {
            exchange.getRequestBody().readAllBytes();
            received.incrementAndGet();
            try {
                Thread.sleep(delay);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            created(exchange, UUID.randomUUID().toString());
        };
    }

    private static void created(HttpExchange exchange, String orderId) throws IOException {
        exchange.getResponseHeaders().add("Location", "/orders/" + orderId);
        exchange.sendResponseHeaders(201, -1);
        exchange.close();
    }

    /** Serves {@code /orders} with {@code handler}, one virtual thread per request. */
    private URI serve(HttpHandler handler) throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        server.createContext("/orders", handler);
        server.start();
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }
}
