package io.orderflow.ops.compose;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.File;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.ComposeContainer;
import org.testcontainers.containers.wait.strategy.Wait;

/**
 * {@code docker compose up} for real, where a Docker engine exists: the images are built from the repository, the
 * stack comes up healthy, an order posted to order-service is reserved by inventory-service, mailed by
 * notification-service and counted by analytics-service. Skipped, saying so, where there is no engine.
 */
class ComposeStackTest {

    private static final Duration WITHIN = Duration.ofMinutes(3);
    private final HttpClient http = HttpClient.newHttpClient();

    @Test
    void anOrderPostedToTheComposeStackReachesAllThreeConsumers() throws Exception {
        Assumptions.assumeTrue(
                DockerClientFactory.instance().isDockerAvailable(),
                "No Docker engine here: docker-compose.yml is checked by ComposeFileTest only");
        File file = Path.of("..", "..", "docker-compose.yml")
                .toAbsolutePath()
                .normalize()
                .toFile();
        try (ComposeContainer stack = new ComposeContainer(file)
                .withBuild(true)
                .withRemoveVolumes(true)
                .withStartupTimeout(Duration.ofMinutes(15))
                .withExposedService("order-service", 8080, Wait.forHealthcheck())
                .withExposedService("inventory-service", 8082, Wait.forHealthcheck())
                .withExposedService("notification-service", 8083, Wait.forHealthcheck())
                .withExposedService("analytics-service", 8084, Wait.forHealthcheck())) {
            stack.start();
            URI orders = uri(stack, "order-service", 8080, "/orders");
            HttpResponse<String> created = http.send(
                    HttpRequest.newBuilder(orders)
                            .header("Content-Type", "application/json")
                            .POST(HttpRequest.BodyPublishers.ofString("{\"customerId\":\"c-compose\",\"currency\":"
                                    + "\"EUR\",\"items\":[{\"sku\":\"sku-1\",\"quantity\":1,\"unitPrice\":\"2.00\"}]}"))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(created.statusCode()).as(created.body()).isEqualTo(201);
            Matcher id = Pattern.compile("\"id\":\"([^\"]+)\"").matcher(created.body());
            assertThat(id.find()).isTrue();
            String order = id.group(1);

            await().atMost(WITHIN)
                    .ignoreExceptions()
                    .until(() -> get(uri(stack, "inventory-service", 8082, "/reservations/" + order))
                            .contains("\"RESERVED\""));
            await().atMost(WITHIN)
                    .ignoreExceptions()
                    .until(() -> get(uri(stack, "notification-service", 8083, "/notifications?orderId=" + order))
                            .contains("\"SENT\""));
            await().atMost(WITHIN)
                    .ignoreExceptions()
                    .until(() -> get(uri(stack, "analytics-service", 8084, "/analytics/minutes"))
                            .contains("\"OrderCreated\""));
        }
    }

    private static URI uri(ComposeContainer stack, String service, int port, String path) {
        return URI.create(
                "http://" + stack.getServiceHost(service, port) + ":" + stack.getServicePort(service, port) + path);
    }

    private String get(URI uri) throws Exception {
        return http.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString())
                .body();
    }
}
