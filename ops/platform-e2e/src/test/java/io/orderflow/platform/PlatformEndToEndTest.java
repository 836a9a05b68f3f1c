package io.orderflow.platform;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.opentelemetry.proto.trace.v1.Span.SpanKind;
import io.orderflow.contracts.EventCatalog;
import io.orderflow.contracts.EventCodec;
import io.orderflow.contracts.EventEnvelope;
import io.orderflow.contracts.Topics;
import io.orderflow.kafka.KafkaClientSettings;
import io.orderflow.ops.drill.BrokerFailureDrill;
import io.orderflow.ops.drill.CrashConsumerDrill;
import io.orderflow.ops.drill.DrillReport;
import io.orderflow.ops.drill.DrillTarget;
import io.orderflow.ops.drill.DuplicateEventDrill;
import io.orderflow.ops.drill.HotPartitionDrill;
import io.orderflow.ops.drill.SagaDrill;
import io.orderflow.ops.drill.SchemaChangeDrill;
import io.orderflow.ops.drill.ServiceControl;
import io.orderflow.ops.drill.SlowConsumerDrill;
import io.orderflow.ops.drill.TrafficSpikeDrill;
import io.orderflow.ops.load.OpenLoopLoad;
import io.orderflow.ops.load.OrderBodies;
import io.orderflow.ops.replay.ReplayCommandLine;
import io.orderflow.testing.HeadlessChromium;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The whole platform as a user runs it: {@code ./run-platform}'s launcher in a process of its own, from the
 * repository's root, with the packaged services, exporting traces to {@link OtlpTraceCollector}. Concurrent clients
 * drive orders through their lifecycles over HTTP (with retried requests and refused transitions mixed in, each paid
 * order first confirmed by inventory's answer, some rejected as sold out) and a stock consumer finds, for every order,
 * exactly the events of the changes that were accepted, keyed by the order, in order; an order reaches the three
 * consumers, and one trace links them and the saga's round trip back to its confirmation; an in-stock order is
 * confirmed, paid and shipped and a sold-out one rejected, each mailed and counted in its minute; a real Prometheus
 * scrapes every part; every drill's short version passes (crash-consumer twice: a consumer of orders, and the saga's
 * consumer in order-service); and, last, {@code status}, {@code logs}, {@code kill}, {@code start} and {@code stop} answer
 * from another terminal, a crashed service is reported and replayed ({@code ops/bin/replay}), and every process is
 * gone afterwards.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class PlatformEndToEndTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration WITHIN = Duration.ofSeconds(120);
    private static final List<String> INSTANCES = List.of(
            "order-service",
            "outbox-relay",
            "inventory-service",
            "inventory-outbox-relay",
            "notification-service",
            "analytics-service",
            "lag-monitor");

    @TempDir
    static Path brokerDirectory;

    @TempDir
    static Path output;

    /**
     * The services inherit the launcher's environment. The lag monitor judges statuses over 10 s instead of 60, and
     * the consumers take at most 20 records a poll instead of 500, so that the slow-consumer drill's short version sees
     * WARN within seconds: a slowed consumer commits once a batch, and a batch must take less than the window. The
     * poll size is Kafka's default for every channel ({@code kafka.max.poll.records}), not the {@code orders}
     * channel's ({@code MP_MESSAGING_INCOMING_ORDERS_*}): order-service has messaging channels of its own now, and
     * settings for a channel {@code orders} it does not have stop it from starting.
     */
    private static final LauncherProcesses launchers = new LauncherProcesses(
            Path.of("target", "launcher", "postgres"),
            Map.of("ORDERFLOW_LAG_MONITOR_WINDOW", "10s", "KAFKA_MAX_POLL_RECORDS", "20"));

    private static OtlpTraceCollector traces;
    private static Process launcher;
    private static Path launcherLog;
    private static PlatformState state;
    private static URI orders;

    private final HttpClient http = HttpClient.newHttpClient();

    @BeforeAll
    static void startPlatform() throws Exception {
        traces = OtlpTraceCollector.start();
        launcherLog = output.resolve("launcher.log");
        launcher = launchers.platform(
                launcherLog,
                brokerDirectory,
                "--otlp-endpoint",
                traces.endpoint().toString(),
                "--otlp-protocol",
                "http/protobuf");
        await().atMost(WITHIN)
                .until(() ->
                        LauncherProcesses.read(launcherLog).contains(PlatformLauncher.READY) || !launcher.isAlive());
        assertThat(LauncherProcesses.read(launcherLog)).contains(PlatformLauncher.READY);
        state = launchers.state().orElseThrow();
        assertThat(state.services()).extracting(PlatformState.Service::name).isEqualTo(INSTANCES);
        orders = service("order-service").resolve("/orders");
    }

    @AfterAll
    static void stopPlatform() throws Exception {
        launchers.close();
        if (traces != null) {
            traces.close();
        }
    }

    @Test
    @Order(0)
    void everyServiceReportedReadyAfterItsWarmUp() throws Exception {
        Map<String, Integer> rounds = Map.of(
                "order-service", 300, "inventory-service", 200, "notification-service", 200, "analytics-service", 200);
        for (Map.Entry<String, Integer> service : rounds.entrySet()) {
            JsonNode warmUp = null;
            for (JsonNode check : JSON.readTree(get(service(service.getKey()), "/q/health/ready"))
                    .get("checks")) {
                if (check.get("name").asText().equals("warm-up")) {
                    warmUp = check;
                }
            }
            assertThat(warmUp).as(service.getKey() + "'s warm-up check").isNotNull();
            assertThat(warmUp.get("status").asText()).isEqualTo("UP");
            assertThat(warmUp.get("data").get("completed").asInt())
                    .as(service.getKey() + "'s rounds")
                    .isEqualTo(service.getValue());
            assertThat(warmUp.get("data").has("failure")).isFalse();
        }
    }

    @Test
    @Order(1)
    void everyAcceptedChangeOfEveryOrderReachesTheTopicOnceAndInOrder() throws Exception {
        int orderCount = 40;
        Map<String, List<String>> expected = new ConcurrentHashMap<>();
        try (ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<?>> done = new ArrayList<>();
            for (int i = 0; i < orderCount; i++) {
                int script = i % 5;
                done.add(clients.submit(() -> {
                    drive(script, expected);
                    return null;
                }));
            }
            for (Future<?> future : done) {
                future.get();
            }
        }
        int total = expected.values().stream().mapToInt(List::size).sum();

        Map<String, List<EventEnvelope>> published = readEvents(expected.keySet(), total);

        assertThat(published.keySet()).isEqualTo(expected.keySet());
        expected.forEach((orderId, types) -> assertThat(published.get(orderId).stream()
                        .map(EventEnvelope::eventType)
                        .toList())
                .as("events of order %s, in log order", orderId)
                .isEqualTo(types));
        assertThat(everyServiceAlive()).isTrue();
    }

    @Test
    @Order(2)
    void anOrderPlacedOverHttpReachesInventoryNotificationAndAnalyticsAndInventorysOutcomeIsPublished()
            throws Exception {
        String customer = "c-" + UUID.randomUUID();
        String body = "{\"customerId\":\"" + customer + "\",\"currency\":\"EUR\","
                + "\"items\":[{\"sku\":\"sku-7\",\"quantity\":2,\"unitPrice\":\"3.00\"}]}";
        HttpResponse<String> created = post(orders, body, null);
        assertThat(created.statusCode()).isEqualTo(201);
        String id = JSON.readTree(created.body()).get("id").asText();

        await().atMost(WITHIN)
                .until(() ->
                        get(service("inventory-service"), "/reservations/" + id).contains("\"RESERVED\""));
        await().atMost(WITHIN)
                .until(() -> get(service("notification-service"), "/notifications?orderId=" + id)
                        .contains("\"SENT\""));
        await().atMost(WITHIN)
                .until(() ->
                        get(service("analytics-service"), "/analytics/minutes").contains("\"OrderCreated\""));
        assertThat(JSON.readTree(get(service("notification-service"), "/notifications?orderId=" + id))
                        .get(0)
                        .get("recipient")
                        .asText())
                .startsWith(customer + "@");
        assertThat(readInventoryOutcome(id)).isEqualTo("InventoryReserved");
        // The lag monitor sees the three groups on the orders topic, each caught up once its commit lands.
        await().atMost(WITHIN).until(() -> {
            JsonNode groups = JSON.readTree(get(service("lag-monitor"), "/lag")).get("groups");
            return groups != null
                    && List.of("inventory-service", "notification-service", "analytics-service").stream()
                            .allMatch(group -> caughtUpOnOrders(groups, group));
        });
        assertThat(everyServiceAlive()).isTrue();
    }

    /**
     * The saga as a customer meets it, one order of each kind from {@code POST /orders}: one in stock is CONFIRMED once
     * inventory reserved it, then paid and shipped; one of the sold-out SKU is REJECTED with inventory's reason and the
     * short SKU, and paying it is refused with a problem naming REJECTED. notification-service mailed the first one's
     * creation and shipment and the second one's creation and rejection; analytics-service counts each answer in its
     * minute, as many as there are on {@code orders} for that minute.
     */
    @Test
    @Order(2)
    void anInStockOrderIsConfirmedPaidAndShippedAndASoldOutOneRejectedMailedAndCountedInItsMinute() throws Exception {
        long since = System.currentTimeMillis() - 1_000;
        String inStock = placeOrder("sku-12");
        String soldOut = placeOrder(OrderBodies.SOLD_OUT);

        assertThat(awaitStatus(inStock, "CONFIRMED").get("version").asLong()).isEqualTo(2);
        JsonNode rejected = awaitStatus(soldOut, "REJECTED");
        assertThat(rejected.get("version").asLong()).isEqualTo(2);
        assertThat(rejected.get("rejectionReason").asText()).isNotBlank();
        assertThat(rejected.get("shortSkus")).hasToString("[\"" + OrderBodies.SOLD_OUT + "\"]");
        HttpResponse<String> paid = post(orders.resolve("/orders/" + inStock + "/pay"), "{}", null);
        assertThat(paid.statusCode()).as(paid.body()).isEqualTo(200);
        assertThat(JSON.readTree(paid.body()).get("status").asText()).isEqualTo("PAID");
        HttpResponse<String> shipped = post(orders.resolve("/orders/" + inStock + "/ship"), "{}", null);
        assertThat(shipped.statusCode()).as(shipped.body()).isEqualTo(200);
        assertThat(JSON.readTree(shipped.body()).get("status").asText()).isEqualTo("SHIPPED");
        HttpResponse<String> refused = post(orders.resolve("/orders/" + soldOut + "/pay"), "{}", null);
        assertThat(refused.statusCode()).isEqualTo(409);
        assertThat(refused.headers().firstValue("Content-Type"))
                .hasValueSatisfying(type -> assertThat(type).startsWith("application/problem+json"));
        assertThat(refused.body()).contains("cannot pay order " + soldOut + ": it is REJECTED");

        await().atMost(WITHIN)
                .ignoreExceptions()
                .until(() -> sentMails(inStock).equals(List.of("OrderCreated", "OrderShipped")));
        await().atMost(WITHIN)
                .ignoreExceptions()
                .until(() -> sentMails(soldOut).equals(List.of("OrderCreated", "OrderRejected")));

        Map<String, EventEnvelope> answers = new LinkedHashMap<>();
        await().atMost(WITHIN).until(() -> {
            answers.clear();
            for (EventEnvelope event : eventsOnOrders(since)) {
                if ((event.orderId().equals(inStock) && event.eventType().equals("OrderConfirmed"))
                        || (event.orderId().equals(soldOut) && event.eventType().equals("OrderRejected"))) {
                    answers.put(event.eventType(), event);
                }
            }
            return answers.size() == 2;
        });
        for (EventEnvelope answer : answers.values()) {
            Instant minute = answer.occurredAt().truncatedTo(ChronoUnit.MINUTES);
            long[] counted = new long[2];
            await().atMost(WITHIN).ignoreExceptions().until(() -> {
                counted[0] = eventsOnOrders(minute.toEpochMilli()).stream()
                        .filter(event -> event.eventType().equals(answer.eventType())
                                && !event.occurredAt().isBefore(minute)
                                && event.occurredAt().isBefore(minute.plusSeconds(60)))
                        .map(EventEnvelope::eventId)
                        .distinct()
                        .count();
                counted[1] = analyticsCount(minute, answer.eventType());
                return counted[0] >= 1 && counted[0] == counted[1];
            });
            assertThat(counted[1])
                    .as("%s in minute %s", answer.eventType(), minute)
                    .isEqualTo(counted[0]);
        }
    }

    /** Places an order of one unit of {@code sku} for a new customer; returns its id, the order CREATED. */
    private String placeOrder(String sku) throws Exception {
        String body = "{\"customerId\":\"c-" + UUID.randomUUID() + "\",\"currency\":\"EUR\",\"items\":[{\"sku\":\""
                + sku + "\",\"quantity\":1,\"unitPrice\":\"4.00\"}]}";
        HttpResponse<String> created = post(orders, body, null);
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        JsonNode order = JSON.readTree(created.body());
        assertThat(order.get("status").asText()).isEqualTo("CREATED");
        return order.get("id").asText();
    }

    /** The event types of the order's mails that were sent, oldest first. */
    private List<String> sentMails(String orderId) throws Exception {
        List<String> sent = new ArrayList<>();
        for (JsonNode mail : JSON.readTree(get(service("notification-service"), "/notifications?orderId=" + orderId))) {
            if (mail.get("status").asText().equals("SENT")) {
                sent.add(mail.get("eventType").asText());
            }
        }
        return sent;
    }

    /** analytics-service's count of {@code type} events in {@code minute}, 0 if it has none. */
    private long analyticsCount(Instant minute, String type) throws Exception {
        JsonNode minutes = JSON.readTree(get(
                service("analytics-service"), "/analytics/minutes?from=" + minute + "&to=" + minute.plusSeconds(60)));
        for (JsonNode counted : minutes) {
            if (Instant.parse(counted.get("minute").asText()).equals(minute)) {
                return counted.path("events").path(type).asLong(0);
            }
        }
        return 0;
    }

    /** The event envelopes on {@code orders} in records timestamped {@code sinceMillis} or later, up to its end. */
    private static List<EventEnvelope> eventsOnOrders(long sinceMillis) {
        EventCodec codec = new EventCodec();
        List<EventEnvelope> events = new ArrayList<>();
        try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(
                cluster(PlatformPrincipals.ADMIN).consumer(Map.of()),
                new StringDeserializer(),
                new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = consumer.partitionsFor(Topics.ORDERS).stream()
                    .map(info -> new TopicPartition(info.topic(), info.partition()))
                    .toList();
            consumer.assign(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
            Map<TopicPartition, Long> times = new LinkedHashMap<>();
            partitions.forEach(partition -> times.put(partition, sinceMillis));
            consumer.offsetsForTimes(times)
                    .forEach((partition, offset) ->
                            consumer.seek(partition, offset == null ? end.get(partition) : offset.offset()));
            long deadline = System.nanoTime() + WITHIN.toNanos();
            while (partitions.stream().anyMatch(partition -> consumer.position(partition) < end.get(partition))) {
                assertThat(System.nanoTime())
                        .as("orders read to its end in time")
                        .isLessThan(deadline);
                for (ConsumerRecord<String, byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                    if (record.offset() < end.get(new TopicPartition(record.topic(), record.partition()))) {
                        try {
                            events.add(codec.decode(record.value()));
                        } catch (RuntimeException notAnEnvelope) {
                            // a drill's poison record: no event
                        }
                    }
                }
            }
        }
        return events;
    }

    private static DrillTarget drillTarget() {
        return new DrillTarget(
                service("order-service"),
                service("inventory-service"),
                service("notification-service"),
                service("analytics-service"),
                service("lag-monitor"),
                cluster(DrillTarget.PRINCIPAL),
                adminToken());
    }

    /**
     * Security as the platform starts by default: the broker takes SASL_SSL logins only, each part is its own
     * principal with only its ACLs (the load generator may write {@code orders} but not read it; inventory-service
     * may read it but not write it), a wrong password is refused, the secrets are readable by their owner only, and
     * the stock adjustment wants the admin token.
     */
    @Test
    @Order(2)
    void everyPartIsItsOwnPrincipalWithOnlyItsAclsAndAdminEndpointsWantTheToken() throws Exception {
        String bootstrap = state.broker().bootstrapServers();
        try (Admin plaintext = Admin.create(Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 4000,
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 2000))) {
            assertThatThrownBy(() -> plaintext.listTopics().names().get())
                    .as("a PLAINTEXT client on the SASL_SSL port")
                    .hasCauseInstanceOf(org.apache.kafka.common.errors.TimeoutException.class);
        }
        Map<String, Object> oneTry = Map.of(
                ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 15000, ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10000);
        try (KafkaConsumer<String, byte[]> load = new KafkaConsumer<>(
                cluster("ops-load").consumer(oneTry), new StringDeserializer(), new ByteArrayDeserializer())) {
            TopicPartition first = new TopicPartition(Topics.ORDERS, 0);
            load.assign(List.of(first));
            load.seekToBeginning(List.of(first));
            assertThatThrownBy(() -> load.poll(Duration.ofSeconds(10)))
                    .isInstanceOf(org.apache.kafka.common.errors.TopicAuthorizationException.class);
        }
        try (KafkaProducer<String, byte[]> inventory = new KafkaProducer<>(
                cluster("inventory-service").producer(Map.of(ProducerConfig.MAX_BLOCK_MS_CONFIG, 15000)),
                new StringSerializer(),
                new ByteArraySerializer())) {
            assertThatThrownBy(() -> inventory
                            .send(new ProducerRecord<>(Topics.ORDERS, "forged", new byte[] {1}))
                            .get(30, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(org.apache.kafka.common.errors.TopicAuthorizationException.class);
        }
        KafkaClientSettings wrongPassword = cluster("ops-drills")
                .with(
                        "sasl.jaas.config",
                        "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"ops-drills\""
                                + " password=\"not-the-password\";");
        try (Admin impostor = Admin.create(wrongPassword.admin(oneTry))) {
            assertThatThrownBy(() -> impostor.listTopics().names().get())
                    .hasCauseInstanceOf(org.apache.kafka.common.errors.SaslAuthenticationException.class);
        }
        assertThat(Files.getPosixFilePermissions(clientProperties("admin")))
                .containsExactlyInAnyOrder(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE);
        assertThat(Files.getPosixFilePermissions(PlatformSecrets.beside(launchers.postgresDirectory())))
                .containsExactlyInAnyOrder(
                        PosixFilePermission.OWNER_READ,
                        PosixFilePermission.OWNER_WRITE,
                        PosixFilePermission.OWNER_EXECUTE);

        URI stock = service("inventory-service").resolve("/inventory/sku-security");
        HttpRequest.Builder adjustment = HttpRequest.newBuilder(stock)
                .header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString("{\"onHand\": 7}"));
        assertThat(http.send(adjustment.build(), HttpResponse.BodyHandlers.ofString())
                        .statusCode())
                .isEqualTo(401);
        HttpResponse<String> allowed = http.send(
                adjustment.header("Authorization", "Bearer " + adminToken()).build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(allowed.statusCode()).as(allowed.body()).isEqualTo(200);
        assertThat(JSON.readTree(allowed.body()).get("onHand").asInt()).isEqualTo(7);
    }

    /**
     * {@code ops/bin/drill duplicate-event}'s short version on the running platform: the same event twice and a batch
     * re-sent, on orders and on inventory, one effect everywhere, every copy counted as a duplicate by each group.
     */
    @Test
    @Order(4)
    void theDuplicateEventDrillPasses() throws Exception {
        DrillReport report = new DuplicateEventDrill(drillTarget(), 5).run();

        String text = passed(report);
        assertThat(report.checks()).hasSize(8);
        assertThat(text)
                .contains("6 copies", "inventory-service skipped every copy as a duplicate", "PASS")
                .contains("order-service skipped every copy as a duplicate", "order-service confirmed each order once")
                .contains("duplicates counted for 6 copies on inventory");
    }

    /** {@code ops/bin/drill traffic-spike}'s short version: 3 orders/s, 30 for 4 s, 3 again; every group drains. */
    @Test
    @Order(5)
    void theTrafficSpikeDrillPasses() throws Exception {
        DrillReport report =
                new TrafficSpikeDrill(drillTarget(), 3, 10, Duration.ofSeconds(4), Duration.ofSeconds(4)).run();

        String text = passed(report);
        assertThat(text)
                .contains("30 orders/s (x10) for 4 s", "order-service answered every order")
                .containsPattern("inventory-service drained after the spike: peak [0-9,]+ records");
    }

    /**
     * {@code ops/bin/drill slow-consumer}'s short version: 10 orders/s, notification-service slowed to 200 ms a record (5
     * records/s) for 20 s: only its lag grows, it is WARN, and it drains once it has its speed back.
     */
    @Test
    @Order(6)
    void theSlowConsumerDrillPasses() throws Exception {
        DrillReport report = new SlowConsumerDrill(
                        drillTarget(), "notification-service", 10, 200, Duration.ofSeconds(3), Duration.ofSeconds(20))
                .run();

        String text = passed(report);
        assertThat(text)
                .contains(
                        "notification-service was WARN while slow",
                        "inventory-service kept up while notification-service was slow",
                        "notification-service recovered");
    }

    /**
     * {@code ops/bin/drill schema-change}'s short version: three OrderCreated at 1.0, three at 1.1, three at 2.0 while 3
     * orders/s come over HTTP: the 1.x processed, every 2.0 dead-lettered by each group with its reason.
     */
    @Test
    @Order(7)
    void theSchemaChangeDrillPasses() throws Exception {
        DrillReport report = new SchemaChangeDrill(drillTarget(), 3, 3, Duration.ofSeconds(8)).run();

        String text = passed(report);
        assertThat(text)
                .contains(
                        "every OrderCreated 1.0 and 1.1 was processed",
                        "analytics-service dead-lettered every 2.0 with its reason",
                        "has version 2.0");
    }

    /**
     * {@code ops/bin/drill hot-partition}'s short version: 20 records/s for 10 s (the lag monitor's window here) keyed by
     * customer, 80% by one, then 10 s keyed by order id: the hot partition stands out, order ids spread evenly.
     */
    @Test
    @Order(8)
    void theHotPartitionDrillPasses() throws Exception {
        DrillReport report = new HotPartitionDrill(drillTarget(), 20, Duration.ofSeconds(10), 0.8).run();

        String text = passed(report);
        assertThat(text)
                .containsPattern("keyed by customer, partition [0-5] took most of the load")
                .contains("keyed by order id, the load spread evenly", "keyed by customer", "rate/s");
    }

    /**
     * Traces exported over OTLP by the services (to {@link OtlpTraceCollector}): one trace runs from the caller's
     * {@code traceparent} through order-service's server span, outbox-relay's publish span of the OrderCreated and the
     * record to a processing span in each of the three consumers, on to inventory's outcome published by its own relay,
     * to order-service's saga consumer processing it, and back through outbox-relay's publish of the OrderConfirmed to
     * the three consumers again: the saga's round trip is one trace.
     */
    @Test
    @Order(3)
    void oneTraceFollowsTheOrderThroughTheConsumersAndTheSagaBackToItsConfirmation() throws Exception {
        String trace = UUID.randomUUID().toString().replace("-", "");
        String callerSpan = "00f067aa0ba902b7";
        String body = "{\"customerId\":\"c-traced\",\"currency\":\"EUR\","
                + "\"items\":[{\"sku\":\"sku-8\",\"quantity\":1,\"unitPrice\":\"2.00\"}]}";
        HttpResponse<String> created = http.send(
                HttpRequest.newBuilder(orders)
                        .timeout(Duration.ofSeconds(30))
                        .header("Content-Type", "application/json")
                        .header("traceparent", "00-" + trace + "-" + callerSpan + "-01")
                        .POST(HttpRequest.BodyPublishers.ofString(body))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(created.statusCode()).isEqualTo(201);
        List<String> consumers = List.of("inventory-service", "notification-service", "analytics-service");

        await().atMost(WITHIN).until(() -> {
            List<OtlpTraceCollector.ReceivedSpan> spans = traces.trace(trace);
            // Each service exports its spans in batches of its own: wait for every one the test reads.
            OtlpTraceCollector.ReceivedSpan confirmation = published(spans, "outbox-relay", "OrderConfirmed");
            return published(spans, "outbox-relay", "OrderCreated") != null
                    && confirmation != null
                    && published(spans, "inventory-outbox-relay", "InventoryReserved") != null
                    && spans.stream()
                            .anyMatch(span ->
                                    span.service().equals("order-service") && span.kind() == SpanKind.SPAN_KIND_SERVER)
                    && spans.stream()
                            .anyMatch(span -> span.service().equals("order-service")
                                    && span.name().equals("process inventory"))
                    && consumers.stream()
                            .allMatch(consumer -> spans.stream()
                                    .anyMatch(span -> span.service().equals(consumer)
                                            && span.parentSpanId().equals(confirmation.spanId())));
        });

        List<OtlpTraceCollector.ReceivedSpan> spans = traces.trace(trace);
        OtlpTraceCollector.ReceivedSpan request = only(spans, "order-service", SpanKind.SPAN_KIND_SERVER);
        assertThat(request.parentSpanId()).isEqualTo(callerSpan);
        assertThat(request.name()).contains("/orders");
        assertThat(spans)
                .filteredOn(span -> span.service().equals("outbox-relay") && span.kind() == SpanKind.SPAN_KIND_PRODUCER)
                .extracting(span -> span.attributes().get("orderflow.event.type"))
                .containsExactlyInAnyOrder("OrderCreated", "OrderConfirmed");
        OtlpTraceCollector.ReceivedSpan publish = published(spans, "outbox-relay", "OrderCreated");
        assertThat(publish.name()).isEqualTo("publish orders");
        assertThat(publish.parentSpanId()).isEqualTo(request.spanId());
        // Inventory's outcome continues the trace through inventory's outbox and relay, and order-service's saga
        // consumer processes it beneath that publish.
        OtlpTraceCollector.ReceivedSpan outcome = only(spans, "inventory-outbox-relay", SpanKind.SPAN_KIND_PRODUCER);
        assertThat(outcome.attributes()).containsEntry("orderflow.event.type", "InventoryReserved");
        assertThat(spans)
                .filteredOn(
                        span -> span.service().equals("order-service") && span.kind() == SpanKind.SPAN_KIND_CONSUMER)
                .isNotEmpty()
                .allSatisfy(processed -> {
                    assertThat(processed.name()).isEqualTo("process inventory");
                    assertThat(processed.parentSpanId()).isEqualTo(outcome.spanId());
                    assertThat(processed.attributes()).containsEntry("messaging.consumer.group.name", "order-service");
                });
        // The OrderConfirmed carries the order's trace on: published beneath the request, like the OrderCreated.
        OtlpTraceCollector.ReceivedSpan confirmation = published(spans, "outbox-relay", "OrderConfirmed");
        assertThat(confirmation.parentSpanId()).isEqualTo(request.spanId());
        for (String consumer : consumers) {
            // One span per delivery: a batch delivered again after a rebalance is processed (and skipped) again.
            assertThat(spans)
                    .filteredOn(span -> span.service().equals(consumer) && span.kind() == SpanKind.SPAN_KIND_CONSUMER)
                    .as(consumer)
                    .isNotEmpty()
                    .allSatisfy(processed -> {
                        assertThat(processed.parentSpanId()).isIn(publish.spanId(), confirmation.spanId());
                        assertThat(processed.attributes()).containsEntry("messaging.consumer.group.name", consumer);
                    })
                    .anySatisfy(
                            processed -> assertThat(processed.parentSpanId()).isEqualTo(publish.spanId()))
                    .anySatisfy(
                            processed -> assertThat(processed.parentSpanId()).isEqualTo(confirmation.spanId()));
        }
    }

    /** The one span of {@code service} publishing an event of {@code type}, or null while there is none. */
    private static OtlpTraceCollector.ReceivedSpan published(
            List<OtlpTraceCollector.ReceivedSpan> spans, String service, String type) {
        List<OtlpTraceCollector.ReceivedSpan> matching = spans.stream()
                .filter(span -> span.service().equals(service)
                        && span.kind() == SpanKind.SPAN_KIND_PRODUCER
                        && type.equals(span.attributes().get("orderflow.event.type")))
                .toList();
        assertThat(matching).as("%s spans publishing %s", service, type).hasSizeLessThanOrEqualTo(1);
        return matching.isEmpty() ? null : matching.getFirst();
    }

    private static OtlpTraceCollector.ReceivedSpan only(
            List<OtlpTraceCollector.ReceivedSpan> spans, String service, SpanKind kind) {
        List<OtlpTraceCollector.ReceivedSpan> matching = spans.stream()
                .filter(span -> span.service().equals(service) && span.kind() == kind)
                .toList();
        assertThat(matching).as("%s spans of %s in %s", kind, service, spans).hasSize(1);
        return matching.getFirst();
    }

    /**
     * {@code ops/bin/drill saga}'s short version: 10 orders/s for 15 s, a fifth of them for the sold-out SKU;
     * inventory-service and its relay killed 5 s in and started again 5 s later: the orders wait CREATED meanwhile,
     * then each is confirmed or rejected once, the sold-out ones rejected and mailed, nothing oversold.
     */
    @Test
    @Order(9)
    void theSagaDrillPasses() throws Exception {
        DrillReport report = new SagaDrill(
                        drillTarget(),
                        ServiceControl.launcher(state.control()),
                        10,
                        Duration.ofSeconds(15),
                        Duration.ofSeconds(5),
                        0.2)
                .run();

        assertThat(passed(report))
                .contains(
                        "killed inventory-service and inventory-outbox-relay with SIGKILL",
                        "every order placed while inventory was away stayed CREATED",
                        "every order confirmed or rejected, rejected exactly those of sku-sold-out",
                        "each order's answer is on orders exactly once",
                        "every rejected order got its rejection mail")
                .containsPattern("120 CONFIRMED, 30 REJECTED of 150 orders");
    }

    /**
     * {@code ops/bin/drill crash-consumer --victim order-service}'s short version: the saga's consumer killed with
     * SIGKILL 4 s into 12 s of 10 orders/s; the orders it could not take meanwhile are reported, every order it took is
     * confirmed exactly once, and its group resumes on {@code inventory} from its committed offsets.
     */
    @Test
    @Order(10)
    void theCrashConsumerDrillPassesWithTheSagasConsumerAsTheVictim() throws Exception {
        DrillReport report = new CrashConsumerDrill(
                        drillTarget(),
                        ServiceControl.launcher(state.control()),
                        DrillTarget.SAGA,
                        10,
                        Duration.ofSeconds(12))
                .run();

        assertThat(passed(report, "crash-consumer-order-service"))
                .contains(
                        "killed order-service with SIGKILL",
                        "order-service's lag on inventory grew while it was down and drained after its restart",
                        "every order confirmed exactly once",
                        "order-service resumed from its committed offsets")
                .containsPattern("refused \\(no connection\\) and \\d+ failed while order-service was down");
    }

    /**
     * The lag dashboard in a real browser while orders arrive at 20/s for 10 s: the three groups, each on the six partitions of
     * {@code orders}, and the retry and dead-letter topics, each dead-letter topic with records in it (the schema-change
     * drill dead-lettered its 2.0 records). Its screenshot, {@code target/lag-dashboard.png}, is README's picture
     * ({@code docs/images/lag-dashboard.png}); copy it there when the page changes.
     */
    @Test
    @Order(11)
    void theDashboardShowsTheThreeGroupsOnEveryPartitionOfOrdersAndTheirDeadLettersWhileOrdersArrive(
            @TempDir Path profile) throws Exception {
        Assumptions.assumeTrue(HeadlessChromium.installed(), HeadlessChromium.NOT_INSTALLED);
        List<String> groups = List.of("inventory-service", "notification-service", "analytics-service");
        try (OpenLoopLoad load = new OpenLoopLoad(service("order-service"), 20, 64, false);
                HeadlessChromium browser = HeadlessChromium.open(profile, 1200, 1700)) {
            CompletableFuture<OpenLoopLoad.Result> running =
                    load.runInBackground(System.nanoTime(), Duration.ZERO, Duration.ofSeconds(10));
            browser.get(service("lag-monitor").toString());

            for (String group : groups) {
                await().atMost(WITHIN).until(() -> {
                    String partitions = browser.shown("div.group[data-group='" + group + "'] table.partitions");
                    return IntStream.range(0, 6).allMatch(p -> partitions.contains("orders-" + p));
                });
            }
            await().atMost(WITHIN)
                    .until(() -> groups.stream()
                            .allMatch(group -> deadLetters(browser.shown("#failure-topics"), group) > 0));
            await().atMost(WITHIN).until(() -> load.acceptedSoFar() >= 60);
            assertThat(browser.shown("#failure-topics")).contains("_retry_1000");
            // Each group's chart draws a line per partition of orders and one for all its retry topics together.
            assertThat(browser.shown("div.group[data-group='inventory-service'] .chart"))
                    .contains("orders-5 (records)", "retry topics (records)");
            browser.screenshot(Path.of("target", "lag-dashboard.png"));

            OpenLoopLoad.Result result = running.get(2, TimeUnit.MINUTES);
            assertThat(result.failed()).isZero();
        }
    }

    /** The records the dashboard's retry and dead-letter table shows for {@code group}'s dead-letter topic. */
    private static long deadLetters(String table, String group) {
        return table.lines()
                .map(line -> line.split("\\s+"))
                .filter(cells -> cells.length == 2 && cells[0].equals("dead-letter-topic-" + group))
                .mapToLong(cells -> Long.parseLong(cells[1].replace(",", "")))
                .findFirst()
                .orElse(0);
    }

    /**
     * A real Prometheus (Debian's, which {@code .ci/run} installs) with {@code ops/deploy/prometheus}'s configuration, its
     * targets pointed at this platform's ports: it scrapes every part, every alert rule and every Grafana panel's query
     * ({@code ops/deploy/grafana/dashboards}) evaluates, and every metric they name is exported by some part.
     */
    @Test
    @Order(12)
    void prometheusScrapesEveryPartAndEveryMetricTheAlertRulesAndDashboardsNameIsExported(@TempDir Path prometheusDir)
            throws Exception {
        Path prometheus = Path.of("/usr/bin/prometheus");
        Assumptions.assumeTrue(
                Files.isExecutable(prometheus),
                "Prometheus is not installed (Debian's prometheus; .ci/run installs it)");
        // Lag in seconds is exported for partitions a group has committed: an order makes every group commit.
        String body = "{\"customerId\":\"c-prometheus\",\"currency\":\"EUR\","
                + "\"items\":[{\"sku\":\"sku-9\",\"quantity\":1,\"unitPrice\":\"1.00\"}]}";
        assertThat(post(orders, body, null).statusCode()).isEqualTo(201);
        await().atMost(WITHIN).until(() -> {
            JsonNode groups = JSON.readTree(get(service("lag-monitor"), "/lag")).get("groups");
            return groups != null
                    && List.of("inventory-service", "notification-service", "analytics-service").stream()
                            .allMatch(group -> caughtUpOnOrders(groups, group));
        });

        Path rules = Path.of("..", "deploy", "prometheus");
        Files.copy(rules.resolve("alerts.yml"), prometheusDir.resolve("alerts.yml"));
        List<PlatformState.Service> services = state.services();
        Map<String, Integer> ports = new LinkedHashMap<>();
        ports.put("localhost:9404", state.broker().metrics().getPort());
        String[] defaults = {"8080", "8081", "8082", "8085", "8083", "8084", "8086"};
        for (int i = 0; i < defaults.length; i++) {
            ports.put("localhost:" + defaults[i], services.get(i).url().getPort());
        }
        String config = Files.readString(rules.resolve("prometheus.yml"));
        for (Map.Entry<String, Integer> port : ports.entrySet()) {
            config = config.replace("\"" + port.getKey() + "\"", "\"127.0.0.1:" + port.getValue() + "\"");
        }
        Files.writeString(prometheusDir.resolve("prometheus.yml"), config);
        int port;
        try (java.net.ServerSocket socket = new java.net.ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        Process server = new ProcessBuilder(
                        prometheus.toString(),
                        "--config.file=" + prometheusDir.resolve("prometheus.yml"),
                        "--storage.tsdb.path=" + prometheusDir.resolve("data"),
                        "--web.listen-address=127.0.0.1:" + port)
                .redirectErrorStream(true)
                .redirectOutput(prometheusDir.resolve("prometheus.log").toFile())
                .start();
        try {
            URI api = URI.create("http://127.0.0.1:" + port);
            await().atMost(WITHIN).ignoreExceptions().until(() -> {
                JsonNode targets = JSON.readTree(get(api.resolve("/api/v1/targets")))
                        .path("data")
                        .path("activeTargets");
                if (targets.size() != ports.size()) {
                    return false;
                }
                for (JsonNode target : targets) {
                    if (!target.path("health").asText().equals("up")) {
                        return false;
                    }
                }
                return true;
            });
            Set<String> named = new java.util.TreeSet<>();
            await().atMost(WITHIN).ignoreExceptions().until(() -> {
                JsonNode groups = JSON.readTree(get(api.resolve("/api/v1/rules")))
                        .path("data")
                        .path("groups");
                named.clear();
                for (JsonNode group : groups) {
                    for (JsonNode rule : group.path("rules")) {
                        if (!rule.path("health").asText().equals("ok")) {
                            return false;
                        }
                        named.addAll(PromqlMetricNames.of(rule.path("query").asText()));
                    }
                }
                return !named.isEmpty();
            });
            // Every Grafana panel's query evaluates, and its metrics count with the rules'.
            List<String> failedQueries = new ArrayList<>();
            try (var dashboards = Files.list(Path.of("..", "deploy", "grafana", "dashboards"))) {
                for (Path dashboard : dashboards.toList()) {
                    for (JsonNode panel : JSON.readTree(dashboard.toFile()).path("panels")) {
                        for (JsonNode target : panel.path("targets")) {
                            String expr = target.path("expr").asText();
                            named.addAll(PromqlMetricNames.of(expr));
                            String query = java.net.URLEncoder.encode(expr, StandardCharsets.UTF_8);
                            JsonNode answer = JSON.readTree(get(api.resolve("/api/v1/query?query=" + query)));
                            if (!answer.path("status").asText().equals("success")) {
                                failedQueries.add(panel.path("title").asText() + ": " + answer);
                            }
                        }
                    }
                }
            }
            assertThat(failedQueries).as("dashboard queries Prometheus refuses").isEmpty();
            List<String> missing = new ArrayList<>();
            for (String metric : named) {
                String match = java.net.URLEncoder.encode("{__name__=\"" + metric + "\"}", StandardCharsets.UTF_8);
                JsonNode series = JSON.readTree(get(api.resolve("/api/v1/series?match%5B%5D=" + match)))
                        .path("data");
                if (series.isEmpty()) {
                    missing.add(metric);
                }
            }
            assertThat(named).contains("orderflow_consumergroup_status", "outbox_relay_oldest_pending_age_seconds");
            assertThat(named).contains("http_server_requests_seconds_count", "orderflow_consumer_latency_seconds");
            assertThat(missing)
                    .as("metrics the alert rules and dashboards name that nothing exports")
                    .isEmpty();
        } finally {
            server.destroy();
            server.waitFor();
        }
    }

    /**
     * {@code ops/bin/drill broker-failure}'s short version, through the launcher's control port: the broker killed with
     * SIGKILL 5 s into 15 s of 10 orders/s and started again 5 s later; nothing lost, nothing doubled.
     */
    @Test
    @Order(13)
    void theBrokerFailureDrillPasses() throws Exception {
        DrillReport report = new BrokerFailureDrill(
                        drillTarget(),
                        ServiceControl.launcher(state.control()),
                        "log-broker",
                        10,
                        Duration.ofSeconds(15),
                        Duration.ofSeconds(5))
                .run();

        assertThat(passed(report))
                .contains(
                        "killed the broker (log-broker) with SIGKILL",
                        "no acknowledged order lost",
                        "no double effect",
                        "order-service took every order, the broker down or not");
        assertThat(LauncherProcesses.read(launcherLog)).contains("log-broker (pid ");
    }

    /**
     * {@code ops/bin/drill broker-failure --dies-by-itself}'s short version: the broker dies by itself (SIGKILL behind
     * the launcher's back, as an Error's exit 3 or an OutOfMemoryError would end it) 5 s into 15 s of 10 orders/s and
     * nobody starts it; the launcher does, on its log, and says so in its log and in {@code status}; nothing lost,
     * nothing doubled, the saga went on.
     */
    @Test
    @Order(14)
    void aBrokerThatDiesByItselfIsStartedAgainByTheLauncher() throws Exception {
        long pid = launchers.state().orElseThrow().broker().pid();

        DrillReport report = new BrokerFailureDrill(
                        drillTarget(),
                        ServiceControl.launcher(state.control()),
                        "log-broker",
                        10,
                        Duration.ofSeconds(15),
                        Duration.ZERO,
                        true)
                .run();

        assertThat(passed(report))
                .contains(
                        "the broker came back by itself",
                        "no acknowledged order lost",
                        "no double effect",
                        "the saga went on",
                        "order-service took every order, the broker down or not");
        PlatformState after = launchers.state().orElseThrow();
        assertThat(after.broker().pid()).isNotEqualTo(pid);
        assertThat(after.broker().restarts()).isEqualTo(1);
        assertThat(after.broker().lastExitCode()).isEqualTo(137);
        assertThat(LauncherProcesses.read(launcherLog))
                .contains("log-broker (pid " + pid + ") exited with code 137 by itself; starting it again on its log")
                .contains("log-broker started again by itself (pid "
                        + after.broker().pid() + "), restart 1.");
        Path status = output.resolve("status-after-broker-death.log");
        assertThat(launchers.command(status, "status"))
                .as(LauncherProcesses.read(status))
                .isZero();
        assertThat(LauncherProcesses.read(status))
                .contains("broker: died by itself and was started again 1 time (last exit code 137)")
                .containsPattern("(?m)^  log-broker +" + after.broker().pid() + " +running +ready ");
    }

    /**
     * Last, as it ends the platform: the commands a user types in another terminal, a service killed through the
     * launcher and its crash reported, its group replayed from before its last orders and the service started again by
     * {@code ops/bin/replay}, and {@code stop}. (The crash-consumer drill through the launcher's control port ran at
     * {@code @Order(10)}.)
     */
    @Test
    @Order(15)
    void statusLogsKillStartAndStopAnswerFromAnotherTerminalAndACrashedServiceIsReported() throws Exception {
        Path status = output.resolve("status.log");
        assertThat(launchers.command(status, "status"))
                .as(LauncherProcesses.read(status))
                .isZero();
        for (String instance : INSTANCES) {
            assertThat(LauncherProcesses.read(status))
                    .containsPattern("(?m)^  " + instance + " +\\d+ +running +ready ");
        }
        assertThat(LauncherProcesses.read(status)).containsPattern("(?m)^  log-broker +\\d+ +running +ready ");
        assertThat(LauncherProcesses.read(status))
                .contains("broker: " + state.broker().bootstrapServers());

        Path logs = output.resolve("logs.log");
        Process following = launchers.start(
                logs,
                "logs",
                "inventory-service",
                "--postgres-dir",
                launchers.postgresDirectory().toString());
        await().atMost(WITHIN).until(() -> LauncherProcesses.read(logs).contains("inventory-service"));
        assertThat(following.isAlive()).as("logs follows the file").isTrue();
        following.destroy();
        Path unknown = output.resolve("unknown.log");
        assertThat(launchers.command(unknown, "logs", "no-such-service")).isEqualTo(2);
        assertThat(LauncherProcesses.read(unknown)).contains("no-such-service", "analytics-service", "order-service");

        // Where the replay below starts: these orders are the last analytics-service counted before it was killed.
        Instant beforeTheLastOrders = Instant.now();
        for (int i = 0; i < 10; i++) {
            placeOrder("sku-12");
        }
        await().atMost(WITHIN)
                .until(() -> caughtUpOnOrders(
                        JSON.readTree(get(service("lag-monitor"), "/lag")).get("groups"), "analytics-service"));

        PlatformState.Service analytics = launchers.state().orElseThrow().services().stream()
                .filter(service -> service.name().equals("analytics-service"))
                .findFirst()
                .orElseThrow();
        Path kill = output.resolve("kill.log");
        assertThat(launchers.command(kill, "kill", "analytics-service"))
                .as(LauncherProcesses.read(kill))
                .isZero();
        assertThat(LauncherProcesses.alive(analytics.pid())).isFalse();
        await().atMost(WITHIN)
                .until(() -> LauncherProcesses.read(launcherLog)
                        .contains("analytics-service (pid " + analytics.pid() + ") exited with code"));
        Path afterCrash = output.resolve("status-after-crash.log");
        assertThat(launchers.command(afterCrash, "status")).isEqualTo(1);
        assertThat(LauncherProcesses.read(afterCrash)).containsPattern("(?m)^  analytics-service +\\d+ +exited ");

        // ops/bin/replay right after the kill: the killed consumers stay members of analytics-service's group until
        // their sessions time out (10 s here), which the replay waits out before it moves the group back to the last
        // orders' first events (not the earliest offset: reading every drill's events again, 20 records a poll, would
        // cost the build most of a minute); it then starts the service through the launcher, and the events it
        // counted before come back as duplicates.
        StringWriter replayed = new StringWriter();
        CommandLine replay = ReplayCommandLine.commandLine();
        replay.setOut(new PrintWriter(replayed, true));
        replay.setErr(new PrintWriter(replayed, true));
        assertThat(replay.execute(
                        "--group",
                        "analytics-service",
                        "--bootstrap-servers",
                        state.broker().bootstrapServers(),
                        "--command-config",
                        clientProperties("ops-admin").toString(),
                        "--platform-state",
                        PlatformState.file(launchers.postgresDirectory()).toString(),
                        "--to-datetime",
                        beforeTheLastOrders.toString(),
                        "--wait-caught-up",
                        "--caught-up-timeout",
                        "2m"))
                .as(replayed.toString())
                .isZero();
        System.out.println(replayed);
        assertThat(replayed.toString())
                .contains("analytics-service (pid " + analytics.pid() + ") had already exited (through the launcher)")
                .contains("consumer group analytics-service is empty", "started analytics-service", "has caught up")
                .contains(
                        "reset consumer group analytics-service to the first record at or after " + beforeTheLastOrders)
                .containsPattern("analytics-service since its start \\(.*\\): [1-9]\\d* duplicate \\(skipped\\)")
                .contains("replay done");
        Path restarted = output.resolve("status-restarted.log");
        assertThat(launchers.command(restarted, "status"))
                .as(LauncherProcesses.read(restarted))
                .isZero();
        assertThat(LauncherProcesses.read(restarted))
                .containsPattern("(?m)^  analytics-service +\\d+ +running +ready +" + analytics.url());
        Path refused = output.resolve("start-running.log");
        assertThat(launchers.command(refused, "start", "order-service")).isEqualTo(1);
        assertThat(LauncherProcesses.read(refused)).contains("order-service is running");
        PlatformState last = launchers.state().orElseThrow();

        Path stop = output.resolve("stop.log");
        assertThat(launchers.command(stop, "stop"))
                .as(LauncherProcesses.read(stop))
                .isZero();

        assertThat(launcher.waitFor(30, TimeUnit.SECONDS))
                .as("the launcher exited")
                .isTrue();
        assertThat(last.services()).noneMatch(service -> LauncherProcesses.alive(service.pid()));
        assertThat(launchers.postgresProcesses()).isEmpty();
        Path stopped = output.resolve("status-stopped.log");
        assertThat(launchers.command(stopped, "status")).isEqualTo(3);
        assertThat(LauncherProcesses.read(stopped)).contains("not running");
    }

    /**
     * The report's text, kept in {@code target/drill-reports/<drill>.txt} for reading after the run, once it is asserted
     * to have passed.
     */
    private static String passed(DrillReport report) throws java.io.IOException {
        String text = report.saveIn(Path.of("target", "drill-reports"));
        assertThat(report.passed()).as(text).isTrue();
        return text;
    }

    /** As {@link #passed(DrillReport)}, kept as {@code target/drill-reports/<name>.txt}: a drill run twice. */
    private static String passed(DrillReport report, String name) throws java.io.IOException {
        String text = report.render();
        Files.writeString(
                Files.createDirectories(Path.of("target", "drill-reports")).resolve(name + ".txt"), text);
        assertThat(report.passed()).as(text).isTrue();
        return text;
    }

    private String get(URI uri) throws Exception {
        return http.send(HttpRequest.newBuilder(uri).GET().build(), HttpResponse.BodyHandlers.ofString())
                .body();
    }

    private static boolean caughtUpOnOrders(JsonNode groups, String group) {
        for (JsonNode node : groups) {
            if (node.get("group").asText().equals(group)) {
                for (JsonNode partition : node.get("partitions")) {
                    if (partition.get("topic").asText().equals("orders")
                            && partition.get("lag").asLong() != 0) {
                        return false;
                    }
                }
                return node.get("partitions").size() > 0
                        && node.get("status").asText().equals("OK");
            }
        }
        return false;
    }

    private static URI service(String name) {
        return state.services().stream()
                .filter(service -> service.name().equals(name))
                .findFirst()
                .orElseThrow()
                .url();
    }

    private String get(URI service, String path) throws Exception {
        return get(service.resolve(path));
    }

    /** The client properties the launcher wrote for {@code principal}, as {@code --command-config} takes them. */
    private static Path clientProperties(String principal) {
        return PlatformSecrets.beside(launchers.postgresDirectory())
                .resolve("clients")
                .resolve(principal + ".properties");
    }

    /** How {@code principal} reaches the platform's SASL_SSL broker. */
    private static KafkaClientSettings cluster(String principal) {
        return KafkaClientSettings.fromFile(state.broker().bootstrapServers(), clientProperties(principal));
    }

    private static String adminToken() {
        try {
            return Files.readString(PlatformSecrets.beside(launchers.postgresDirectory())
                            .resolve("admin-token"))
                    .trim();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static boolean everyServiceAlive() {
        return state.services().stream().allMatch(service -> LauncherProcesses.alive(service.pid()));
    }

    /** The event type of {@code orderId}'s record on the {@code inventory} topic, published by inventory's relay. */
    private String readInventoryOutcome(String orderId) {
        EventCodec codec = new EventCodec(EventCatalog.inventoryEvents());
        try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(
                cluster(PlatformPrincipals.ADMIN).consumer(Map.of(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest")),
                new StringDeserializer(),
                new ByteArrayDeserializer())) {
            // Assigned, not subscribed: no consumer group of the test's own shows on the lag dashboard.
            List<TopicPartition> partitions = consumer.partitionsFor(Topics.INVENTORY).stream()
                    .map(info -> new TopicPartition(info.topic(), info.partition()))
                    .toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            List<String> found = new ArrayList<>();
            await().atMost(WITHIN).until(() -> {
                for (ConsumerRecord<String, byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                    if (orderId.equals(record.key())) {
                        found.add(codec.decode(record.value()).eventType());
                    }
                }
                return !found.isEmpty();
            });
            return found.getFirst();
        }
    }

    /**
     * One client's order: created (the request sent twice with one Idempotency-Key), then a scripted path. An order is
     * paid only once inventory's answer confirmed it, so the paying scripts wait for CONFIRMED first; one script cancels
     * at once, which may cross the answer in flight (the order's version then says whether OrderConfirmed came first),
     * and one orders the sold-out SKU and is rejected, after which nothing is allowed.
     */
    private void drive(int script, Map<String, List<String>> expected) throws Exception {
        String sku = script == 4 ? OrderBodies.SOLD_OUT : "sku-1";
        String body = """
                {"customerId":"c-%s","currency":"EUR","items":[{"sku":"%s","quantity":2,"unitPrice":"9.99"}]}
                """.formatted(UUID.randomUUID(), sku);
        String key = UUID.randomUUID().toString();
        HttpResponse<String> created = post(orders, body, key);
        assertThat(created.statusCode()).isEqualTo(201);
        String id = JSON.readTree(created.body()).get("id").asText();
        HttpResponse<String> retried = post(orders, body, key);
        assertThat(JSON.readTree(retried.body()).get("id").asText()).isEqualTo(id);
        List<String> events = new ArrayList<>(List.of("OrderCreated"));
        URI order = orders.resolve("/orders/" + id + "/");
        switch (script) {
            case 0 -> {
                confirmed(id, events);
                expectStatus(post(order.resolve("pay"), "{}", null), 200, events, "OrderPaid");
                expectStatus(post(order.resolve("ship"), "{}", null), 200, events, "OrderShipped");
                expectStatus(post(order.resolve("cancel"), "{}", null), 409, events, null);
            }
            case 1 -> {
                expectStatus(post(order.resolve("ship"), "{}", null), 409, events, null);
                HttpResponse<String> cancelled = post(order.resolve("cancel"), "{}", null);
                assertThat(cancelled.statusCode()).as(cancelled.body()).isEqualTo(200);
                // Version 2: cancelled while CREATED, the answer changes nothing; 3: confirmed first.
                long version = JSON.readTree(cancelled.body()).get("version").asLong();
                assertThat(version).isIn(2L, 3L);
                if (version == 3) {
                    events.add("OrderConfirmed");
                }
                events.add("OrderCancelled");
            }
            case 2 -> {
                confirmed(id, events);
                expectStatus(post(order.resolve("pay"), "{}", null), 200, events, "OrderPaid");
                expectStatus(post(order.resolve("pay"), "{}", null), 409, events, null);
                expectStatus(post(order.resolve("cancel"), "{}", null), 200, events, "OrderCancelled");
            }
            case 3 -> {
                confirmed(id, events);
                expectStatus(post(order.resolve("pay"), "{}", null), 200, events, "OrderPaid");
            }
            default -> {
                assertThat(awaitStatus(id, "REJECTED").get("version").asLong()).isEqualTo(2);
                events.add("OrderRejected");
                expectStatus(post(order.resolve("pay"), "{}", null), 409, events, null);
                expectStatus(post(order.resolve("cancel"), "{}", null), 409, events, null);
            }
        }
        expected.put(id, events);
    }

    /** Waits until inventory's answer confirmed order {@code id} (version 2: one change since its creation). */
    private void confirmed(String id, List<String> events) throws Exception {
        assertThat(awaitStatus(id, "CONFIRMED").get("version").asLong()).isEqualTo(2);
        events.add("OrderConfirmed");
    }

    /** {@code GET /orders/{id}} once the order is {@code status}. */
    private JsonNode awaitStatus(String id, String status) {
        JsonNode[] order = new JsonNode[1];
        await().atMost(WITHIN).ignoreExceptions().until(() -> {
            order[0] = JSON.readTree(get(orders.resolve("/orders/" + id)));
            return order[0].get("status").asText().equals(status);
        });
        return order[0];
    }

    private static void expectStatus(
            HttpResponse<String> response, int status, List<String> events, String eventIfAccepted) {
        assertThat(response.statusCode()).as(response.body()).isEqualTo(status);
        if (eventIfAccepted != null) {
            events.add(eventIfAccepted);
        }
    }

    private HttpResponse<String> post(URI uri, String body, String idempotencyKey) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(uri)
                .timeout(Duration.ofSeconds(30))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (idempotencyKey != null) {
            request.header("Idempotency-Key", idempotencyKey);
        }
        return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    /**
     * Reads the topic until {@code total} distinct events of {@code orderIds} arrived (other tests' orders are skipped);
     * each order's first occurrences, in log order.
     */
    private Map<String, List<EventEnvelope>> readEvents(Set<String> orderIds, int total) {
        EventCodec codec = new EventCodec();
        Map<String, List<EventEnvelope>> byOrder = new LinkedHashMap<>();
        Set<UUID> seen = new LinkedHashSet<>();
        try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(
                cluster(PlatformPrincipals.ADMIN).consumer(Map.of(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest")),
                new StringDeserializer(),
                new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = consumer.partitionsFor(Topics.ORDERS).stream()
                    .map(info -> new TopicPartition(info.topic(), info.partition()))
                    .toList();
            assertThat(partitions).hasSize(LocalPlatform.ORDERS_PARTITIONS);
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            await().atMost(WITHIN).until(() -> {
                for (ConsumerRecord<String, byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                    EventEnvelope envelope = codec.decode(record.value());
                    assertThat(record.key()).isEqualTo(envelope.orderId());
                    assertThat(new String(record.headers().lastHeader("eventId").value(), StandardCharsets.UTF_8))
                            .isEqualTo(envelope.eventId().toString());
                    if (orderIds.contains(envelope.orderId()) && seen.add(envelope.eventId())) {
                        byOrder.computeIfAbsent(envelope.orderId(), k -> new ArrayList<>())
                                .add(envelope);
                    }
                }
                return seen.size() >= total;
            });
        }
        return byOrder;
    }
}
