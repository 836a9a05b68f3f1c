package io.orderflow.orders.rest;

import static io.orderflow.orders.OrderRequests.create;
import static io.orderflow.orders.OrderRequests.createOrder;
import static io.orderflow.orders.OrderRequests.transition;
import static io.orderflow.orders.OrderRequests.validBody;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.startsWith;

import io.orderflow.orders.PostgresResource;
import io.orderflow.testing.quarkus.BrokerResource;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.ValidatableResponse;
import java.util.UUID;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Every kind of bad input gets a 400 problem naming the field at fault; never a 500. */
@QuarkusTest
@WithTestResource(PostgresResource.class)
@WithTestResource(value = BrokerResource.class, initArgs = @ResourceArg(name = "topics", value = "inventory:3"))
class BadRequestTest {

    private static final String LINE = "{\"sku\": \"SKU-1\", \"quantity\": 2, \"unitPrice\": \"9.95\"}";

    static Stream<Arguments> invalidCreateBodies() {
        return Stream.of(
                invalid("customerId", "{\"currency\": \"EUR\", \"items\": [" + LINE + "]}"),
                invalid("customerId", body("\"  \"", "\"EUR\"", LINE)),
                invalid("customerId", body("42", "\"EUR\"", LINE)),
                invalid("customerId", body("\"" + "c".repeat(101) + "\"", "\"EUR\"", LINE)),
                invalid("customerId", body("\"line\\nbreak\"", "\"EUR\"", LINE)),
                invalid("customerId", body("\"lone \\ud800 surrogate\"", "\"EUR\"", LINE)),
                invalid("items[0].sku", body("\"c\"", "\"EUR\"", line("\"\\udc00\"", "1", "1"))),
                invalid("currency", "{\"customerId\": \"c\", \"items\": [" + LINE + "]}"),
                invalid("currency", body("\"c\"", "\"XYZ\"", LINE)),
                invalid("currency", body("\"c\"", "\"eur\"", LINE)),
                invalid("currency", body("\"c\"", "\"EURO\"", LINE)),
                invalid("currency", body("\"c\"", "978", LINE)),
                invalid("items", "{\"customerId\": \"c\", \"currency\": \"EUR\"}"),
                invalid("items", "{\"customerId\": \"c\", \"currency\": \"EUR\", \"items\": []}"),
                invalid("items", "{\"customerId\": \"c\", \"currency\": \"EUR\", \"items\": " + LINE + "}"),
                invalid("items", "{\"customerId\": \"c\", \"currency\": \"EUR\", \"items\": \"SKU-1\"}"),
                invalid(
                        "items",
                        body(
                                "\"c\"",
                                "\"EUR\"",
                                IntStream.range(0, 101).mapToObj(i -> LINE).collect(Collectors.joining(",")))),
                invalid("items[0]", body("\"c\"", "\"EUR\"", "null")),
                invalid("items[0]", body("\"c\"", "\"EUR\"", "7")),
                invalid("items[1].quantity", body("\"c\"", "\"EUR\"", LINE + ", " + line("\"a\"", "0", "1"))),
                invalid("items[0].quantity", body("\"c\"", "\"EUR\"", line("\"a\"", "-1", "1"))),
                invalid("items[0].quantity", body("\"c\"", "\"EUR\"", line("\"a\"", "\"3\"", "1"))),
                invalid("items[0].quantity", body("\"c\"", "\"EUR\"", line("\"a\"", "1.5", "1"))),
                invalid("items[0].quantity", body("\"c\"", "\"EUR\"", line("\"a\"", "true", "1"))),
                invalid("items[0].quantity", body("\"c\"", "\"EUR\"", line("\"a\"", "null", "1"))),
                invalid("items[0].quantity", body("\"c\"", "\"EUR\"", line("\"a\"", "3000000000", "1"))),
                invalid("items[0].quantity", body("\"c\"", "\"EUR\"", line("\"a\"", "1000001", "1"))),
                invalid("items[0].quantity", body("\"c\"", "\"EUR\"", "{\"sku\": \"a\", \"unitPrice\": 1}")),
                invalid("items[0].unitPrice", body("\"c\"", "\"EUR\"", line("\"a\"", "1", "-0.01"))),
                invalid("items[0].unitPrice", body("\"c\"", "\"EUR\"", line("\"a\"", "1", "\"-5\""))),
                invalid("items[0].unitPrice", body("\"c\"", "\"EUR\"", line("\"a\"", "1", "\"abc\""))),
                invalid("items[0].unitPrice", body("\"c\"", "\"EUR\"", line("\"a\"", "1", "\"\""))),
                invalid("items[0].unitPrice", body("\"c\"", "\"EUR\"", line("\"a\"", "1", "true"))),
                invalid("items[0].unitPrice", body("\"c\"", "\"EUR\"", line("\"a\"", "1", "null"))),
                invalid("items[0].unitPrice", body("\"c\"", "\"EUR\"", line("\"a\"", "1", "0.0000000001"))),
                invalid("items[0].unitPrice", body("\"c\"", "\"EUR\"", line("\"a\"", "1", "1e999999999"))),
                invalid("items[0].unitPrice", body("\"c\"", "\"EUR\"", line("\"a\"", "1", "1000000000"))),
                invalid("items[0].sku", body("\"c\"", "\"EUR\"", "{\"quantity\": 1, \"unitPrice\": 1}")),
                invalid("items[0].sku", body("\"c\"", "\"EUR\"", line("\"\\u0000\"", "1", "1"))),
                invalid("items[0].sku", body("\"c\"", "\"EUR\"", line("[]", "1", "1"))),
                invalid(
                        "channel",
                        "{\"customerId\": \"c\", \"currency\": \"EUR\", \"channel\": \"\", \"items\": [" + LINE + "]}"),
                invalid(
                        "channel",
                        "{\"customerId\": \"c\", \"currency\": \"EUR\", \"channel\": 1, \"items\": [" + LINE + "]}"),
                invalid(
                        "chanel",
                        "{\"customerId\": \"c\", \"currency\": \"EUR\", \"chanel\": \"web\", \"items\": [" + LINE
                                + "]}"),
                invalid("body", ""),
                invalid("body", "   "),
                invalid("body", "null"),
                invalid("body", "[]"),
                invalid("body", "\"an order\""),
                invalid("body", "{"),
                invalid("body", "{\"customerId\": \"c\",}"),
                invalid("body", "{'customerId': 'c'}"),
                invalid("body", validBody() + " {}"),
                invalid("body", "{\"customerId\": \"a\", \"customerId\": \"b\"}"),
                // Jackson refuses a 2001-digit number inside the line, before it knows the property name.
                invalid(
                        "items[0]",
                        "{\"customerId\": \"c\", \"currency\": \"EUR\", \"items\": ["
                                + line("\"a\"", "1", "1" + "0".repeat(2000)) + "]}"));
    }

