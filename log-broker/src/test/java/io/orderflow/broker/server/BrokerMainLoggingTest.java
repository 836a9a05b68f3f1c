package io.orderflow.broker.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.orderflow.broker.log.DataDirectoryInUseException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The runnable broker's logs as an operator gets them: {@link BrokerMain} in a JVM of its own, on this module's
 * runtime classpath (logback), with its own logging configuration, read from its stderr. By default every line is
 * one JSON object with the event's time, level, logger, thread, message and fields; {@code LOG_FORMAT=text} gives
 * plain lines.
 */
class BrokerMainLoggingTest {
    private static final Duration STARTUP = Duration.ofSeconds(60);
    private static final List<String> EVERY_EVENT_HAS =
            List.of("timestamp", "level", "threadName", "loggerName", "formattedMessage");

    @TempDir
    Path workDir;

    private final ObjectMapper json = new ObjectMapper().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    private final List<Process> children = new ArrayList<>();

    @AfterEach
    void killLeftovers() {
        children.forEach(Process::destroyForcibly);
    }

    @Test
    void logsOneJsonObjectPerLineWithLevelLoggerThreadMessageAndFieldsByDefault() throws Exception {
        Path dataDir = workDir.resolve("data");
        long before = System.currentTimeMillis();
        Process broker = brokerMain(Map.of(), "--port=0", "--log.dirs=" + dataDir);
        await("the broker serving")
                .atMost(STARTUP)
                .until(() -> !broker.isAlive() || stderr().contains("Broker serving Kafka clients"));

        broker.destroy(); // SIGTERM: the shutdown hook stops the broker cleanly
        assertThat(broker.waitFor(30, TimeUnit.SECONDS))
                .as("stopped after SIGTERM")
                .isTrue();
        long after = System.currentTimeMillis();

        List<JsonNode> events = jsonLines();
        assertThat(events).allSatisfy(e -> assertThat(EVERY_EVENT_HAS).allMatch(e::has));
        JsonNode serving = event(events, "Broker serving Kafka clients");
        assertThat(serving.get("level").asText()).isEqualTo("INFO");
        assertThat(serving.get("loggerName").asText()).isEqualTo(Broker.class.getName());
        assertThat(serving.get("threadName").asText()).isEqualTo("main");
        assertThat(serving.get("timestamp").isIntegralNumber()).isTrue();
        assertThat(serving.get("timestamp").asLong()).isBetween(before, after);
        Map<String, String> fields = fields(serving);
        assertThat(fields)
                .containsEntry("listenHost", "127.0.0.1")
                .containsEntry("dataDir", dataDir.toAbsolutePath().toString())
                .containsEntry("metricsPort", "-1")
                .containsKeys("nodeId", "advertisedHost", "advertisedPort", "clusterId", "startupMs");
        assertThat(Integer.parseInt(fields.get("port"))).isPositive();
        assertThat(fields(event(events, "Logs opened")))
                .containsEntry("partitions", "0")
                .containsEntry("dataDir", dataDir.toAbsolutePath().toString());
        JsonNode stopped = event(events, "Broker stopped cleanly");
        assertThat(stopped.get("level").asText()).isEqualTo("INFO");
        assertThat(stopped.get("threadName").asText()).isEqualTo("broker-shutdown");
        assertThat(workDir.resolve("stdout.log"))
                .as("nothing on stdout: logback prints its own start-up status there when its configuration warns")
                .isEmptyFile();
    }

