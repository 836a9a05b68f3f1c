package io.orderflow.platform;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;
import io.opentelemetry.proto.collector.trace.v1.ExportTraceServiceResponse;
import io.opentelemetry.proto.common.v1.KeyValue;
import io.opentelemetry.proto.trace.v1.ResourceSpans;
import io.opentelemetry.proto.trace.v1.ScopeSpans;
import io.opentelemetry.proto.trace.v1.Span;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.zip.GZIPInputStream;

/**
 * An OTLP/HTTP trace receiver in the test's JVM: services export their spans to it ({@code http/protobuf}) and it
 * keeps every span in memory, with the name of the service that sent it. An exporter that times out waiting for the
 * answer sends the same batch again (OTLP export is at-least-once), so a span is kept once per trace and span id.
 * Thread-safe.
 */
final class OtlpTraceCollector implements AutoCloseable {

    /** One received span; ids in lower-case hex, an empty parent for a root span. */
    record ReceivedSpan(
            String service,
            String traceId,
            String spanId,
            String parentSpanId,
            String name,
            Span.SpanKind kind,
            Map<String, String> attributes) {}

    private static final HexFormat HEX = HexFormat.of();

    private final HttpServer server;
    private final Map<String, ReceivedSpan> spans = new LinkedHashMap<>();

    private OtlpTraceCollector(HttpServer server) {
        this.server = server;
    }

    static OtlpTraceCollector start() throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        OtlpTraceCollector collector = new OtlpTraceCollector(server);
        server.createContext("/", collector::receive);
        server.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
        server.start();
        return collector;
    }

    /** What {@code quarkus.otel.exporter.otlp.traces.endpoint} is set to. */
    URI endpoint() {
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/v1/traces");
    }

    synchronized List<ReceivedSpan> spans() {
        return List.copyOf(spans.values());
    }

    List<ReceivedSpan> trace(String traceId) {
        return spans().stream().filter(span -> span.traceId().equals(traceId)).toList();
    }

    private void receive(HttpExchange exchange) throws IOException {
        try (exchange) {
            InputStream body = exchange.getRequestBody();
            if ("gzip".equalsIgnoreCase(exchange.getRequestHeaders().getFirst("Content-Encoding"))) {
                body = new GZIPInputStream(body);
            }
            ExportTraceServiceRequest request = ExportTraceServiceRequest.parseFrom(body);
            for (ResourceSpans resource : request.getResourceSpansList()) {
                String service =
                        attributes(resource.getResource().getAttributesList()).getOrDefault("service.name", "");
                for (ScopeSpans scope : resource.getScopeSpansList()) {
                    for (Span span : scope.getSpansList()) {
                        keep(new ReceivedSpan(
                                service,
                                HEX.formatHex(span.getTraceId().toByteArray()),
                                HEX.formatHex(span.getSpanId().toByteArray()),
                                HEX.formatHex(span.getParentSpanId().toByteArray()),
                                span.getName(),
                                span.getKind(),
                                attributes(span.getAttributesList())));
                    }
                }
            }
            byte[] response = ExportTraceServiceResponse.getDefaultInstance().toByteArray();
            exchange.getResponseHeaders().set("Content-Type", "application/x-protobuf");
            exchange.sendResponseHeaders(200, response.length == 0 ? -1 : response.length);
            if (response.length > 0) {
                exchange.getResponseBody().write(response);
            }
        }
    }

    private synchronized void keep(ReceivedSpan span) {
        spans.putIfAbsent(span.traceId() + "/" + span.spanId(), span);
    }

    private static Map<String, String> attributes(List<KeyValue> attributes) {
        Map<String, String> values = new LinkedHashMap<>();
        for (KeyValue attribute : attributes) {
            var value = attribute.getValue();
            values.put(
                    attribute.getKey(),
                    switch (value.getValueCase()) {
                        case STRING_VALUE -> value.getStringValue();
                        case INT_VALUE -> Long.toString(value.getIntValue());
                        case BOOL_VALUE -> Boolean.toString(value.getBoolValue());
                        case DOUBLE_VALUE -> Double.toString(value.getDoubleValue());
                        default -> value.toString();
                    });
        }
        return values;
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
