package io.orderflow.ops.drill;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The watch against the lag monitor's {@code GET /lag} JSON, served over HTTP from answers the test sets. */
class LagWatchTest {

    private final AtomicReference<String> answer = new AtomicReference<>();
    private HttpServer server;

    @BeforeEach
    void setUp() throws Exception {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/lag", exchange -> {
            byte[] body = answer.get().getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.start();
    }

    @AfterEach
    void tearDown() {
        server.stop(0);
    }

    private LagWatch watch() {
        return new LagWatch(
                URI.create("http://127.0.0.1:" + server.getAddress().getPort()), "orders", List.of("inventory"));
    }

    /** A snapshot of topic {@code orders} with two partitions and group {@code inventory} at these (committed, lag). */
    private static String snapshot(long committed0, long lag0, long committed1, long lag1) {
        return """
                {"topics": [{"topic": "orders", "partitions": [
                   {"partition": 0, "startOffset": 0, "endOffset": 10, "producedPerSecond": 1.0},
                   {"partition": 1, "startOffset": 0, "endOffset": 20, "producedPerSecond": 2.0}]}],
                 "groups": [{"group": "inventory", "status": "OK", "partitions": [
                   {"topic": "orders", "partition": 0, "committed": %d, "lag": %d},
                   {"topic": "orders", "partition": 1, "committed": %d, "lag": %d}]}]}
                """.formatted(committed0, lag0, committed1, lag1);
    }

    @Test
    void aPartitionHeldWithoutACommitCountsItsLagButIsNotCommitted() throws Exception {
        LagWatch watch = watch();
        answer.set(snapshot(4, 6, -1, 20));

        assertThat(watch.sample()).isTrue();

        LagWatch.Reading reading = watch.latest("inventory").orElseThrow();
        assertThat(reading.lag()).isEqualTo(26);
        assertThat(reading.partitionLag()).isEqualTo(Map.of(0, 6L, 1, 20L));
        assertThat(reading.committedPartitions()).isEqualTo(1);
        assertThat(watch.committedEverywhere("inventory")).isFalse();

        answer.set(snapshot(10, 0, 15, 5));
        assertThat(watch.sample()).isTrue();
        assertThat(watch.committedEverywhere("inventory")).isTrue();
        assertThat(watch.latest("inventory").orElseThrow().lag()).isEqualTo(5);
    }

    @Test
    void eachGroupIsReadOnItsOwnTopicAndTheChartNamesTheTopics() throws Exception {
        LagWatch watch = new LagWatch(
                URI.create("http://127.0.0.1:" + server.getAddress().getPort()),
                Map.of("inventory", "orders", "order-service", "inventory"));
        answer.set("""
                {"topics": [
                   {"topic": "orders", "partitions": [
                      {"partition": 0, "producedPerSecond": 1.0}, {"partition": 1, "producedPerSecond": 2.0}]},
                   {"topic": "inventory", "partitions": [{"partition": 0, "producedPerSecond": 3.0}]}],
                 "groups": [
                   {"group": "inventory", "status": "OK", "partitions": [
                      {"topic": "orders", "partition": 0, "committed": 4, "lag": 6},
                      {"topic": "orders", "partition": 1, "committed": 5, "lag": 1},
                      {"topic": "inventory_retry_1000", "partition": 0, "committed": 0, "lag": 50}]},
                   {"group": "order-service", "status": "WARN", "partitions": [
                      {"topic": "inventory", "partition": 0, "committed": 2, "lag": 9},
                      {"topic": "orders", "partition": 0, "committed": 0, "lag": 70}]}]}
                """);

        assertThat(watch.sample()).isTrue();

        assertThat(watch.latest("inventory").orElseThrow().lag()).isEqualTo(7);
        assertThat(watch.latest("order-service").orElseThrow().lag()).isEqualTo(9);
        assertThat(watch.committedEverywhere("inventory")).isTrue();
        assertThat(watch.committedEverywhere("order-service")).isTrue();
        assertThat(watch.ratesAt("inventory", watch.seconds())).isEqualTo(Map.of(0, 3.0));
        assertThat(watch.allCaughtUp()).isFalse();
        assertThat(watch.chart(60))
                .contains("order-service (inventory) |", "max 9 records, last status WARN")
                .contains("inventory (orders)");
    }
}
