package io.orderflow.broker.server;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;
import java.util.function.BooleanSupplier;

/**
 * {@code GET /metrics} in the Prometheus text format (version 0.0.4, the content type Prometheus has always
 * scraped) and {@code GET /health}, on the JDK's own HTTP server. What the metrics are is {@link BrokerMetrics}'s;
 * this class only serves them. The text is written by Prometheus' own writer, which escapes label values and HELP
 * text (a consumer group id with a quote, a backslash or a newline stays one valid sample). Thread-safe: each
 * scrape takes a fresh snapshot of the registry.
 */
final class MetricsServer implements AutoCloseable {
    private static final PrometheusTextFormatWriter TEXT = PrometheusTextFormatWriter.create();

    private final HttpServer http;

    private MetricsServer(HttpServer http) {
        this.http = http;
    }

    static MetricsServer start(String host, int port, PrometheusRegistry registry, BooleanSupplier healthy)
            throws IOException {
        HttpServer http = HttpServer.create(new InetSocketAddress(host, port), 16);
        http.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        http.createContext("/health", exchange -> {
            boolean ok = healthy.getAsBoolean();
            reply(
                    exchange,
                    ok ? 200 : 503,
                    "text/plain",
                    (ok ? "ok\n" : "not serving\n").getBytes(StandardCharsets.UTF_8));
        });
        http.createContext("/metrics", exchange -> reply(exchange, 200, TEXT.getContentType(), exposition(registry)));
        http.start();
        return new MetricsServer(http);
    }

    /** The registry's current values in the Prometheus text format, as {@code /metrics} serves them. */
    static byte[] exposition(PrometheusRegistry registry) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream(8192);
        TEXT.write(out, registry.scrape());
        return out.toByteArray();
    }

    int port() {
        return http.getAddress().getPort();
    }

    private static void reply(HttpExchange exchange, int status, String type, byte[] body) throws IOException {
        exchange.getResponseHeaders().set("Content-Type", type);
        exchange.sendResponseHeaders(status, body.length);
        try (OutputStream os = exchange.getResponseBody()) {
            os.write(body);
        }
    }

    @Override
    public void close() {
        http.stop(0);
    }
}
