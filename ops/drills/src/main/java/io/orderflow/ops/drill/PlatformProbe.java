package io.orderflow.ops.drill;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.orderflow.ops.load.PrometheusText;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BooleanSupplier;

/**
 * What drills ask of the platform over HTTP, as a user would: place an order, read it back from order-service, read a
 * reservation, an order's mails, a SKU's stock, each consumer's count of skipped duplicates; and waiting for a
 * condition while reading the lag once a second. Thread-safe (the JDK's client).
 */
public final class PlatformProbe {

    private final DrillTarget target;
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final ObjectMapper json = new ObjectMapper();

    public PlatformProbe(DrillTarget target) {
        this.target = target;
    }

    /** Places an order of one unit of {@code sku}; returns its id. */
    String placeOrder(String customer, String sku) throws IOException, InterruptedException {
        HttpResponse<String> created = http.send(
                HttpRequest.newBuilder(target.orderService().resolve("/orders"))
                        .timeout(Duration.ofSeconds(30))
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString("{\"customerId\":\"" + customer
                                + "\",\"currency\":\"EUR\",\"items\":[{\"sku\":\"" + sku
                                + "\",\"quantity\":1,\"unitPrice\":\"1.00\"}]}"))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        if (created.statusCode() != 201) {
            throw new IOException("POST /orders answered " + created.statusCode() + ": " + created.body());
        }
        return json.readTree(created.body()).get("id").asText();
    }

    /** order-service's view of {@code order} ({@code GET /orders/{id}}: status, version, ...), or null if not 200. */
    JsonNode order(String order) throws IOException, InterruptedException {
        HttpResponse<String> answer = fetch(target.orderService().resolve("/orders/" + order));
        return answer.statusCode() == 200 ? json.readTree(answer.body()) : null;
    }

    /**
     * True once order-service has {@code order} in one of {@code statuses}; false while it has not, or cannot be asked.
     */
    boolean hasStatus(String order, Set<String> statuses) {
        try {
            JsonNode found = order(order);
            return found != null && statuses.contains(found.path("status").asText());
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** inventory-service's reservation of {@code order} as JSON text, or null while it has none. */
    String reservation(String order) throws IOException, InterruptedException {
        HttpResponse<String> answer = fetch(target.inventoryService().resolve("/reservations/" + order));
        return answer.statusCode() == 200 ? answer.body() : null;
    }

    /** How many mails notification-service recorded for {@code order}. */
    int mails(String order) throws IOException, InterruptedException {
        return json.readTree(fetch(target.notificationService().resolve("/notifications?orderId=" + order))
                        .body())
                .size();
    }

    /** The event types of the mails notification-service recorded for {@code order}, as it lists them. */
    List<String> mailTypes(String order) throws IOException, InterruptedException {
        List<String> types = new ArrayList<>();
        for (JsonNode mail :
                json.readTree(fetch(target.notificationService().resolve("/notifications?orderId=" + order))
                        .body())) {
            types.add(mail.path("eventType").asText());
        }
        return types;
    }

    /** inventory-service's stock of {@code sku}: on hand, reserved, available. */
    JsonNode stock(String sku) throws IOException, InterruptedException {
        return json.readTree(
                fetch(target.inventoryService().resolve("/inventory/" + sku)).body());
    }

    /** True when inventory reserved {@code order} and notification recorded a mail for it. */
    boolean processed(String order) {
        try {
            return reservation(order) != null && mails(order) > 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /**
     * Each consuming service's count of records it skipped as duplicates since it started, by group (order-service's
     * saga group too); a service that does not answer is absent.
     */
    Map<String, Double> duplicates() throws InterruptedException {
        Map<String, Double> counts = new HashMap<>();
        for (Map.Entry<String, URI> service : target.allConsumers().entrySet()) {
            try {
                String metrics = fetch(service.getValue().resolve("/q/metrics")).body();
                counts.put(
                        service.getKey(),
                        PrometheusText.value(metrics, "orderflow_consumer_events_total", "outcome=\"duplicate\"")
                                .orElse(0));
            } catch (IOException e) {
                // down: absent
            }
        }
        return counts;
    }

    /**
     * Throws a consuming service's drill switch: {@code PUT /drills/slowdown?perRecordMillis=N}, or {@code DELETE} for
     * 0 (full speed), with the target's admin token. The service must run with its {@code drills-enabled} setting on,
     * as {@code ./run-platform} and docker compose run it.
     */
    public void slowDown(URI service, long perRecordMillis) throws IOException, InterruptedException {
        URI slowdown = service.resolve("/drills/slowdown");
        HttpRequest.Builder request = HttpRequest.newBuilder(
                        perRecordMillis == 0 ? slowdown : URI.create(slowdown + "?perRecordMillis=" + perRecordMillis))
                .timeout(Duration.ofSeconds(10));
        request = perRecordMillis == 0 ? request.DELETE() : request.PUT(HttpRequest.BodyPublishers.noBody());
        if (target.adminToken() != null) {
            request.header("Authorization", "Bearer " + target.adminToken());
        }
        HttpResponse<String> answer = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        if (answer.statusCode() != 200) {
            throw new IOException(slowdown + " answered " + answer.statusCode()
                    + " (is drills-enabled on? is --admin-token-file right?): " + answer.body());
        }
    }

    /** Reads the lag once a second until {@code done}, or fails after {@code within}. */
    static void awaitWhileWatching(LagWatch lag, Duration within, BooleanSupplier done) throws InterruptedException {
        long deadline = System.nanoTime() + within.toNanos();
        while (true) {
            lag.sample();
            if (done.getAsBoolean()) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the platform did not get there within " + within.toSeconds() + " s");
            }
            Thread.sleep(1_000); // the drills' reading cadence: one lag reading a second
        }
    }

    HttpResponse<String> fetch(URI uri) throws IOException, InterruptedException {
        return http.send(
                HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
    }
}
