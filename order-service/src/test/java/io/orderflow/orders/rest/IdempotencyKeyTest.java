package io.orderflow.orders.rest;

import static io.orderflow.orders.OrderRequests.transition;
import static io.orderflow.orders.OrderRequests.validBody;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.nullValue;
import static org.hamcrest.Matchers.startsWith;

import io.orderflow.orders.OrderTables;
import io.orderflow.orders.PostgresResource;
import io.orderflow.testing.quarkus.BrokerResource;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.ExtractableResponse;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code Idempotency-Key} on {@code POST /orders}: a retry returns the original order (201, same Location,
 * {@code Idempotent-Replayed: true}) and writes nothing; the key with another request is 422; concurrent requests
 * with one key create one order.
 */
@QuarkusTest
@WithTestResource(PostgresResource.class)
@WithTestResource(value = BrokerResource.class, initArgs = @ResourceArg(name = "topics", value = "inventory:3"))
class IdempotencyKeyTest {

    @Inject
    DataSource dataSource;

    @TestHTTPResource("/orders")
    URI orders;

    private OrderTables tables;
    private String key;
    private String customerId;

    @BeforeEach
    void newKeyAndCustomer() {
        tables = new OrderTables(dataSource);
        key = "key-" + UUID.randomUUID();
        customerId = "customer-" + UUID.randomUUID();
    }

    @Test
    void aRetryReturnsTheOriginalOrderAndWritesNothing() {
        ExtractableResponse<Response> first = post(key, validBody(customerId))
                .statusCode(201)
                .header("Idempotent-Replayed", nullValue())
                .extract();
        UUID id = UUID.fromString(first.path("id"));

        ExtractableResponse<Response> retry = post(key, validBody(customerId))
                .statusCode(201)
                .header("Idempotent-Replayed", "true")
                .body("id", equalTo(id.toString()))
                .body("version", equalTo(1))
                .extract();

        assertThat(retry.header("Location")).isEqualTo(first.header("Location"));
        assertThat(retry.body().asString()).isEqualTo(first.body().asString());
        assertThat(ordersOfCustomer()).isOne();
        assertThat(tables.outbox(id)).hasSize(1);
        assertThat(tables.number("SELECT count(*) FROM idempotency_keys WHERE idempotency_key = ?", key))
                .isOne();
    }

    @Test
    void aRetrySpelledDifferentlyIsTheSameRequest() {
        String id = post(key, validBody(customerId)).statusCode(201).extract().path("id");
        String respelled = """
                {"items": [{"unitPrice": 9.950, "quantity": 2, "sku": "SKU-1"},
                           {"quantity": 1, "sku": "SKU-2", "unitPrice": "0.1"}],
                 "channel": "web", "currency": "EUR", "customerId": "%s"}""".formatted(customerId);

        post(key, respelled)
                .statusCode(201)
                .header("Idempotent-Replayed", "true")
                .body("id", equalTo(id));
        assertThat(ordersOfCustomer()).isOne();
    }

    @Test
    void theSameKeyWithAnotherRequestIsRefused() {
        String id = post(key, validBody(customerId)).statusCode(201).extract().path("id");
        String otherCustomer = "customer-" + UUID.randomUUID();

        post(key, validBody(otherCustomer))
                .statusCode(422)
                .contentType(startsWith("application/problem+json"))
                .body("type", equalTo("urn:orderflow:problem:idempotency-key-reused"))
                .body("status", equalTo(422))
                .body("detail", containsString("'" + key + "'"))
                .body("detail", containsString(id));
        assertThat(tables.number("SELECT count(*) FROM orders WHERE customer_id = ?", otherCustomer))
                .isZero();
        assertThat(tables.outbox(UUID.fromString(id))).hasSize(1);
    }

    @Test
    void aReplayShowsTheOrderAsItIsNow() {
        String id = post(key, validBody(customerId)).statusCode(201).extract().path("id");
        transition(UUID.fromString(id), "cancel").statusCode(200);

        post(key, validBody(customerId))
                .statusCode(201)
                .body("id", equalTo(id))
                .body("status", equalTo("CANCELLED"))
                .body("version", equalTo(2));
    }

    @Test
    void concurrentRequestsWithOneKeyCreateOneOrder() {
        HttpClient client = HttpClient.newHttpClient();
        HttpRequest request = HttpRequest.newBuilder(orders)
                .header("Content-Type", "application/json")
                .header("Idempotency-Key", key)
                .POST(HttpRequest.BodyPublishers.ofString(validBody(customerId)))
                .build();

        List<CompletableFuture<HttpResponse<String>>> inFlight = IntStream.range(0, 8)
                .mapToObj(i -> client.sendAsync(request, HttpResponse.BodyHandlers.ofString()))
                .toList();
        List<HttpResponse<String>> responses =
                inFlight.stream().map(CompletableFuture::join).toList();

        assertThat(responses).extracting(HttpResponse::statusCode).containsOnly(201);
        assertThat(responses)
                .extracting(
                        response -> response.headers().firstValue("Location").orElseThrow())
                .hasSize(8)
                .containsOnly(
                        responses.getFirst().headers().firstValue("Location").orElseThrow());
        assertThat(responses)
                .filteredOn(response ->
                        response.headers().firstValue("Idempotent-Replayed").isEmpty())
                .hasSize(1);
        assertThat(ordersOfCustomer()).isOne();
        assertThat(tables.number(
                        "SELECT count(*) FROM outbox x JOIN orders o ON x.aggregate_id = o.id::text"
                                + " WHERE o.customer_id = ?",
                        customerId))
                .isOne();
    }

    @Test
    void withoutAKeyTwoEqualRequestsMakeTwoOrders() {
        String body = validBody(customerId);

        given().contentType(ContentType.JSON).body(body).post("/orders").then().statusCode(201);
        given().contentType(ContentType.JSON).body(body).post("/orders").then().statusCode(201);

        assertThat(ordersOfCustomer()).isEqualTo(2);
    }

    private long ordersOfCustomer() {
        return tables.number("SELECT count(*) FROM orders WHERE customer_id = ?", customerId);
    }

    private static io.restassured.response.ValidatableResponse post(String key, String body) {
        return given().contentType(ContentType.JSON)
                .header("Idempotency-Key", key)
                .body(body)
                .post("/orders")
                .then();
    }
}
