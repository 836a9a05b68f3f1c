package io.orderflow.orders.service;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.orderflow.orders.OrderTables;
import io.orderflow.orders.PostgresResource;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.path.json.JsonPath;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * With {@code orderflow.order-service.warm-up.rounds} set, the service runs the order path that many times at start,
 * reports ready once they are done, and keeps nothing of them (the other tests start with {@code 0}).
 */
@QuarkusTest
@WithTestResource(PostgresResource.class)
@TestProfile(WarmUpTest.TwentyFiveRounds.class)
class WarmUpTest {
    public static final class TwentyFiveRounds implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("orderflow.order-service.warm-up.rounds", "25");
        }
    }

    @Inject
    DataSource dataSource;

    @Test
    void theServiceIsReadyAfterItsWarmUpRoundsAndKeepsNothingOfThem() {
        await().atMost(Duration.ofSeconds(60))
                .until(() -> given().get("/q/health/ready").statusCode() == 200);

        JsonPath health = given().get("/q/health/ready").then().extract().jsonPath();
        Map<String, Object> warmUp = health.getMap("checks.find { it.name == 'warm-up' }");
        assertThat(warmUp).containsEntry("status", "UP");
        assertThat(health.getMap("checks.find { it.name == 'warm-up' }.data"))
                .containsEntry("rounds", 25)
                .containsEntry("completed", 25)
                .containsEntry("requests", 100)
                .doesNotContainKey("failure");

        given().get("/orders/" + UUID.randomUUID()).then().statusCode(404);
        String metrics = given().get("/q/metrics").then().extract().asString();
        assertThat(metrics)
                .as("only this test's own 404 is in the HTTP metrics, none of the warm-up's")
                .containsPattern("http_server_requests_seconds_count\\{method=\"GET\",outcome=\"CLIENT_ERROR\","
                        + "status=\"404\",uri=\"/orders/\\{id}\"} 1.0\n")
                .doesNotContain("POST\",outcome=\"CLIENT_ERROR\"", "warm-up");

        OrderTables tables = new OrderTables(dataSource);
        assertThat(tables.number("SELECT count(*) FROM orders WHERE customer_id = 'warm-up'"))
                .isZero();
        assertThat(tables.number("SELECT count(*) FROM order_lines WHERE sku = 'WARM-UP-1'"))
                .isZero();
        assertThat(tables.number("SELECT count(*) FROM idempotency_keys WHERE idempotency_key LIKE 'warm-up-%'"))
                .isZero();
        assertThat(tables.number("SELECT count(*) FROM outbox WHERE payload::text LIKE '%WARM-UP-1%'"))
                .isZero();
    }
}
