package io.orderflow.orders.rest;

import static io.orderflow.orders.OrderRequests.createConfirmedOrder;
import static io.orderflow.orders.OrderRequests.createOrder;
import static io.orderflow.orders.OrderRequests.transition;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.hasKey;

import io.orderflow.orders.InventoryTopic;
import io.orderflow.orders.OrderTables;
import io.orderflow.orders.PostgresResource;
import io.orderflow.testing.quarkus.BrokerResource;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/** What operators rely on: the OpenAPI document, health checks and Prometheus metrics. */
@QuarkusTest
@WithTestResource(PostgresResource.class)
@WithTestResource(value = BrokerResource.class, initArgs = @ResourceArg(name = "topics", value = "inventory:3"))
class OperationsEndpointsTest {

    @Inject
    DataSource dataSource;

    @Test
    void theOpenApiDocumentDescribesTheOrdersApi() {
        given().queryParam("format", "json")
                .get("/q/openapi")
                .then()
                .statusCode(200)
                .body("info.title", equalTo("orderflow order-service"))
                .body("paths", hasKey("/orders"))
                .body("paths", hasKey("/orders/{id}"))
                .body("paths", hasKey("/orders/{id}/pay"))
                .body("paths", hasKey("/orders/{id}/ship"))
                .body("paths", hasKey("/orders/{id}/cancel"))
                .body("paths.'/orders'.post.responses", hasKey("201"))
                .body("paths.'/orders'.post.responses", hasKey("422"))
                .body("paths.'/orders/{id}/pay'.post.responses", hasKey("409"))
                .body("components.schemas", hasKey("Problem"))
                .body("components.schemas", hasKey("CreateOrderRequest"));
    }

    @Test
    void readinessChecksTheDatabase() {
        given().get("/q/health/ready")
                .then()
                .statusCode(200)
                .body("status", equalTo("UP"))
                .body("checks.name", hasItem("Database connections health check"))
                .body("checks.find { it.name == 'Database connections health check' }.status", equalTo("UP"));
    }

    @Test
    void livenessIsUp() {
        given().get("/q/health/live").then().statusCode(200).body("status", equalTo("UP"));
    }

    @Test
    void metricsCountOrdersByStatusAndTimeRequests() {
        transition(createConfirmedOrder(), "pay").statusCode(200);
        OrderTables tables = new OrderTables(dataSource);

        String metrics = given().accept("text/plain")
                .get("/q/metrics")
                .then()
                .statusCode(200)
                .extract()
                .asString();

        for (String status : new String[] {"CREATED", "CONFIRMED", "REJECTED", "PAID", "SHIPPED", "CANCELLED"}) {
            assertThat(gauge(metrics, status))
                    .as("orders_by_status{status=%s}", status)
                    .isEqualTo(tables.number("SELECT count(*) FROM orders WHERE status = ?", status));
        }
        assertThat(metrics)
                .containsPattern("http_server_requests_seconds_count\\{[^}]*method=\"POST\"[^}]*uri=\"/orders\"")
                .containsPattern("http_server_requests_seconds_count\\{[^}]*uri=\"/orders/\\{id\\}/pay\"");
    }

    /**
     * An order that has waited longer than the configured time for inventory's answer (1 h in tests; this one was
     * placed two hours ago) is counted as overdue, and the oldest wait is at least its age; once inventory answers, it
     * no longer counts.
     */
    @Test
    void anOrderWaitingTooLongForInventorysAnswerIsCountedUntilItIsAnswered() {
        OrderTables tables = new OrderTables(dataSource);
        double overdueBefore = metric("orders_awaiting_inventory_overdue");
        UUID waiting = createOrder();
        tables.execute("UPDATE orders SET created_at = now() - interval '2 hours' WHERE id = ?", waiting);

        assertThat(metric("orders_awaiting_inventory_overdue")).isEqualTo(overdueBefore + 1);
        assertThat(metric("orders_awaiting_inventory_oldest_seconds")).isGreaterThanOrEqualTo(7_200);

        InventoryTopic.reserves(waiting);

        assertThat(metric("orders_awaiting_inventory_overdue")).isEqualTo(overdueBefore);
    }

    private static double metric(String name) {
        String metrics = given().accept("text/plain")
                .get("/q/metrics")
                .then()
                .statusCode(200)
                .extract()
                .asString();
        Matcher value =
                Pattern.compile("(?m)^" + name + "(?:\\{[^}]*})? (\\S+)$").matcher(metrics);
        assertThat(value.find()).as("%s in%n%s", name, metrics).isTrue();
        return Double.parseDouble(value.group(1));
    }

    private static double gauge(String metrics, String status) {
        Matcher value = Pattern.compile("(?m)^orders_by_status\\{[^}]*status=\"" + status + "\"[^}]*} (\\S+)$")
                .matcher(metrics);
        assertThat(value.find())
                .as("orders_by_status{status=%s} in%n%s", status, metrics)
                .isTrue();
        return Double.parseDouble(value.group(1));
    }
}