    @ParameterizedTest
    @MethodSource("invalidCreateBodies")
    void anInvalidOrderIsRefusedNamingTheField(String field, String body) {
        problem400(create(body)).body("errors.field", hasItem(field));
    }

    @Test
    void everyInvalidFieldIsNamedAtOnce() {
        String body = """
                {"currency": "XYZ", "items": [{"sku": "a", "quantity": 0, "unitPrice": -1}, null]}""";

        problem400(create(body))
                .body(
                        "errors.field",
                        contains("currency", "customerId", "items[0].quantity", "items[0].unitPrice", "items[1]"))
                .body("detail", startsWith("the request is invalid at currency, customerId, items[0].quantity"))
                .body("errors.find { it.field == 'currency' }.message", containsString("(was 'XYZ')"));
    }

    @Test
    void aMalformedOrderIdIsABadRequest() {
        problem400(given().get("/orders/not-an-id").then())
                .body("errors.field", contains("id"))
                .body("instance", equalTo("/orders/not-an-id"));
        problem400(given().get("/orders/1-2-3-4-5").then()).body("errors.field", contains("id"));
        problem400(given().contentType(ContentType.JSON).post("/orders/42/pay").then())
                .body("errors.field", contains("id"));
        problem400(given().contentType(ContentType.JSON).post("/orders/x/ship").then())
                .body("errors.field", contains("id"));
        problem400(given().contentType(ContentType.JSON)
                        .post("/orders/x/cancel")
                        .then())
                .body("errors.field", contains("id"));
    }

