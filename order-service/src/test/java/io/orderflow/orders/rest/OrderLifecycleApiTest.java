package io.orderflow.orders.rest;

import static io.orderflow.orders.OrderRequests.create;
import static io.orderflow.orders.OrderRequests.createConfirmedOrder;
import static io.orderflow.orders.OrderRequests.createOrder;
import static io.orderflow.orders.OrderRequests.transition;
import static io.orderflow.orders.OrderRequests.validBody;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.endsWith;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasKey;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.startsWith;

import io.orderflow.orders.InventoryTopic;
import io.orderflow.orders.PostgresResource;
import io.orderflow.testing.quarkus.BrokerResource;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import io.restassured.response.ExtractableResponse;
import io.restassured.response.Response;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

@QuarkusTest
@WithTestResource(PostgresResource.class)
@WithTestResource(value = BrokerResource.class, initArgs = @ResourceArg(name = "topics", value = "inventory:3"))
class OrderLifecycleApiTest {

    @TestHTTPResource("/")
    URI base;

    @Test
    void createAnswers201WithLocationAndTheOrder() {
        ExtractableResponse<Response> created = create(validBody("customer-7"))
                .statusCode(201)
                .contentType(ContentType.JSON)
                .body("customerId", equalTo("customer-7"))
                .body("currency", equalTo("EUR"))
                .body("channel", equalTo("web"))
                .body("status", equalTo("CREATED"))
                .body("version", equalTo(1))
                .body("items[0].sku", equalTo("SKU-1"))
                .body("items[0].quantity", equalTo(2))
                .body("items[0].unitPrice", equalTo("9.95"))
                .body("items[1].unitPrice", equalTo("0.10"))
                .body("total", equalTo("20.00"))
                .body("$", not(hasKey("paymentReference")))
                .extract();

        String id = created.path("id");
        assertThat(created.header("Location")).endsWith("/orders/" + id);
        given().get(created.header("Location")).then().statusCode(200).body("id", equalTo(id));
    }

    @Test
    void totalIsTheExactSumOfQuantityTimesUnitPrice() {
        String body = """
                {"customerId": "c", "currency": "USD", "items": [
                  {"sku": "a", "quantity": 3, "unitPrice": "0.1"},
                  {"sku": "b", "quantity": 7, "unitPrice": 0.07},
                  {"sku": "c", "quantity": 1000000, "unitPrice": "999999999.999999999"}]}""";

        create(body)
                .statusCode(201)
                .body("total", equalTo("1000000000000000.789000000"))
                .body("items[2].unitPrice", equalTo("999999999.999999999"))
                .body("$", not(hasKey("channel")));
    }

    @Test
    void anOrderGoesFromCreatedToConfirmedToPaidToShipped() {
        UUID id = createOrder();
        InventoryTopic.reserves(id);
        given().get("/orders/" + id).then().body("status", equalTo("CONFIRMED")).body("version", equalTo(2));

        transition(id, "pay", "{\"paymentReference\": \"pay_42\"}")
                .statusCode(200)
                .body("status", equalTo("PAID"))
                .body("version", equalTo(3))
                .body("paymentReference", equalTo("pay_42"));
        transition(id, "ship", "{\"carrier\": \"DHL\", \"trackingNumber\": \"JJD0001\"}")
                .statusCode(200)
                .body("status", equalTo("SHIPPED"))
                .body("version", equalTo(4))
                .body("carrier", equalTo("DHL"))
                .body("trackingNumber", equalTo("JJD0001"));

        given().get("/orders/" + id)
                .then()
                .statusCode(200)
                .body("status", equalTo("SHIPPED"))
                .body("version", equalTo(4))
                .body("paymentReference", equalTo("pay_42"));
    }

    @Test
    void transitionsNeedNoBody() {
        UUID id = createConfirmedOrder();

        transition(id, "pay").statusCode(200).body("status", equalTo("PAID"));
        transition(id, "ship").statusCode(200).body("status", equalTo("SHIPPED"));
    }

