package io.orderflow.ops.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.orderflow.ops.bench.orders.OrderBodies;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The generator against a stand-in order-service that records every request: the new orders at the rate, each accepted
 * order's lifecycle in its order and in the mix's proportions, a progress line a second and the final report.
 */
class LoadGeneratorTest {

    private HttpServer server;
    private final Map<String, List<String>> transitions = new ConcurrentHashMap<>();
    private final List<String> customers = new CopyOnWriteArrayList<>();

    @AfterEach
    void stop() {
        if (server != null) {
            server.stop(0);
        }
    }

    private URI serve(int transitionStatus) throws IOException {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        server.createContext("/orders", exchange -> {
            String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            String path = exchange.getRequestURI().getPath();
            if (path.equals("/orders")) {
                String id = UUID.randomUUID().toString();
                customers.add(body.replaceAll(".*\"customerId\":\"([^\"]+)\".*", "$1"));
                transitions.put(id, new CopyOnWriteArrayList<>());
                exchange.getResponseHeaders().set("Location", "/orders/" + id);
                answer(exchange, 201);
            } else {
                String[] parts = path.split("/"); // "", "orders", id, action
                transitions.get(parts[2]).add(parts[3]);
                answer(exchange, transitionStatus);
            }
        });
        server.start();
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
    }

    private static void answer(HttpExchange exchange, int status) throws IOException {
        exchange.sendResponseHeaders(status, -1);
        exchange.close();
    }

    @Test
    void sendsTheRateForTheDurationAndEachAcceptedOrderLivesItsLifecycleInOrder() throws Exception {
        URI url = serve(200);
        ByteArrayOutputStream output = new ByteArrayOutputStream();
        LoadOptions options =
                new LoadOptions(url, 100, Duration.ofSeconds(3), OrderBodies.hotCustomer(0.5), 0.8, 0.5, 0.5, 64);

        boolean clean = LoadGenerator.run(options, new PrintStream(output, true, StandardCharsets.UTF_8));

        String printed = output.toString(StandardCharsets.UTF_8);
        assertThat(clean).as(printed).isTrue();
        assertThat(transitions).hasSize(300);
        assertThat(printed).contains("[   1s] accepted", "[   2s] accepted");
        assertThat(printed).contains("accepted 300 (100.0/s achieved of 100/s)", "p99");
        long paid = transitions.values().stream().filter(t -> t.contains("pay")).count();
        long shipped =
                transitions.values().stream().filter(t -> t.contains("ship")).count();
        long cancelled =
                transitions.values().stream().filter(t -> t.contains("cancel")).count();
        assertThat(paid).isBetween(200L, 280L); // 240 expected
        assertThat(shipped).isBetween(80L, 160L); // half the paid
        assertThat(cancelled).isBetween(50L, 130L); // half of those not shipped
        for (List<String> lifecycle : transitions.values()) {
            assertThat(List.of(
                            List.of(),
                            List.of("pay"),
                            List.of("pay", "ship"),
                            List.of("pay", "cancel"),
                            List.of("cancel")))
                    .contains(List.copyOf(lifecycle));
        }
        assertThat(customers.stream().filter("customer-hot"::equals).count()).isBetween(110L, 190L);
        assertThat(printed).contains("pay 200=" + paid);
    }

    @Test
    void aRefusedTransitionIsReportedAndMakesTheRunUnclean() throws Exception {
        URI url = serve(409);
        ByteArrayOutputStream output = new ByteArrayOutputStream();
        LoadOptions options = new LoadOptions(url, 20, Duration.ofSeconds(1), OrderBodies.uniform(), 1, 0, 0, 64);

        boolean clean = LoadGenerator.run(options, new PrintStream(output, true, StandardCharsets.UTF_8));

        assertThat(clean).isFalse();
        assertThat(output.toString(StandardCharsets.UTF_8)).contains("pay 409=20");
    }

    @Test
    void theCommandLineHasDefaultsAndRefusesBadValuesNamingThem() {
        LoadOptions defaults = LoadOptions.parse();
        assertThat(defaults.url()).isEqualTo(URI.create("http://localhost:8080"));
        assertThat(defaults.rate()).isEqualTo(100);
        assertThat(defaults.customers()).isEqualTo(OrderBodies.uniform());
        assertThat(LoadOptions.parse("--rate", "500", "--duration", "10", "--customers", "few:5", "--cancel", "0"))
                .isEqualTo(new LoadOptions(
                        URI.create("http://localhost:8080"),
                        500,
                        Duration.ofSeconds(10),
                        OrderBodies.fewCustomers(5),
                        0.8,
                        0.6,
                        0,
                        256));
        assertThatThrownBy(() -> LoadOptions.parse("--rate", "0")).hasMessageContaining("'--rate 0'");
        assertThatThrownBy(() -> LoadOptions.parse("--pay", "1.5")).hasMessageContaining("'--pay 1.5'");
        assertThatThrownBy(() -> LoadOptions.parse("--speed", "1")).hasMessageContaining("Unknown option '--speed'");
        assertThatThrownBy(() -> LoadOptions.parse("--rate")).hasMessageContaining("'--rate' needs a value");
    }
}