    @Test
    void invalidTransitionBodiesAreBadRequests() {
        UUID id = createOrder();

        problem400(transition(id, "pay", "{\"paymentReference\": \"\"}"))
                .body("errors.field", contains("paymentReference"));
        problem400(transition(id, "pay", "{\"paymentReference\": 7}"))
                .body("errors.field", contains("paymentReference"));
        problem400(transition(id, "pay", "{\"amount\": 7}")).body("errors.field", contains("amount"));
        problem400(transition(id, "ship", "{\"carrier\": [\"DHL\"]}")).body("errors.field", contains("carrier"));
        problem400(transition(id, "ship", "{\"trackingNumber\": \" \"}"))
                .body("errors.field", contains("trackingNumber"));
        problem400(transition(id, "cancel", "{\"reason\": \"" + "r".repeat(501) + "\"}"))
                .body("errors.field", contains("reason"));
        problem400(transition(id, "cancel", "{\"reason\": ")).body("errors.field", contains("body"));
        problem400(transition(id, "cancel", "[]")).body("errors.field", contains("body"));

        given().get("/orders/" + id).then().body("status", equalTo("CREATED")).body("version", equalTo(1));
    }

    @Test
    void aMalformedIdempotencyKeyIsABadRequest() {
        problem400(given().contentType(ContentType.JSON)
                        .header("Idempotency-Key", "k".repeat(256))
                        .body(validBody())
                        .post("/orders")
                        .then())
                .body("errors.field", contains("Idempotency-Key"));
        problem400(given().contentType(ContentType.JSON)
                        .header("Idempotency-Key", "two words")
                        .body(validBody())
                        .post("/orders")
                        .then())
                .body("errors.field", contains("Idempotency-Key"));
    }

    @Test
    void aBodyThatIsNotJsonIsUnsupported() {
        given().contentType(ContentType.TEXT)
                .body(validBody())
                .post("/orders")
                .then()
                .statusCode(415)
                .contentType(startsWith("application/problem+json"))
                .body("status", equalTo(415))
                .body("title", equalTo("Unsupported Media Type"));
        given().contentType(ContentType.XML)
                .body("<order/>")
                .post("/orders/" + UUID.randomUUID() + "/pay")
                .then()
                .statusCode(415);
    }

    @Test
    void askingForAnythingButJsonIsNotAcceptable() {
        given().accept(ContentType.XML)
                .get("/orders/" + createOrder())
                .then()
                .statusCode(406)
                .contentType(startsWith("application/problem+json"))
                .body("status", equalTo(406));
    }

    @Test
    void anUnsupportedMethodIsNotAllowed() {
        given().delete("/orders").then().statusCode(405).contentType(startsWith("application/problem+json"));
    }

    @Test
    void anUnknownPathIsAProblemToo() {
        given().get("/no/such/thing")
                .then()
                .statusCode(404)
                .contentType(startsWith("application/problem+json"))
                .body("type", equalTo("about:blank"))
                .body("instance", equalTo("/no/such/thing"));
    }

    private static ValidatableResponse problem400(ValidatableResponse response) {
        return response.statusCode(400)
                .contentType(startsWith("application/problem+json"))
                .body("type", equalTo("urn:orderflow:problem:invalid-request"))
                .body("title", equalTo("Invalid request"))
                .body("status", equalTo(400));
    }

    private static Arguments invalid(String field, String body) {
        return Arguments.of(field, body);
    }

    private static String body(String customerId, String currency, String lines) {
        return "{\"customerId\": " + customerId + ", \"currency\": " + currency + ", \"items\": [" + lines + "]}";
    }

    private static String line(String sku, String quantity, String unitPrice) {
        return "{\"sku\": " + sku + ", \"quantity\": " + quantity + ", \"unitPrice\": " + unitPrice + "}";
    }
}
