package io.orderflow.broker.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.orderflow.broker.network.ConnectionThreads;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BrokerOperabilityTest {
    @TempDir
    Path dataDir;

    private final HttpClient http = HttpClient.newHttpClient();

    private HttpResponse<String> get(int port, String path) throws Exception {
        return http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void exposesHealthAndPrometheusMetricsForRequestsBytesAndPartitions() throws Exception {
        BrokerConfig config = BrokerConfig.from(Map.of(
                "port", "0",
                "listen.host", "127.0.0.1",
                "advertised.host", "127.0.0.1",
                "log.dirs", dataDir.toString(),
                "metrics.port", "0"));
        try (Broker broker = Broker.start(config, Clock.systemUTC())) {
            String bootstrap = "127.0.0.1:" + broker.port();
            try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
                admin.createTopics(List.of(new NewTopic("metered", 2, (short) 1)))
                        .all()
                        .get(30, TimeUnit.SECONDS);
            }
            Properties p = new Properties();
            p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
            try (KafkaProducer<String, String> producer =
                    new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
                for (int i = 0; i < 5; i++) {
                    producer.send(new ProducerRecord<>("metered", 1, "k", "v" + i))
                            .get(30, TimeUnit.SECONDS);
                }
            }

            HttpResponse<String> health = get(broker.metricsPort(), "/health");
            HttpResponse<String> metrics = get(broker.metricsPort(), "/metrics");

            assertThat(health.statusCode()).isEqualTo(200);
            assertThat(health.body()).isEqualTo("ok\n");
            assertThat(metrics.statusCode()).isEqualTo(200);
            assertThat(metrics.body())
                    .contains("orderflow_broker_log_end_offset{partition=\"1\",topic=\"metered\"} 5.0\n")
                    .contains("orderflow_broker_log_end_offset{partition=\"0\",topic=\"metered\"} 0.0\n")
                    .containsPattern("orderflow_broker_request_seconds_count\\{api=\"Produce\"} [1-9]")
                    .containsPattern("orderflow_broker_bytes_in_total [1-9]")
                    .containsPattern("orderflow_broker_log_size_bytes\\{partition=\"1\",topic=\"metered\"} [1-9]")
                    // A healthy broker has no failures of its own (BrokerMetricsTest shows the series of one).
                    .doesNotContain("orderflow_broker_request_failures_total{");
        }
    }

    @Test
    void cleanShutdownLeavesTheMarkerSoTheNextStartSkipsValidation() throws Exception {
        BrokerConfig config = BrokerConfig.from(
                Map.of("port", "0", "listen.host", "127.0.0.1", "log.dirs", dataDir.toString(), "metrics.port", "-1"));
        try (Broker broker = Broker.start(config, Clock.systemUTC())) {
            broker.logs().createTopic("t", 1, Map.of());
        }
        assertThat(Files.exists(dataDir.resolve("t-0").resolve("clean-shutdown")))
                .isTrue();
        try (Broker again = Broker.start(config, Clock.systemUTC())) {
            assertThat(again.logs().partition("t", 0).orElseThrow().recoveredCleanly())
                    .isTrue();
        }
    }

    @Test
    void helpListsEverySettingWithItsDefault() throws Exception {
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        PrintStream original = System.out;
        System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            BrokerMain.main(new String[] {"--help"});
        } finally {
            System.setOut(original);
        }
        String help = captured.toString(StandardCharsets.UTF_8);
        for (String key : BrokerConfig.KEYS.keySet()) {
            assertThat(help).contains(key);
        }
        assertThat(help).contains("(default: 9092)");
        assertThat(help).contains("--log-format=json", "--log-format=text", "LOG_FORMAT");
    }

    @Test
    void servesKafkaClientsOnVirtualConnectionThreadsToo() throws Exception {
        try (TestBroker broker = TestBroker.start(dataDir, Map.of("connection.threads", "virtual"))) {
            broker.createTopic("virtual", 3, Map.of());
            List<String> sent = new ArrayList<>();
            try (KafkaProducer<String, String> producer = broker.producer()) {
                for (int i = 0; i < 50; i++) {
                    sent.add("v" + i);
                    producer.send(new ProducerRecord<>("virtual", "k" + (i % 5), "v" + i));
                }
                producer.flush();
            }
            List<String> received = new ArrayList<>();
            try (KafkaConsumer<String, String> consumer = broker.consumer()) {
                consumer.assign(List.of(
                        new TopicPartition("virtual", 0),
                        new TopicPartition("virtual", 1),
                        new TopicPartition("virtual", 2)));
                await().atMost(Duration.ofSeconds(30)).until(() -> {
                    consumer.poll(Duration.ofMillis(200)).forEach(r -> received.add(r.value()));
                    return received.size() >= sent.size();
                });
            }
            assertThat(received).containsExactlyInAnyOrderElementsOf(sent);
        }
    }

    @Test
    void refusesAnUnknownKindOfConnectionThreads() {
        org.assertj.core.api.Assertions.assertThatThrownBy(
                        () -> BrokerConfig.from(Map.of("connection.threads", "green")))
                .hasMessageContaining("connection.threads=green")
                .hasMessageContaining("platform");
        assertThat(BrokerConfig.from(Map.of()).connectionThreads()).isEqualTo(ConnectionThreads.PLATFORM);
    }

    @Test
    void quotaWindowsDefaultToKafkasAndRefuseFewerThanTwoWindows() {
        assertThat(BrokerConfig.from(Map.of()).quotaWindows()).isEqualTo(new BrokerConfig.QuotaWindows(11, 1_000));
        assertThat(BrokerConfig.from(Map.of("quota.window.num", "3", "quota.window.size.seconds", "2"))
                        .quotaWindows())
                .isEqualTo(new BrokerConfig.QuotaWindows(3, 2_000));
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> BrokerConfig.from(Map.of("quota.window.num", "1")))
                .hasMessageContaining("quota.window.num=1 must be at least 2");
        org.assertj.core.api.Assertions.assertThatThrownBy(
                        () -> BrokerConfig.from(Map.of("quota.window.size.seconds", "0")))
                .hasMessageContaining("quota.window.size.seconds=0 must be at least 1");
    }

    @Test
    void readsSettingsFromAConfigFileWithCommandLineOverridesOnTop() throws Exception {
        Path file = dataDir.resolve("broker.properties");
        Files.writeString(file, "num.partitions=3\nlog.retention.ms=1000\nport=19092\n");

        BrokerConfig config = BrokerConfig.load(file, Map.of("port", "0"));

        assertThat(config.numPartitions()).isEqualTo(3);
        assertThat(config.logDefaults().retentionMs()).isEqualTo(1000);
        assertThat(config.port()).isZero();
        org.assertj.core.api.Assertions.assertThatThrownBy(
                        () -> BrokerConfig.load(file, Map.of("no.such.setting", "1")))
                .hasMessageContaining("no.such.setting");
    }

    @Test
    void exposesCommittedOffsetAndLagPerGroupAndPartition() throws Exception {
        BrokerConfig config = BrokerConfig.from(Map.of(
                "port", "0",
                "listen.host", "127.0.0.1",
                "advertised.host", "127.0.0.1",
                "log.dirs", dataDir.toString(),
                "metrics.port", "0"));
        try (Broker broker = Broker.start(config, Clock.systemUTC())) {
            String bootstrap = "127.0.0.1:" + broker.port();
            broker.logs().createTopic("lagging", 1, Map.of());
            Properties p = new Properties();
            p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
            try (KafkaProducer<String, String> producer =
                    new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
                for (int i = 0; i < 10; i++) {
                    producer.send(new ProducerRecord<>("lagging", "k", "v" + i)).get(30, TimeUnit.SECONDS);
                }
            }
            try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
                admin.alterConsumerGroupOffsets(
                                "slow-readers",
                                Map.of(
                                        new org.apache.kafka.common.TopicPartition("lagging", 0),
                                        new org.apache.kafka.clients.consumer.OffsetAndMetadata(4)))
                        .all()
                        .get(30, TimeUnit.SECONDS);
            }

            String metrics = get(broker.metricsPort(), "/metrics").body();

            assertThat(metrics)
                    .contains("orderflow_broker_group_committed_offset{group=\"slow-readers\",partition=\"0\","
                            + "topic=\"lagging\"} 4.0\n")
                    .contains(
                            "orderflow_broker_group_lag{group=\"slow-readers\",partition=\"0\",topic=\"lagging\"} 6.0\n");
        }
    }
}