    @Test
    void aTransitionNeedsNoContentTypeEither() throws Exception {
        UUID id = createOrder();
        HttpRequest bare = HttpRequest.newBuilder(base.resolve("orders/" + id + "/cancel"))
                .POST(HttpRequest.BodyPublishers.noBody())
                .build();

        HttpResponse<String> response = HttpClient.newHttpClient().send(bare, HttpResponse.BodyHandlers.ofString());

        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).contains("\"status\":\"CANCELLED\"");
    }

    @Test
    void aCreatedOrderCanBeCancelledWithAReason() {
        UUID id = createOrder();

        transition(id, "cancel", "{\"reason\": \"out of stock\"}")
                .statusCode(200)
                .body("status", equalTo("CANCELLED"))
                .body("cancellationReason", equalTo("out of stock"));
    }

    @Test
    void aPaidOrderCanBeCancelledAndGetsTheDefaultReason() {
        UUID id = createConfirmedOrder();
        transition(id, "pay").statusCode(200);

        transition(id, "cancel", "{}")
                .statusCode(200)
                .body("status", equalTo("CANCELLED"))
                .body("version", equalTo(4))
                .body("cancellationReason", equalTo("requested by customer"));
    }

    @Test
    void shippingACreatedOrderIsAConflict() {
        UUID id = createOrder();

        transition(id, "ship")
                .statusCode(409)
                .contentType(startsWith("application/problem+json"))
                .body("type", equalTo("urn:orderflow:problem:transition-not-allowed"))
                .body("status", equalTo(409))
                .body(
                        "detail",
                        equalTo("cannot ship order " + id + ": it is CREATED, and ship is only allowed from [PAID]"))
                .body("instance", equalTo("/orders/" + id + "/ship"));
        given().get("/orders/" + id).then().body("status", equalTo("CREATED")).body("version", equalTo(1));
    }

    @Test
    void payingAnOrderInventoryHasNotAnsweredForIsAConflict() {
        UUID id = createOrder();

        transition(id, "pay")
                .statusCode(409)
                .contentType(startsWith("application/problem+json"))
                .body(
                        "detail",
                        equalTo("cannot pay order " + id
                                + ": it is CREATED, and pay is only allowed from [CONFIRMED]"));
        given().get("/orders/" + id).then().body("status", equalTo("CREATED")).body("version", equalTo(1));
    }

    @Test
    void aConfirmedOrderCanBeCancelled() {
        UUID id = createConfirmedOrder();

        transition(id, "cancel", "{\"reason\": \"changed my mind\"}")
                .statusCode(200)
                .body("status", equalTo("CANCELLED"))
                .body("version", equalTo(3));
    }

    @Test
    void aRejectedOrderKeepsInventorysReasonAndCanBeNeitherPaidShippedNorCancelled() {
        UUID id = createOrder();
        InventoryTopic.rejects(id, "not enough stock of SKU-1", List.of("SKU-1"));

        given().get("/orders/" + id)
                .then()
                .body("status", equalTo("REJECTED"))
                .body("version", equalTo(2))
                .body("rejectionReason", equalTo("not enough stock of SKU-1"))
                .body("shortSkus", contains("SKU-1"));
        for (String verb : List.of("pay", "ship", "cancel")) {
            transition(id, verb)
                    .statusCode(409)
                    .contentType(startsWith("application/problem+json"))
                    .body("type", equalTo("urn:orderflow:problem:transition-not-allowed"))
                    .body("detail", startsWith("cannot " + verb + " order " + id + ": it is REJECTED"));
        }
        given().get("/orders/" + id).then().body("status", equalTo("REJECTED")).body("version", equalTo(2));
    }

    @Test
    void payingACancelledOrderIsAConflict() {
        UUID id = createOrder();
        transition(id, "cancel").statusCode(200);

        transition(id, "pay").statusCode(409).body("type", endsWith("transition-not-allowed"));
    }

    @Test
    void payingTwiceIsAConflict() {
        UUID id = createConfirmedOrder();
        transition(id, "pay").statusCode(200);

        transition(id, "pay").statusCode(409).body("detail", startsWith("cannot pay order " + id + ": it is PAID"));
    }

    @Test
    void cancellingAShippedOrderIsAConflict() {
        UUID id = createConfirmedOrder();
        transition(id, "pay").statusCode(200);
        transition(id, "ship").statusCode(200);

        transition(id, "cancel").statusCode(409);
        given().get("/orders/" + id).then().body("status", equalTo("SHIPPED"));
    }

    @Test
    void anUnknownOrderIsNotFound() {
        UUID unknown = UUID.randomUUID();

        given().get("/orders/" + unknown)
                .then()
                .statusCode(404)
                .contentType(startsWith("application/problem+json"))
                .body("type", equalTo("urn:orderflow:problem:order-not-found"))
                .body("title", equalTo("Order not found"))
                .body("detail", equalTo("order " + unknown + " does not exist"));
        transition(unknown, "pay").statusCode(404);
        transition(unknown, "ship").statusCode(404);
        transition(unknown, "cancel").statusCode(404);
    }

    @Test
    void orderIdsAreReadInEitherCase() {
        UUID id = createOrder();

        given().get("/orders/" + id.toString().toUpperCase())
                .then()
                .statusCode(200)
                .body("id", equalTo(id.toString()));
    }
}
