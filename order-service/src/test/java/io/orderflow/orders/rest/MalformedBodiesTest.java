package io.orderflow.orders.rest;

import static io.orderflow.orders.OrderRequests.createOrder;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.orderflow.orders.PostgresResource;
import io.orderflow.testing.quarkus.BrokerResource;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Throws a few hundred random, mostly broken bodies at the API ({@link JsonishBodies}, seeds 0..n, so a failure names
 * its seed and reproduces) and requires an answer the client can act on: a created or changed order, or a 4xx
 * problem+json whose {@code status} is the HTTP status. Never a 5xx.
 */
@QuarkusTest
@WithTestResource(PostgresResource.class)
@WithTestResource(value = BrokerResource.class, initArgs = @ResourceArg(name = "topics", value = "inventory:3"))
class MalformedBodiesTest {

    private static final int CREATE_SEEDS = 300;
    private static final int TRANSITION_SEEDS = 60;

    @TestHTTPResource("/")
    URI base;

    private final HttpClient client = HttpClient.newHttpClient();
    private final ObjectMapper json = new ObjectMapper();

    @Test
    void noBodyMakesCreateFailWithAnythingButAProblem4xx() throws Exception {
        List<String> wrong = new ArrayList<>();
        for (int seed = 0; seed < CREATE_SEEDS; seed++) {
            String body = JsonishBodies.generate(new Random(seed));
            check(seed, "orders", body, 201, wrong);
        }
        assertThat(wrong).isEmpty();
    }

    @Test
    void noBodyMakesATransitionFailWithAnythingButAProblem4xx() throws Exception {
        List<String> wrong = new ArrayList<>();
        for (int seed = 0; seed < TRANSITION_SEEDS; seed++) {
            String body = JsonishBodies.generate(new Random(seed));
            UUID id = createOrder();
            check(seed, "orders/" + id + "/" + List.of("pay", "ship", "cancel").get(seed % 3), body, 200, wrong);
        }
        assertThat(wrong).isEmpty();
    }

    private void check(int seed, String path, String body, int success, List<String> wrong) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(base.resolve(path))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build();
        HttpResponse<String> response = client.send(request, HttpResponse.BodyHandlers.ofString());
        int status = response.statusCode();
        if (status == success || (status == 409 && success == 200)) {
            return;
        }
        String contentType = response.headers().firstValue("Content-Type").orElse("");
        JsonNode problem = status >= 400 && status < 500 ? parse(response.body()) : null;
        if (problem == null
                || !contentType.startsWith("application/problem+json")
                || problem.path("status").asInt() != status
                || problem.path("type").asText().isEmpty()) {
            wrong.add("seed " + seed + ": POST /" + path + " " + body + " -> " + status + " " + contentType + " "
                    + response.body());
        }
    }

    private JsonNode parse(String text) {
        try {
            return json.readTree(text);
        } catch (Exception e) {
            return null;
        }
    }
}
