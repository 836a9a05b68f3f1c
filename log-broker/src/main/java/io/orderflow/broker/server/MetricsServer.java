package io.orderflow.broker.server;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.orderflow.broker.log.LogDirectory;
import io.orderflow.broker.log.PartitionLog;
import io.orderflow.broker.network.NetworkStats;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.apache.kafka.common.protocol.ApiKeys;

/**
 * {@code GET /metrics} in the Prometheus text format and {@code GET /health}, on the JDK's own HTTP server
 * (no dependency for two endpoints). Metric names carry the {@code orderflow_broker_} prefix.
 */
final class MetricsServer implements AutoCloseable {
    private final HttpServer http;

    private MetricsServer(HttpServer http) {
        this.http = http;
    }

    /** A source of extra lines (group offsets and lag) that other parts of the broker contribute. */
    interface Section extends Consumer<StringBuilder> {}

    static MetricsServer start(
            String host,
            int port,
            RequestMetrics requests,
            NetworkStats network,
            LogDirectory logs,
            BooleanSupplier healthy,
            Section... sections)
            throws IOException {
        HttpServer http = HttpServer.create(new InetSocketAddress(host, port), 16);
        http.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        http.createContext("/health", exchange -> {
            boolean ok = healthy.getAsBoolean();
            reply(exchange, ok ? 200 : 503, "text/plain", ok ? "ok\n" : "not serving\n");
        });
        http.createContext("/metrics", exchange -> {
            StringBuilder out = new StringBuilder(8192);
            writeRequests(out, requests);
            writeNetwork(out, network);
            writeLogs(out, logs);
            for (Section s : sections) {
                s.accept(out);
            }
            reply(exchange, 200, "text/plain; version=0.0.4; charset=utf-8", out.toString());
        });
        http.start();
        return new MetricsServer(http);
    }

    int port() {
        return http.getAddress().getPort();
    }

    private static void writeRequests(StringBuilder out, RequestMetrics requests) {
        out.append("# HELP orderflow_broker_request_seconds Time to handle a request, by API.\n");
        out.append("# TYPE orderflow_broker_request_seconds histogram\n");
        for (Map.Entry<ApiKeys, RequestMetrics.PerApi> e : requests.perApi().entrySet()) {
            RequestMetrics.PerApi m = e.getValue();
            long count = m.count.sum();
            if (count == 0) {
                continue;
            }
            String api = e.getKey().name;
            long cumulative = 0;
            for (int i = 0; i < RequestMetrics.BUCKETS_SECONDS.length; i++) {
                cumulative += m.buckets[i].sum();
                out.append(String.format(
                        Locale.ROOT,
                        "orderflow_broker_request_seconds_bucket{api=\"%s\",le=\"%s\"} %d%n",
                        api,
                        RequestMetrics.BUCKETS_SECONDS[i],
                        cumulative));
            }
            out.append(String.format(
                    Locale.ROOT, "orderflow_broker_request_seconds_bucket{api=\"%s\",le=\"+Inf\"} %d%n", api, count));
            out.append(String.format(
                    Locale.ROOT, "orderflow_broker_request_seconds_sum{api=\"%s\"} %.6f%n", api, m.nanos.sum() / 1e9));
            out.append(
                    String.format(Locale.ROOT, "orderflow_broker_request_seconds_count{api=\"%s\"} %d%n", api, count));
        }
    }

    private static void writeNetwork(StringBuilder out, NetworkStats network) {
        counter(out, "orderflow_broker_bytes_in_total", "Request bytes received.", network.bytesIn());
        counter(out, "orderflow_broker_bytes_out_total", "Response bytes sent.", network.bytesOut());
        counter(
                out,
                "orderflow_broker_rejected_frames_total",
                "Frames that closed their connection.",
                network.rejectedFrames());
        counter(
                out,
                "orderflow_broker_connections_accepted_total",
                "Connections accepted.",
                network.acceptedConnections());
    }

    private static void writeLogs(StringBuilder out, LogDirectory logs) {
        out.append("# HELP orderflow_broker_log_end_offset Next offset to be written, per partition.\n");
        out.append("# TYPE orderflow_broker_log_end_offset gauge\n");
        for (PartitionLog p : logs.partitions()) {
            out.append(labels("orderflow_broker_log_end_offset", p))
                    .append(p.logEndOffset())
                    .append('\n');
        }
        out.append("# HELP orderflow_broker_log_start_offset First offset still stored, per partition.\n");
        out.append("# TYPE orderflow_broker_log_start_offset gauge\n");
        for (PartitionLog p : logs.partitions()) {
            out.append(labels("orderflow_broker_log_start_offset", p))
                    .append(p.logStartOffset())
                    .append('\n');
        }
        out.append("# HELP orderflow_broker_log_size_bytes Bytes on disk, per partition.\n");
        out.append("# TYPE orderflow_broker_log_size_bytes gauge\n");
        for (PartitionLog p : logs.partitions()) {
            out.append(labels("orderflow_broker_log_size_bytes", p))
                    .append(p.sizeInBytes())
                    .append('\n');
        }
        out.append("# HELP orderflow_broker_log_flushes_total fsyncs of each partition's active segment.\n");
        out.append("# TYPE orderflow_broker_log_flushes_total counter\n");
        for (PartitionLog p : logs.partitions()) {
            out.append(labels("orderflow_broker_log_flushes_total", p))
                    .append(p.flushCount())
                    .append('\n');
        }
    }

    private static String labels(String metric, PartitionLog p) {
        String name = p.name();
        int dash = name.lastIndexOf('-');
        return metric + "{topic=\"" + name.substring(0, dash) + "\",partition=\"" + name.substring(dash + 1) + "\"} ";
    }

    private static void counter(StringBuilder out, String name, String help, long value) {
        out.append("# HELP ").append(name).append(' ').append(help).append('\n');
        out.append("# TYPE ").append(name).append(" counter\n");
        out.append(name).append(' ').append(value).append('\n');
    }

    private static void reply(HttpExchange exchange, int status, String type, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", type);
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream os = exchange.getResponseBody()) {
            os.write(bytes);
        }
    }

    @Override
    public void close() {
        http.stop(0);
    }
}
