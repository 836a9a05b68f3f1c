package io.orderflow.inventory;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.nullValue;

import io.orderflow.testing.quarkus.BrokerResource;
import io.orderflow.testing.quarkus.ServiceDatabaseResource;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Secure by default: started with {@code orderflow.admin.token} blank (as good as unset), the service answers every
 * admin request 403, whatever token it carries, and never runs it; reading stays open. Its own start of the service.
 */
@QuarkusTest
@TestProfile(AdminEndpointsOffWithoutATokenTest.NoAdminToken.class)
@WithTestResource(value = BrokerResource.class, initArgs = @ResourceArg(name = "topics", value = "orders:3"))
@WithTestResource(
        value = ServiceDatabaseResource.class,
        initArgs = @ResourceArg(name = "service", value = "inventory-service"))
class AdminEndpointsOffWithoutATokenTest {

    /** The test setting of src/test/resources/application.properties, blanked. */
    public static class NoAdminToken implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("orderflow.admin.token", "");
        }
    }

    private final String sku = "off-" + UUID.randomUUID().toString().substring(0, 8);

    @Test
    void aStockAdjustmentIsForbiddenAndCreatesNoStock() {
        for (String header : new String[] {"", "Bearer ", "Bearer test-admin-token"}) {
            given().header("Authorization", header)
                    .contentType("application/json")
                    .body(Map.of("onHand", 5))
                    .put("/inventory/" + sku)
                    .then()
                    .statusCode(403)
                    .header("WWW-Authenticate", nullValue())
                    .contentType("application/problem+json")
                    .body("status", equalTo(403))
                    .body("title", equalTo("Admin endpoints are off"))
                    .body("detail", containsString("off until orderflow.admin.token is set"));
        }
        given().get("/inventory/" + sku).then().statusCode(404);
    }

    @Test
    void theDrillSwitchIsForbidden() {
        given().put("/drills/slowdown?perRecordMillis=5")
                .then()
                .statusCode(403)
                .contentType("application/problem+json")
                .body("detail", containsString("PUT /drills/slowdown"));
        given().delete("/drills/slowdown").then().statusCode(403);
    }
}
