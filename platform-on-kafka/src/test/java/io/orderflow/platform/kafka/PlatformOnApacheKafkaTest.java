package io.orderflow.platform.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.orderflow.contracts.Topics;
import io.orderflow.ops.bench.kafkaperf.ApacheKafkaLauncher;
import io.orderflow.ops.bench.kafkaperf.RunningBroker;
import io.orderflow.ops.drill.CrashConsumerDrill;
import io.orderflow.ops.drill.DrillReport;
import io.orderflow.ops.drill.DrillTarget;
import io.orderflow.ops.drill.DuplicateEventDrill;
import io.orderflow.ops.drill.SchemaChangeDrill;
import io.orderflow.ops.drill.ServiceControl;
import io.orderflow.ops.drill.TrafficSpikeDrill;
import io.orderflow.platform.LaunchOptions;
import io.orderflow.platform.LocalPlatform;
import io.orderflow.postgres.PostgresConfiguration;
import io.orderflow.process.ServiceProcess;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.TopicDescription;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * The whole platform on Apache Kafka 4.4 instead of our broker, with nothing changed but {@code bootstrap.servers}:
 * {@code ./run-platform --bootstrap-servers} ({@link LocalPlatform} with {@link LaunchOptions#kafkaBootstrapServers})
 * against a single-node KRaft Kafka started from Maven Central's {@code kafka_2.13}, as the benchmarks start it, and the
 * same packaged services as on our broker. An order placed over HTTP reaches the three consumers and inventory's
 * outcome is published; the lag monitor sees every group caught up; the duplicate-event, schema-change, traffic-spike
 * and crash-consumer drills' short versions pass, as they do on our broker in {@code PlatformEndToEndTest}.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class PlatformOnApacheKafkaTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration WITHIN = Duration.ofSeconds(120);
    private static final List<String> GROUPS =
            List.of("inventory-service", "notification-service", "analytics-service");

    @TempDir
    static Path work;

    private static RunningBroker kafka;
    private static LocalPlatform platform;

    private final HttpClient http = HttpClient.newHttpClient();

    @BeforeAll
    static void startKafkaAndThePlatformOnIt() throws Exception {
        Path kafkaDirectory = work.resolve("kafka");
        kafka = ApacheKafkaLauncher.onClasspath(System.getProperty("java.class.path"), List.of("-Xmx512m"), 6)
                .start(kafkaDirectory, work.resolve("kafka.log"));
        LaunchOptions options = new LaunchOptions(
                false,
                work.resolve("postgres"),
                0,
                work.resolve("no-broker"),
                0,
                0,
                true,
                Path.of(".."),
                0,
                0,
                0,
                LaunchOptions.Tracing.OFF,
                kafka.bootstrapServers());
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
                platform.bootstrapServers());
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
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()))) {
            Map<String, TopicDescription> topics = admin.describeTopics(List.of(Topics.ORDERS, Topics.INVENTORY))
                    .allTopicNames()
                    .get();
            assertThat(topics.get(Topics.ORDERS).partitions()).hasSize(6);
            assertThat(topics.get(Topics.INVENTORY).partitions()).hasSize(6);
        }
    }

    @Test
    @Order(2)
    void anOrderPlacedOverHttpReachesTheThreeConsumersAndTheLagMonitorSeesThemCaughtUp() throws Exception {
        String customer = "c-" + UUID.randomUUID();
        HttpResponse<String> created = http.send(
                HttpRequest.newBuilder(service("order-service").resolve("/orders"))
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString("{\"customerId\":\"" + customer
                                + "\",\"currency\":\"EUR\",\"items\":[{\"sku\":\"sku-3\",\"quantity\":1,"
                                + "\"unitPrice\":\"4.00\"}]}"))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
        String id = JSON.readTree(created.body()).get("id").asText();

        await().atMost(WITHIN)
                .ignoreExceptions()
                .until(() -> get(service("inventory-service").resolve("/reservations/" + id))
                        .contains("\"RESERVED\""));
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
    @Order(3)
    void theDuplicateEventDrillPassesOnKafka() throws Exception {
        DrillReport report = new DuplicateEventDrill(drillTarget(), 5).run();

        assertThat(report.passed()).as(report.render()).isTrue();
        assertThat(report.render()).contains("inventory-service skipped every copy as a duplicate");
    }

    @Test
    @Order(4)
    void theSchemaChangeDrillPassesOnKafka() throws Exception {
        DrillReport report = new SchemaChangeDrill(drillTarget(), 3, 3, Duration.ofSeconds(8)).run();

        assertThat(report.passed()).as(report.render()).isTrue();
        assertThat(report.render()).contains("has version 2.0");
    }

    @Test
    @Order(5)
    void theTrafficSpikeDrillPassesOnKafka() throws Exception {
        DrillReport report =
                new TrafficSpikeDrill(drillTarget(), 3, 10, Duration.ofSeconds(4), Duration.ofSeconds(4)).run();

        assertThat(report.passed()).as(report.render()).isTrue();
    }

    /**
     * crash-consumer's short version, the launcher's kill and start called directly: inventory-service killed with
     * SIGKILL mid-stream on Kafka's group coordinator, started again, nothing lost or doubled.
     */
    @Test
    @Order(6)
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

        assertThat(report.passed()).as(report.render()).isTrue();
        assertThat(report.render()).contains("no order lost", "no double effect");
    }
}