    @Test
    void aFailedStartIsAJsonErrorEventWithTheExceptionAndTheAddressItCouldNotBind() throws Exception {
        try (ServerSocket occupied = new ServerSocket(0, 50, InetAddress.getByName("127.0.0.1"))) {
            int port = occupied.getLocalPort();
            Process broker = brokerMain(Map.of(), "--port=" + port, "--log.dirs=" + workDir.resolve("data"));

            assertThat(broker.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(broker.exitValue()).isEqualTo(1);

            JsonNode failed = event(jsonLines(), "Broker did not start");
            assertThat(failed.get("level").asText()).isEqualTo("ERROR");
            assertThat(fields(failed)).containsEntry("port", Integer.toString(port));
            JsonNode throwable = failed.get("throwable");
            assertThat(throwable.get("className").asText()).isEqualTo(BrokerStartException.class.getName());
            assertThat(throwable.get("message").asText())
                    .contains("bind the Kafka listener PLAINTEXT to 127.0.0.1:" + port);
            assertThat(throwable.get("stepArray").isArray()).isTrue();
            assertThat(throwable.get("cause").get("className").asText()).isEqualTo("java.net.BindException");
        }
    }

    @Test
    void logFormatTextGivesPlainLinesWithTheFieldsAsKeyValuePairs() throws Exception {
        Process broker =
                brokerMain(Map.of(LogFormat.PROPERTY, "text"), "--port=0", "--log.dirs=" + workDir.resolve("data"));
        await("the broker serving")
                .atMost(STARTUP)
                .until(() -> !broker.isAlive() || stderr().contains("Broker serving Kafka clients"));
        broker.destroy();
        assertThat(broker.waitFor(30, TimeUnit.SECONDS)).isTrue();

        List<String> lines = stderr().lines().filter(l -> !l.isBlank()).toList();
        assertThat(lines).noneMatch(l -> l.startsWith("{"));
        assertThat(lines)
                .filteredOn(l -> l.contains("Broker serving Kafka clients"))
                .singleElement()
                .asString()
                .containsPattern("^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}\\S+ INFO  \\[main] Broker - ")
                .contains("listenHost=\"127.0.0.1\"")
                .containsPattern("port=\"[1-9]\\d*\"");
        assertThat(workDir.resolve("stdout.log")).isEmptyFile();
    }

    @Test
    void theCommandLineChoosesTheFormatOverTheEnvironmentAndUnknownFormatsAreRefused() {
        assertThat(LogFormat.choose(null, null, null)).isEqualTo(LogFormat.JSON);
        assertThat(LogFormat.choose(null, null, "TEXT")).isEqualTo(LogFormat.TEXT);
        assertThat(LogFormat.choose(null, "json", "text")).isEqualTo(LogFormat.JSON);
        assertThat(LogFormat.choose("text", "json", "json")).isEqualTo(LogFormat.TEXT);
        assertThatThrownBy(() -> LogFormat.choose(null, null, "xml"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'xml'")
                .hasMessageContaining("environment variable LOG_FORMAT");
    }

    @Test
    void aSecondBrokerProcessOnADataDirectoryInUseExitsWithAnErrorNamingIt() throws Exception {
        Path dataDir = workDir.resolve("shared-data");
        try (Broker running = Broker.start(TestBroker.config(dataDir, Map.of()), Clock.systemUTC())) {
            Process second = brokerMain(Map.of(), "--port=0", "--log.dirs=" + dataDir);

            assertThat(second.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(second.exitValue()).isEqualTo(1);
            JsonNode failed = event(jsonLines(), "Broker did not start");
            JsonNode throwable = failed.get("throwable");
            assertThat(throwable.get("message").asText()).contains("lock the data directory");
            assertThat(throwable.get("cause").get("className").asText())
                    .isEqualTo(DataDirectoryInUseException.class.getName());
            running.logs().createTopic("still-writable", 1, Map.of());
            assertThat(running.logs().topic("still-writable")).isPresent();
        }
    }

    /** BrokerMain in a child JVM on loopback without the metrics endpoint; its stderr goes to a file. */
    private Process brokerMain(Map<String, String> environment, String... settings) throws IOException {
        List<String> command = new ArrayList<>(List.of(
                ProcessHandle.current().info().command().orElse("java"),
                "-Xmx128m",
                "-XX:+UseSerialGC",
                "-cp",
                System.getProperty("java.class.path"),
                BrokerMain.class.getName(),
                "--listen.host=127.0.0.1",
                "--advertised.host=127.0.0.1",
                "--metrics.port=-1"));
        command.addAll(List.of(settings));
        ProcessBuilder builder = new ProcessBuilder(command)
                .redirectOutput(workDir.resolve("stdout.log").toFile())
                .redirectError(stderrFile().toFile());
        builder.environment().remove(LogFormat.PROPERTY);
        builder.environment().putAll(environment);
        Process process = builder.start();
        children.add(process);
        return process;
    }

    private Path stderrFile() {
        return workDir.resolve("stderr.log");
    }

    private String stderr() {
        try {
            return Files.readString(stderrFile(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Every line of stderr, each of which must be exactly one JSON object. */
    private List<JsonNode> jsonLines() {
        List<JsonNode> events = new ArrayList<>();
        for (String line : stderr().lines().filter(l -> !l.isBlank()).toList()) {
            JsonNode node;
            try {
                node = json.readTree(line);
            } catch (IOException e) {
                throw new AssertionError("Not a JSON line: " + line, e);
            }
            assertThat(node.isObject()).as("a JSON object: %s", line).isTrue();
            events.add(node);
        }
        assertThat(events).as("log lines").isNotEmpty();
        return events;
    }

    private static JsonNode event(List<JsonNode> events, String message) {
        return events.stream()
                .filter(e -> message.equals(e.path("formattedMessage").asText()))
                .findFirst()
                .orElseThrow(() -> new AssertionError("No event '" + message + "' in " + events));
    }

    /** The event's key-value pairs: JsonEncoder writes them as {@code "kvpList": [{"key": "value"}, ...]}. */
    private static Map<String, String> fields(JsonNode event) {
        Map<String, String> fields = new HashMap<>();
        for (JsonNode pair : event.path("kvpList")) {
            pair.properties().forEach(e -> fields.put(e.getKey(), e.getValue().asText()));
        }
        return fields;
    }
}
