package io.orderflow.orders;

import static io.restassured.RestAssured.given;

import io.restassured.http.ContentType;
import io.restassured.response.ValidatableResponse;
import java.util.UUID;

/** Requests to the orders API, for tests: valid bodies and the calls of the lifecycle. */
public final class OrderRequests {

    private OrderRequests() {}

    /** A valid create body: 2 x 9.95 + 1 x 0.10 EUR, total 20.00, channel web. */
    public static String validBody(String customerId) {
        return """
                {"customerId": "%s", "currency": "EUR", "channel": "web",
                 "items": [{"sku": "SKU-1", "quantity": 2, "unitPrice": "9.95"},
                           {"sku": "SKU-2", "quantity": 1, "unitPrice": 0.10}]}""".formatted(customerId);
    }

    public static String validBody() {
        return validBody("customer-" + UUID.randomUUID());
    }

    public static ValidatableResponse create(String body) {
        return given().contentType(ContentType.JSON)
                .body(body)
                .when()
                .post("/orders")
                .then();
    }

    /** Creates a valid order and returns its id. */
    public static UUID createOrder() {
        String id = create(validBody()).statusCode(201).extract().path("id");
        return UUID.fromString(id);
    }

    /** Creates a valid order, has inventory reserve it, and returns its id once it is CONFIRMED (version 2). */
    public static UUID createConfirmedOrder() {
        UUID id = createOrder();
        InventoryTopic.reserves(id);
        return id;
    }

    /**
     * {@code POST /orders/{id}/{verb}} with an empty JSON body. (Without a content type RestAssured would declare a
     * form; {@code OrderLifecycleApiTest} covers a POST with no Content-Type at all.)
     */
    public static ValidatableResponse transition(UUID orderId, String verb) {
        return given().contentType(ContentType.JSON)
                .when()
                .post("/orders/" + orderId + "/" + verb)
                .then();
    }

    /** {@code POST /orders/{id}/{verb}} with a JSON body. */
    public static ValidatableResponse transition(UUID orderId, String verb, String body) {
        return given().contentType(ContentType.JSON)
                .body(body)
                .when()
                .post("/orders/" + orderId + "/" + verb)
                .then();
    }
}
