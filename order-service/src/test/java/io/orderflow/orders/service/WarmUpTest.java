package io.orderflow.orders.service;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

import io.orderflow.orders.OrderTables;
import io.orderflow.orders.PostgresResource;
import io.orderflow.testing.quarkus.BrokerResource;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;
import org.junit.jupiter.api.Test;

/**
 * The warm-up's rounds (tests start with {@code orderflow.order-service.warm-up.rounds=0} and run them here; at start the
 * service runs them before it reports ready, which {@code PlatformEndToEndTest} checks on the packaged service): they
 * keep nothing, and their requests are not in the HTTP metrics.
 */
@QuarkusTest
@WithTestResource(PostgresResource.class)
@WithTestResource(value = BrokerResource.class, initArgs = @ResourceArg(name = "topics", value = "inventory:3"))
class WarmUpTest {

    private static final Pattern NOT_FOUND_COUNT = Pattern.compile(
            "http_server_requests_seconds_count\\{method=\"(GET|POST)\",outcome=\"CLIENT_ERROR\",status=\"404\","
                    + "uri=\"/orders/\\{id}\"} ([0-9.]+)");

    @Inject
    @Readiness
    WarmUp warmUp;

    @Inject
    DataSource dataSource;

    @Test
    void itsRoundsKeepNoOrderLineKeyOrOutboxRowAndItsRequestsAreNotMeasured() throws Exception {
        double notFoundBefore = notFoundAnswers();

        warmUp.rehearse(10);

        HealthCheckResponse health = warmUp.call();
        assertThat(health.getStatus()).isEqualTo(HealthCheckResponse.Status.UP);
        assertThat(health.getData().orElseThrow()).containsEntry("completed", 10L);
        OrderTables tables = new OrderTables(dataSource);
        assertThat(tables.number("SELECT count(*) FROM orders WHERE customer_id = 'warm-up'"))
                .isZero();
        assertThat(tables.number("SELECT count(*) FROM order_lines WHERE sku = 'WARM-UP-1'"))
                .isZero();
        assertThat(tables.number("SELECT count(*) FROM idempotency_keys WHERE idempotency_key LIKE 'warm-up-%'"))
                .isZero();
        assertThat(tables.number("SELECT count(*) FROM outbox WHERE payload LIKE '%WARM-UP-1%'"))
                .isZero();
        String metrics =
                given().get("/q/metrics").then().statusCode(200).extract().asString();
        assertThat(metrics).as("the warm-up's 40 requests, each a 404").doesNotContain("/warm-up");
        assertThat(notFoundAnswers()).isEqualTo(notFoundBefore);
    }

    /** The 404s of {@code /orders/{id}} in the HTTP metrics so far. */
    private static double notFoundAnswers() {
        Matcher counts = NOT_FOUND_COUNT.matcher(given().get("/q/metrics").asString());
        double total = 0;
        while (counts.find()) {
            total += Double.parseDouble(counts.group(2));
        }
        return total;
    }
}
