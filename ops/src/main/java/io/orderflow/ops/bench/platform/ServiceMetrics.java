package io.orderflow.ops.bench.platform;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** A Quarkus service's Prometheus exposition, {@code /q/metrics}, read over HTTP. Thread-safe. */
final class ServiceMetrics {
    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private ServiceMetrics() {}

    /** The exposition of the service at {@code baseUri}; an IOException unless it answers 200. */
    static String scrape(URI baseUri) throws IOException, InterruptedException {
        URI uri = baseUri.resolve("/q/metrics");
        HttpResponse<String> response = HTTP.send(
                HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IOException("GET " + uri + " answered " + response.statusCode());
        }
        return response.body();
    }
}
