package io.orderflow.platform.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.orderflow.contracts.EventCatalog;
import io.orderflow.contracts.EventCodec;
import io.orderflow.contracts.EventEnvelope;
import io.orderflow.contracts.Topics;
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
import io.orderflow.ops.load.OrderBodies;
import io.orderflow.ops.powercut.InvariantsMain;
import io.orderflow.ops.powercut.MailCatcher;
import io.orderflow.ops.powercut.OrderJournal;
import io.orderflow.ops.powercut.OrderTraffic;
import io.orderflow.platform.LaunchOptions;
import io.orderflow.platform.LocalPlatform;
import io.orderflow.postgres.PostgresConfiguration;
import io.orderflow.process.ApacheKafkaLauncher;
import io.orderflow.process.LocalCertificates;
import io.orderflow.process.RunningBroker;
import io.orderflow.process.ServiceProcess;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The whole platform on Apache Kafka 4.4 instead of our broker, with nothing changed but the Kafka client settings:
 * {@code ./run-platform --bootstrap-servers HOSTS --command-config FILE} ({@link LocalPlatform} with {@link
 * LaunchOptions#kafkaBootstrapServers} and {@link LaunchOptions#kafkaCommandConfig}) against a single-node KRaft Kafka
 * started from Maven Central's {@code kafka_2.13}, as the benchmarks start it, with a SASL_SSL listener (TLS from a
 * local CA, a SCRAM-SHA-512 user) and the same client properties as on our broker, and the same packaged services as
 * on our broker. An order placed over HTTP reaches the three consumers; a shipped order
 * is deducted and a cancelled one released by inventory, each mailed about, and inventory's outcomes are published; an
 * in-stock order is confirmed by the saga, paid and shipped and a sold-out one rejected, each mailed and counted in its
 * minute; the lag monitor sees every group caught up; the short versions of all eight drills pass, as they do on our
 * broker in {@code PlatformEndToEndTest}, broker-failure with Kafka itself killed and started again on its log.
 *
 * <p>The services inherit this JVM's environment, which the build sets as {@code PlatformEndToEndTest} sets the
 * launcher's: a 10 s lag-monitor window and batches of at most 20 records, so that slow-consumer's short run turns its
 * victim WARN and hot-partition's rates cover its 10 s phases. Run from an IDE, give the test JVM the same two
 * variables ({@code ops/platform-on-kafka/pom.xml}), or those two drills fail.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class PlatformOnApacheKafkaTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration WITHIN = Duration.ofSeconds(120);
    private static final List<String> GROUPS =
            List.of("inventory-service", "notification-service", "analytics-service");

    @TempDir
    static Path work;

    private static final String KAFKA_USER = "orderflow";
    private static final String KAFKA_PASSWORD = "kafka-" + java.util.UUID.randomUUID();

    private static ApacheKafkaLauncher kafkaLauncher;
    private static Path kafkaDirectory;
    private static RunningBroker kafka;
    private static LocalPlatform platform;
    private static MailCatcher mails;
    private static Path commandConfig;

    private final HttpClient http = HttpClient.newHttpClient();

    @BeforeAll
    static void startKafkaAndThePlatformOnIt() throws Exception {
        kafkaDirectory = work.resolve("kafka");
        LocalCertificates certificates = LocalCertificates.open(work.resolve("kafka-tls"), List.of());
        kafkaLauncher = ApacheKafkaLauncher.onClasspath(System.getProperty("java.class.path"), List.of("-Xmx512m"), 6)
                .withSaslSsl(certificates, KAFKA_USER, KAFKA_PASSWORD);
        kafka = kafkaLauncher.start(kafkaDirectory, work.resolve("kafka.log"));
        commandConfig = Files.writeString(
                work.resolve("kafka-client.properties"),
                String.join(
                        "\n",
                        "security.protocol=SASL_SSL",
                        "sasl.mechanism=SCRAM-SHA-512",
                        "sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required"
                                + " username=\"" + KAFKA_USER + "\" password=\"" + KAFKA_PASSWORD + "\";",
                        "ssl.truststore.location=" + certificates.truststore(),
                        "ssl.truststore.password=" + certificates.password(),
                        "ssl.truststore.type=PKCS12",
                        ""));
        LaunchOptions options = new LaunchOptions(
                false,
                work.resolve("postgres"),
                0,
                work.resolve("no-broker"),
                0,
                0,
                true,
                Path.of("..", "..").resolve(LaunchOptions.DEFAULT_APPLICATIONS),
                false,
                true,
                false, // no warm-ups: PlatformEndToEndTest runs them
                0,
                0,
                0,
                LaunchOptions.Tracing.OFF,
                kafka.bootstrapServers(),
                LaunchOptions.Security.PLAINTEXT, // our broker's, unused here
                commandConfig,
                (mails = MailCatcher.start()).smtpServer());
        platform = LocalPlatform.start(PostgresConfiguration.embedded(), options);
    }

    @AfterAll
    static void stop() {
        if (platform != null) {
            platform.close();
        }
        if (kafka != null) {
            kafka.close();
        }
        if (mails != null) {
            mails.stop();
        }
    }

    private static URI service(String name) {
        return platform.services().stream()
                .filter(service -> service.name().equals(name))
                .findFirst()
                .map(ServiceProcess::baseUri)
                .orElseThrow();
    }

    private static DrillTarget drillTarget() {
        return new DrillTarget(
                service("order-service"),
                service("inventory-service"),
                service("notification-service"),
                service("analytics-service"),
                service("lag-monitor"),
                platform.cluster(DrillTarget.PRINCIPAL),
                platform.adminToken());
    }

    /**
     * The report's text, kept in {@code target/drill-reports/<drill>.txt} for reading after the run, once it is asserted
     * to have passed.
     */
    private static String passed(DrillReport report) throws IOException {
        String text = report.saveIn(Path.of("target", "drill-reports"));
        assertThat(report.passed()).as(text).isTrue();
        return text;
    }

    private String get(URI uri) throws Exception {
        return http.send(HttpRequest.newBuilder(uri).GET().build(), HttpResponse.BodyHandlers.ofString())
                .body();
    }

    @Test
    @Order(1)
    void theLauncherStartsNoBrokerAndCreatesTheTopicsOnKafka() throws Exception {
        assertThat(platform.bootstrapServers()).isEqualTo(kafka.bootstrapServers());
        assertThat(platform.metricsUri()).as("our broker's metrics: none").isEmpty();
        assertThat(platform.cluster("admin").asMap()).containsEntry("security.protocol", "SASL_SSL");
        try (Admin admin = Admin.create(platform.cluster("admin").admin(Map.of()))) {
            Map<String, TopicDescription> topics = admin.describeTopics(List.of(Topics.ORDERS, Topics.INVENTORY))
                    .allTopicNames()
                    .get();
            assertThat(topics.get(Topics.ORDERS).partitions()).hasSize(6);
            assertThat(topics.get(Topics.INVENTORY).partitions()).hasSize(6);
        }
        for (String service : List.of("order-service", "inventory-service")) {
            JsonNode checks = JSON.readTree(get(service(service).resolve("/q/health/ready")))
                    .get("checks");
            JsonNode warmUp = null;
            for (JsonNode check : checks) {
                if (check.get("name").asText().equals("warm-up")) {
                    warmUp = check;
                }
            }
            assertThat(warmUp)
                    .as(service + ": started without its warm-up, as the options say")
                    .isNotNull();
            assertThat(warmUp.get("data").get("rounds").asInt()).isZero();
        }
    }

    @Test
    @Order(2)
    void anOrderPlacedOverHttpReachesTheThreeConsumersAndTheLagMonitorSeesThemCaughtUp() throws Exception {
        String id = placeOrder();

        awaitReservation(id, "RESERVED");
        await().atMost(WITHIN)
                .ignoreExceptions()
                .until(() -> get(service("notification-service").resolve("/notifications?orderId=" + id))
                        .contains("\"SENT\""));
        await().atMost(WITHIN)
                .ignoreExceptions()
                .until(() -> get(service("analytics-service").resolve("/analytics/minutes"))
                        .contains("\"OrderCreated\""));
        await().atMost(WITHIN).ignoreExceptions().until(() -> {
            JsonNode groups =
                    JSON.readTree(get(service("lag-monitor").resolve("/lag"))).get("groups");
            return GROUPS.stream().allMatch(group -> caughtUp(groups, group));
        });
        assertThat(platform.services()).allMatch(ServiceProcess::isAlive);
    }

    /**
     * The rest of the lifecycle on Kafka: an order confirmed by inventory's answer, paid and shipped has its reservation
     * deducted and is mailed about twice (created, shipped); an order cancelled has its stock released and is mailed about twice (created,
     * cancelled); and inventory-service's own relay published its reservation of each, keyed by the order, on {@code
     * inventory}.
     */
    @Test
    @Order(3)
    void shippedAndCancelledOrdersReachTheConsumersAndInventoryPublishesItsOutcomes() throws Exception {
        String shipped = placeOrder();
        awaitStatus(shipped, "CONFIRMED");
        assertThat(post("/orders/" + shipped + "/pay", "{\"paymentReference\":\"pay-1\"}"))
                .isEqualTo(200);
        assertThat(post("/orders/" + shipped + "/ship", "{\"carrier\":\"post\",\"trackingNumber\":\"T-1\"}"))
                .isEqualTo(200);
        String cancelled = placeOrder();
        awaitReservation(cancelled, "RESERVED");
        assertThat(post("/orders/" + cancelled + "/cancel", "{\"reason\":\"changed my mind\"}"))
                .isEqualTo(200);

        awaitReservation(cancelled, "RELEASED");
        awaitReservation(shipped, "DEDUCTED");
        await().atMost(WITHIN)
                .ignoreExceptions()
                .until(() -> sentMails(shipped).equals(List.of("OrderCreated", "OrderShipped")));
        await().atMost(WITHIN)
                .ignoreExceptions()
                .until(() -> sentMails(cancelled).equals(List.of("OrderCreated", "OrderCancelled")));
        assertThat(inventoryOutcomes(Set.of(shipped, cancelled)))
                .containsEntry(shipped, List.of("InventoryReserved"))
                .containsEntry(cancelled, List.of("InventoryReserved"));
    }

    /**
     * The saga on Kafka, one order of each kind from {@code POST /orders}: one in stock is CONFIRMED once inventory
     * reserved it, then paid and shipped; one of the sold-out SKU is REJECTED with inventory's reason and the short SKU,
     * and paying it is refused with a problem naming REJECTED. notification-service mailed the first one's creation and
     * shipment and the second one's creation and rejection; analytics-service counts each answer in its minute, as many
     * as there are on {@code orders} for that minute.
     */
    @Test
    @Order(3)
    void anInStockOrderIsConfirmedPaidAndShippedAndASoldOutOneRejectedMailedAndCountedInItsMinute() throws Exception {
        long since = System.currentTimeMillis() - 1_000;
        String inStock = placeOrder("sku-12");
        String soldOut = placeOrder(OrderBodies.SOLD_OUT);

        assertThat(awaitStatus(inStock, "CONFIRMED").get("version").asLong()).isEqualTo(2);
        JsonNode rejected = awaitStatus(soldOut, "REJECTED");
        assertThat(rejected.get("version").asLong()).isEqualTo(2);
        assertThat(rejected.get("rejectionReason").asText()).isNotBlank();
        assertThat(rejected.get("shortSkus")).hasToString("[\"" + OrderBodies.SOLD_OUT + "\"]");
        HttpResponse<String> paid = postForAnswer("/orders/" + inStock + "/pay", "{}");
        assertThat(paid.statusCode()).as(paid.body()).isEqualTo(200);
        assertThat(JSON.readTree(paid.body()).get("status").asText()).isEqualTo("PAID");
        HttpResponse<String> shipped = postForAnswer("/orders/" + inStock + "/ship", "{}");
        assertThat(shipped.statusCode()).as(shipped.body()).isEqualTo(200);
        assertThat(JSON.readTree(shipped.body()).get("status").asText()).isEqualTo("SHIPPED");
        HttpResponse<String> refused = postForAnswer("/orders/" + soldOut + "/pay", "{}");
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

        Map<String, EventEnvelope> answers = new HashMap<>();
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

    private void awaitReservation(String orderId, String status) {
        await().atMost(WITHIN)
                .ignoreExceptions()
                .until(() -> get(service("inventory-service").resolve("/reservations/" + orderId))
                        .contains("\"" + status + "\""));
    }

    private String placeOrder() throws Exception {
        return placeOrder("sku-5");
    }

    /** Places an order of one unit of {@code sku} for a new customer; returns its id, the order CREATED. */
    private String placeOrder(String sku) throws Exception {
        HttpResponse<String> created = http.send(
                HttpRequest.newBuilder(service("order-service").resolve("/orders"))
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString("{\"customerId\":\"c-" + UUID.randomUUID()
                                + "\",\"currency\":\"EUR\",\"items\":[{\"sku\":\"" + sku + "\",\"quantity\":1,"
                                + "\"unitPrice\":\"2.50\"}]}"))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        JsonNode order = JSON.readTree(created.body());
        assertThat(order.get("status").asText()).isEqualTo("CREATED");
        return order.get("id").asText();
    }

    private int post(String path, String body) throws Exception {
        return postForAnswer(path, body).statusCode();
    }

    private HttpResponse<String> postForAnswer(String path, String body) throws Exception {
        return http.send(
                HttpRequest.newBuilder(service("order-service").resolve(path))
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(body))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** {@code GET /orders/{id}} once the order is {@code status}. */
    private JsonNode awaitStatus(String id, String status) {
        JsonNode[] order = new JsonNode[1];
        await().atMost(WITHIN).ignoreExceptions().until(() -> {
            order[0] = JSON.readTree(get(service("order-service").resolve("/orders/" + id)));
            return order[0].get("status").asText().equals(status);
        });
        return order[0];
    }

    /** analytics-service's count of {@code type} events in {@code minute}, 0 if it has none. */
    private long analyticsCount(Instant minute, String type) throws Exception {
        JsonNode minutes = JSON.readTree(get(service("analytics-service")
                .resolve("/analytics/minutes?from=" + minute + "&to=" + minute.plusSeconds(60))));
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
                platform.cluster("admin").consumer(Map.of()), new StringDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = consumer.partitionsFor(Topics.ORDERS).stream()
                    .map(info -> new TopicPartition(info.topic(), info.partition()))
                    .toList();
            consumer.assign(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
            Map<TopicPartition, Long> times = new HashMap<>();
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

    /** The event types of the order's mails that were sent, oldest first. */
    private List<String> sentMails(String orderId) throws Exception {
        List<String> sent = new ArrayList<>();
        for (JsonNode mail :
                JSON.readTree(get(service("notification-service").resolve("/notifications?orderId=" + orderId)))) {
            if (mail.get("status").asText().equals("SENT")) {
                sent.add(mail.get("eventType").asText());
            }
        }
        return sent;
    }

    /**
     * Per order, the event types inventory-service published on {@code inventory} for it, in log order, once each of
     * {@code orderIds} has one.
     */
    private static Map<String, List<String>> inventoryOutcomes(Set<String> orderIds) {
        EventCodec codec = new EventCodec(EventCatalog.inventoryEvents());
        Map<String, List<String>> outcomes = new HashMap<>();
        try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(
                platform.cluster("admin").consumer(Map.of()), new StringDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = consumer.partitionsFor(Topics.INVENTORY).stream()
                    .map(info -> new TopicPartition(info.topic(), info.partition()))
                    .toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            await().atMost(WITHIN).pollInSameThread().until(() -> {
                for (ConsumerRecord<String, byte[]> record : consumer.poll(Duration.ofMillis(200))) {
                    if (orderIds.contains(record.key())) {
                        outcomes.computeIfAbsent(record.key(), k -> new ArrayList<>())
                                .add(codec.decode(record.value()).eventType());
                    }
                }
                return outcomes.keySet().equals(orderIds);
            });
        }
        return outcomes;
    }

    private static boolean caughtUp(JsonNode groups, String group) {
        for (JsonNode node : groups) {
            if (node.get("group").asText().equals(group)) {
                for (JsonNode partition : node.get("partitions")) {
                    if (partition.get("topic").asText().equals(Topics.ORDERS)
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

    @Test
    @Order(4)
    void theDuplicateEventDrillPassesOnKafka() throws Exception {
        DrillReport report = new DuplicateEventDrill(drillTarget(), 5).run();

        assertThat(passed(report)).contains("inventory-service skipped every copy as a duplicate");
    }

    @Test
    @Order(5)
    void theSchemaChangeDrillPassesOnKafka() throws Exception {
        DrillReport report = new SchemaChangeDrill(drillTarget(), 3, 3, Duration.ofSeconds(8)).run();

        assertThat(passed(report)).contains("has version 2.0");
    }

    @Test
    @Order(6)
    void theTrafficSpikeDrillPassesOnKafka() throws Exception {
        DrillReport report =
                new TrafficSpikeDrill(drillTarget(), 3, 10, Duration.ofSeconds(4), Duration.ofSeconds(4)).run();

        passed(report);
    }

    /**
     * slow-consumer's short version: notification-service at 200 ms a record while 10 orders/s arrive for 20 s; on
     * Kafka too only its lag grows, the lag monitor calls it WARN, and it drains once it has its speed back.
     */
    @Test
    @Order(7)
    void theSlowConsumerDrillPassesOnKafka() throws Exception {
        DrillReport report = new SlowConsumerDrill(
                        drillTarget(), "notification-service", 10, 200, Duration.ofSeconds(3), Duration.ofSeconds(20))
                .run();

        assertThat(passed(report))
                .contains(
                        "notification-service was WARN while slow",
                        "inventory-service kept up while notification-service was slow",
                        "notification-service recovered");
    }

    /**
     * hot-partition's short version on Kafka: 80% of the records keyed by one customer land on the one partition the
     * drill predicts ({@code murmur2(key) % partitions}, chosen by the producer), Kafka's per-partition offsets and
     * the lag monitor's rates show it, and order ids spread evenly.
     */
    @Test
    @Order(8)
    void theHotPartitionDrillPassesOnKafka() throws Exception {
        DrillReport report = new HotPartitionDrill(drillTarget(), 20, Duration.ofSeconds(10), 0.8).run();

        assertThat(passed(report))
                .containsPattern("keyed by customer, partition [0-5] took most of the load")
                .contains("keyed by order id, the load spread evenly");
    }

    /**
     * crash-consumer's short version, the launcher's kill and start called directly: inventory-service killed with
     * SIGKILL mid-stream on Kafka's group coordinator, started again, nothing lost or doubled.
     */
    @Test
    @Order(9)
    void theCrashConsumerDrillPassesOnKafka() throws Exception {
        ServiceControl control = new ServiceControl() {
            @Override
            public void kill(String service) {
                platform.kill(service);
            }

            @Override
            public void start(String service) {
                platform.start(service);
            }
        };
        DrillReport report =
                new CrashConsumerDrill(drillTarget(), control, "inventory-service", 10, Duration.ofSeconds(12)).run();

        assertThat(passed(report)).contains("no order lost", "no double effect");
    }

    /**
     * saga's short version on Kafka, the launcher's kill and start called directly: inventory-service and its relay
     * killed with SIGKILL 5 s into 15 s of 10 orders/s, a fifth of them sold out, and started again 5 s later: orders
     * wait CREATED meanwhile, then each is confirmed or rejected once, nothing oversold, every rejection mailed.
     */
    @Test
    @Order(10)
    void theSagaDrillPassesOnKafka() throws Exception {
        ServiceControl control = new ServiceControl() {
            @Override
            public void kill(String service) {
                platform.kill(service);
            }

            @Override
            public void start(String service) {
                platform.start(service);
            }
        };
        DrillReport report =
                new SagaDrill(drillTarget(), control, 10, Duration.ofSeconds(15), Duration.ofSeconds(5), 0.2).run();

        assertThat(passed(report))
                .contains(
                        "every order placed while inventory was away stayed CREATED",
                        "each order's answer is on orders exactly once",
                        "every rejected order got its rejection mail");
    }

    /**
     * broker-failure's short version with Apache Kafka as the victim: SIGKILL 5 s into 15 s of 10 orders/s, then Kafka
     * started again 5 s later on the same log and ports (its crash recovery); nothing lost, nothing doubled, and the
     * services recover by themselves. Last, as the broker it ends is not the one the class started.
     */
    @Test
    @Order(11)
    void theBrokerFailureDrillPassesWithKafkaKilledAndStartedAgain() throws Exception {
        ServiceControl control = new ServiceControl() {
            private int starts;

            @Override
            public void kill(String service) {
                assertThat(service).isEqualTo("kafka");
                kafka.kill();
            }

            @Override
            public void start(String service) throws IOException {
                kafka = kafkaLauncher.restart(kafkaDirectory, work.resolve("kafka-restart-" + ++starts + ".log"));
            }
        };
        DrillReport report = new BrokerFailureDrill(
                        drillTarget(), control, "kafka", 10, Duration.ofSeconds(15), Duration.ofSeconds(5))
                .run();

        assertThat(passed(report))
                .contains(
                        "killed the broker (kafka) with SIGKILL",
                        "no acknowledged order lost",
                        "no double effect",
                        "order-service took every order, the broker down or not");
        assertThat(platform.services()).allMatch(ServiceProcess::isAlive);
    }

    /**
     * The invariant checker the power-cut drill uses, run as {@code ops/bin/invariants} runs it, from outside: the
     * services' HTTP APIs, the {@code orders} topic on Kafka through {@code --bootstrap-servers} and {@code
     * --command-config}, the mails over POP3. Orders go through their lifecycle (placed, answered, paid, shipped,
     * cancelled) and every invariant holds; a journal claiming one more acknowledged order, which nobody placed, fails
     * the check that names it. After the broker-failure drill, so Kafka has been killed and started again beneath.
     */
    @Test
    @Order(12)
    void theInvariantCheckerJudgesARunOnKafkaFromOutsideAndFindsAnOrderThatIsNotThere() throws Exception {
        String sku = "sku-check-" + UUID.randomUUID();
        HttpRequest stock = HttpRequest.newBuilder(service("inventory-service").resolve("/inventory/" + sku))
                .header("Content-Type", "application/json")
                .header("Authorization", "Bearer " + platform.adminToken())
                .PUT(HttpRequest.BodyPublishers.ofString("{\"onHand\":1000}"))
                .build();
        assertThat(http.send(stock, HttpResponse.BodyHandlers.ofString()).statusCode())
                .isEqualTo(200);
        long since = System.currentTimeMillis();
        OrderJournal journal;
        try (OrderTraffic traffic = new OrderTraffic(service("order-service"), "kafka-check-", sku, 5)) {
            traffic.start();
            await().atMost(WITHIN).until(() -> traffic.placed().size() >= 20);
            traffic.stop();
            journal = traffic.journal(since, 1000);
        }
        Path journalFile = work.resolve("journal.json");
        journal.write(journalFile);
        Path token = Files.writeString(work.resolve("admin-token"), platform.adminToken());

        StringWriter passing = new StringWriter();
        int passed = invariants(journalFile, token, passing);
        System.out.println(passing);
        assertThat(passed).as(passing.toString()).isZero();
        assertThat(passing.toString())
                .contains(
                        "[ok] every acknowledged order exists in its last acknowledged state or one step on: "
                                + journal.placed().size() + " orders acknowledged; missing: none",
                        "[ok] every mail sent once by Message-ID",
                        "[ok] analytics-service counted each event once")
                .contains("\nPASS\n");

        String invented = UUID.randomUUID().toString();
        List<OrderJournal.Order> orders = new ArrayList<>(journal.orders());
        orders.add(new OrderJournal.Order(
                "kafka-check-" + UUID.randomUUID(), sku, invented, List.of("CREATED"), List.of()));
        Path tampered = work.resolve("journal-with-an-order-never-placed.json");
        new OrderJournal(journal.run(), orders).write(tampered);
        StringWriter failing = new StringWriter();
        assertThat(invariants(tampered, token, failing)).as(failing.toString()).isEqualTo(1);
        assertThat(failing.toString())
                .contains("[FAILED] every acknowledged order exists", "missing: 1 (" + invented + ")")
                .contains("\nFAIL\n");
    }

    /** {@code ops/bin/invariants} against this platform on Kafka; its exit code, its output in {@code out}. */
    private static int invariants(Path journal, Path adminToken, StringWriter out) {
        return new CommandLine(new InvariantsMain())
                .setOut(new PrintWriter(out, true))
                .setErr(new PrintWriter(out, true))
                .execute(
                        "--journal", journal.toString(),
                        "--mailbox", mails.mailboxUri(),
                        "--within", "PT2M",
                        "--bootstrap-servers", kafka.bootstrapServers(),
                        "--command-config", commandConfig.toString(),
                        "--order-service", service("order-service").toString(),
                        "--inventory-service", service("inventory-service").toString(),
                        "--notification-service",
                                service("notification-service").toString(),
                        "--analytics-service", service("analytics-service").toString(),
                        "--lag-monitor", service("lag-monitor").toString(),
                        "--admin-token-file", adminToken.toString());
    }
}
