package io.orderflow.ops.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.orderflow.broker.server.Broker;
import io.orderflow.broker.server.BrokerConfig;
import io.orderflow.contracts.EventCodec;
import io.orderflow.contracts.EventEnvelope;
import io.orderflow.contracts.EventVersion;
import io.orderflow.contracts.Topics;
import io.orderflow.kafka.KafkaClientSettings;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The generator against a stand-in order-service that records every request: the new orders at the rate, each accepted
 * order's lifecycle in its order and in the mix's proportions, a progress line a second and the final report.
 */
class LoadGeneratorTest {

    private HttpServer server;
    private final Map<String, List<String>> transitions = new ConcurrentHashMap<>();
    private final List<String> customers = new CopyOnWriteArrayList<>();
    private final Set<String> rejected = ConcurrentHashMap.newKeySet();

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
                if (body.contains(OrderBodies.SOLD_OUT)) {
                    rejected.add(id);
                }
                exchange.getResponseHeaders().set("Location", "/orders/" + id);
                answer(exchange, 201);
            } else if (exchange.getRequestMethod().equals("GET")) {
                // inventory's answer, as the saga leaves it on the order
                String id = path.substring("/orders/".length());
                String status = rejected.contains(id) ? "REJECTED" : "CONFIRMED";
                byte[] order =
                        ("{\"id\":\"" + id + "\",\"status\":\"" + status + "\"}").getBytes(StandardCharsets.UTF_8);
                exchange.sendResponseHeaders(200, order.length);
                exchange.getResponseBody().write(order);
                exchange.close();
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
    void ordersForTheSoldOutSkuAreRejectedByInventoryAndNeitherPaidNorFailures() throws Exception {
        URI url = serve(200);
        ByteArrayOutputStream output = new ByteArrayOutputStream();
        LoadOptions options = new LoadOptions(
                url, 100, Duration.ofSeconds(2), OrderBodies.uniform().withOutOfStock(0.3), 1, 0, 0, 64);

        boolean clean = LoadGenerator.run(options, new PrintStream(output, true, StandardCharsets.UTF_8));

        String printed = output.toString(StandardCharsets.UTF_8);
        assertThat(clean).as(printed).isTrue();
        assertThat(rejected).hasSizeBetween(30, 90); // 60 expected of 200
        for (Map.Entry<String, List<String>> order : transitions.entrySet()) {
            assertThat(order.getValue())
                    .as(order.getKey())
                    .isEqualTo(rejected.contains(order.getKey()) ? List.of() : List.of("pay"));
        }
        assertThat(printed)
                .contains("inventory REJECTED=" + rejected.size(), "inventory CONFIRMED=" + (200 - rejected.size()));
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
        assertThatThrownBy(() -> LoadOptions.parse("--rate", "0"))
                .hasMessageContaining("'--rate': '0' is not a whole number above 0");
        assertThatThrownBy(() -> LoadOptions.parse("--pay", "1.5"))
                .hasMessageContaining("'--pay': '1.5' is not a probability from 0 to 1");
        assertThatThrownBy(() -> LoadOptions.parse("--speed", "1")).hasMessageContaining("Unknown options: '--speed'");
        assertThatThrownBy(() -> LoadOptions.parse("--rate"))
                .hasMessageContaining("Missing required parameter for option '--rate'");
    }

    /**
     * {@code --event-versions 1.0:0.25,2.0:0.25,1.1:0.5} at 20 orders/s for 2 s: 20 orders through order-service, and 10
     * OrderCreated records at 1.0 and 10 at 2.0 on the topic, written as a relay writes them.
     */
    @Test
    void ordersAtOtherVersionsGoOnTheTopicDirectlyAtTheirShare(@TempDir Path brokerDirectory) throws Exception {
        URI url = serve(200);
        try (Broker broker = Broker.start(
                BrokerConfig.from(Map.of(
                        "listen.host", "127.0.0.1",
                        "port", "0",
                        "advertised.host", "localhost",
                        "log.dirs", brokerDirectory.toString(),
                        "metrics.port", "0")),
                Clock.systemUTC())) {
            String bootstrap = "localhost:" + broker.node().port();
            try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
                admin.createTopics(List.of(new NewTopic(Topics.ORDERS, 3, (short) 1)))
                        .all()
                        .get();
            }
            ByteArrayOutputStream output = new ByteArrayOutputStream();
            LoadOptions options = new LoadOptions(
                    url,
                    20,
                    Duration.ofSeconds(2),
                    OrderBodies.uniform(),
                    0,
                    0,
                    0,
                    64,
                    EventVersionMix.parse("1.0:0.25,2.0:0.25,1.1:0.5"),
                    KafkaClientSettings.plaintext(bootstrap));

            boolean clean = LoadGenerator.run(options, new PrintStream(output, true, StandardCharsets.UTF_8));

            String printed = output.toString(StandardCharsets.UTF_8);
            assertThat(clean).as(printed).isTrue();
            assertThat(transitions).hasSize(20);
            assertThat(printed).contains("OrderCreated 1.0 25%, 1.1 50%, 2.0 25%", "{1.0=10, 2.0=10}, failed 0");
            Map<String, Integer> versions = new java.util.TreeMap<>();
            EventCodec codec = new EventCodec();
            try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(
                    Map.of(
                            ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG,
                            bootstrap,
                            ConsumerConfig.AUTO_OFFSET_RESET_CONFIG,
                            "earliest",
                            ConsumerConfig.GROUP_ID_CONFIG,
                            "load-test"),
                    new StringDeserializer(),
                    new ByteArrayDeserializer())) {
                consumer.subscribe(List.of(Topics.ORDERS));
                await().atMost(Duration.ofSeconds(30)).until(() -> {
                    for (ConsumerRecord<String, byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                        EventEnvelope envelope = codec.decode(record.value());
                        assertThat(record.key()).isEqualTo(envelope.orderId());
                        assertThat(new String(
                                        record.headers()
                                                .lastHeader("eventVersion")
                                                .value(),
                                        StandardCharsets.UTF_8))
                                .isEqualTo(envelope.eventVersion().toString());
                        versions.merge(envelope.eventVersion().toString(), 1, Integer::sum);
                    }
                    return versions.values().stream()
                                    .mapToInt(Integer::intValue)
                                    .sum()
                            >= 20;
                });
            }
            assertThat(versions).isEqualTo(Map.of("1.0", 10, "2.0", 10));
        }
    }

    @Test
    void anEventVersionMixIsParsedAndABadOneIsRefusedNamingIt() {
        assertThat(LoadOptions.parse("--event-versions", "1.0:0.2,1.1:0.8").eventVersions())
                .isEqualTo(new EventVersionMix(Map.of(EventVersion.V1_0, 0.2, EventVersion.V1_1, 0.8)));
        assertThatThrownBy(() -> LoadOptions.parse("--event-versions", "1.0:0.5,1.1:0.4"))
                .hasMessageContaining("add up to 0.9");
        assertThatThrownBy(() -> LoadOptions.parse("--event-versions", "3.0:1")).hasMessageContaining("3.0");
        assertThatThrownBy(() -> LoadOptions.parse("--event-versions", "1.0:1"))
                .hasMessageContaining("sends no order through order-service");
    }
}
