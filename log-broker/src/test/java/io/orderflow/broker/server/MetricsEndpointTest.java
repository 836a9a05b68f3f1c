package io.orderflow.broker.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code /metrics} with a consumer group whose id holds a newline, a double quote and a backslash, created over the
 * real protocol as any admin client would: its samples carry the id escaped as the Prometheus text format requires,
 * so the scrape stays valid, and Prometheus' own {@code promtool check metrics} accepts it (skipped where promtool,
 * from Debian's {@code prometheus} package, is not installed; {@code .ci/run} installs it).
 */
class MetricsEndpointTest {
    private static final Path PROMTOOL = Path.of("/usr/bin/promtool");
    private static final String GROUP = "lag\n\"quoted\" \\ readers";
    /** The same id as a label value: backslash, double quote and newline written as \\, \" and \n. */
    private static final String ESCAPED = "lag\\n\\\"quoted\\\" \\\\ readers";

    @TempDir
    Path dataDir;

    private final HttpClient http = HttpClient.newHttpClient();

    @Test
    void aGroupIdWithANewlineAQuoteAndABackslashIsEscapedAndPromtoolAcceptsTheScrape() throws Exception {
        BrokerConfig config = BrokerConfig.from(Map.of(
                "port", "0",
                "listen.host", "127.0.0.1",
                "advertised.host", "127.0.0.1",
                "log.dirs", dataDir.toString(),
                "metrics.port", "0"));
        HttpResponse<String> scrape;
        try (Broker broker = Broker.start(config, Clock.systemUTC())) {
            broker.logs().createTopic("lagging", 1, Map.of());
            try (Admin admin =
                    Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + broker.port()))) {
                admin.alterConsumerGroupOffsets(
                                GROUP, Map.of(new TopicPartition("lagging", 0), new OffsetAndMetadata(0)))
                        .all()
                        .get(30, TimeUnit.SECONDS);
            }
            scrape = http.send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + broker.metricsPort() + "/metrics"))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
        }

        assertThat(scrape.statusCode()).isEqualTo(200);
        assertThat(scrape.headers().firstValue("Content-Type")).hasValue("text/plain; version=0.0.4; charset=utf-8");
        String text = scrape.body();
        assertThat(text)
                .contains("orderflow_broker_group_committed_offset{group=\"" + ESCAPED
                        + "\",partition=\"0\",topic=\"lagging\"} 0.0\n")
                .contains("orderflow_broker_group_lag{group=\"" + ESCAPED
                        + "\",partition=\"0\",topic=\"lagging\"} 0.0\n");
        assertThat(text.split("\n"))
                .as("every line a comment or one whole sample")
                .allMatch(line -> line.startsWith("# ") || line.matches("[a-z_]+(\\{.*})? \\S+"));

        assumeTrue(
                Files.isExecutable(PROMTOOL),
                "promtool is not installed: it comes with Debian's prometheus package (apt-get install prometheus)");
        Process promtool = new ProcessBuilder(PROMTOOL.toString(), "check", "metrics")
                .redirectErrorStream(true)
                .start();
        try (OutputStream in = promtool.getOutputStream()) {
            in.write(text.getBytes(StandardCharsets.UTF_8));
        }
        String verdict = new String(promtool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(promtool.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(promtool.exitValue())
                .as("promtool check metrics said: %s", verdict)
                .isZero();
    }
}
