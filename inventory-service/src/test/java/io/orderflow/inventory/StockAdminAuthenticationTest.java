package io.orderflow.inventory;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.allOf;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.not;

import io.orderflow.testing.quarkus.BrokerResource;
import io.orderflow.testing.quarkus.ServiceDatabaseResource;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.specification.RequestSpecification;
import java.util.Map;
import java.util.UUID;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.Test;

/**
 * {@code PUT /inventory/{sku}} is an admin operation: without {@code Authorization: Bearer <orderflow.admin.token>} it
 * is refused with 401 and the stock stays as it was; reading stays open. The service as deployed, as in
 * {@link InventoryConsumerTest} (same test resources, so the same running application).
 */
@QuarkusTest
@WithTestResource(value = BrokerResource.class, initArgs = @ResourceArg(name = "topics", value = "orders:3"))
@WithTestResource(
        value = ServiceDatabaseResource.class,
        initArgs = @ResourceArg(name = "service", value = "inventory-service"))
class StockAdminAuthenticationTest {

    @ConfigProperty(name = "orderflow.admin.token")
    String adminToken;

    private final String sku = "admin-" + UUID.randomUUID().toString().substring(0, 8);

    private RequestSpecification adjustment(int onHand) {
        return given().contentType("application/json").body(Map.of("onHand", onHand));
    }

    private void onHandIs(int onHand) {
        given().get("/inventory/" + sku).then().statusCode(200).body("onHand", equalTo(onHand));
    }

    @Test
    void anAdjustmentWithoutATokenIsUnauthorizedWithTheChallengeAndChangesNothing() {
        adjustment(10)
                .header("Authorization", "Bearer " + adminToken)
                .put("/inventory/" + sku)
                .then()
                .statusCode(200);

        adjustment(99)
                .put("/inventory/" + sku)
                .then()
                .statusCode(401)
                .header("WWW-Authenticate", "Bearer realm=\"orderflow-admin\"")
                .contentType("application/problem+json")
                .body("type", equalTo("about:blank"))
                .body("status", equalTo(401))
                .body("title", equalTo("Admin token required"))
                .body(
                        "detail",
                        allOf(
                                containsString("PUT /inventory/" + sku),
                                containsString("bearer token"),
                                containsString("orderflow.admin.token"),
                                containsString(".orderflow/secrets/admin-token"),
                                not(containsString(adminToken))));
        onHandIs(10);
    }

    @Test
    void anAdjustmentWithAnotherTokenOrSchemeIsUnauthorizedAndChangesNothing() {
        adjustment(10)
                .header("Authorization", "Bearer " + adminToken)
                .put("/inventory/" + sku)
                .then()
                .statusCode(200);

        for (String header : new String[] {"Bearer not-the-token", "Basic " + adminToken, adminToken}) {
            adjustment(99)
                    .header("Authorization", header)
                    .put("/inventory/" + sku)
                    .then()
                    .statusCode(401)
                    .header("WWW-Authenticate", "Bearer realm=\"orderflow-admin\"")
                    .contentType("application/problem+json")
                    .body("detail", allOf(not(containsString(adminToken)), not(containsString("not-the-token"))));
        }
        onHandIs(10);
    }

    @Test
    void anUnauthorizedAdjustmentOfANewSkuCreatesNoStock() {
        adjustment(5).put("/inventory/" + sku).then().statusCode(401);
        given().get("/inventory/" + sku).then().statusCode(404);
    }

    @Test
    void anAdjustmentWithTheAdminTokenSetsTheStockAndReadingNeedsNoToken() {
        adjustment(7)
                .header("Authorization", "Bearer " + adminToken)
                .put("/inventory/" + sku)
                .then()
                .statusCode(200)
                .body("onHand", equalTo(7))
                .body("available", equalTo(7));
        onHandIs(7);
    }
}
