package io.orderflow.orders.service;

import static io.orderflow.orders.OrderRequests.validBody;
import static io.restassured.RestAssured.given;
import static org.awaitility.Awaitility.await;

import io.orderflow.orders.OrderTables;
import io.orderflow.orders.PostgresResource;
import io.orderflow.testing.quarkus.BrokerResource;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.http.ContentType;
import jakarta.inject.Inject;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * With {@code orderflow.order-service.idempotency.purge-every} set, the purge runs by itself on that schedule (the
 * other tests run with {@code 0s}, never, and call it themselves).
 */
@QuarkusTest
@WithTestResource(PostgresResource.class)
@WithTestResource(value = BrokerResource.class, initArgs = @ResourceArg(name = "topics", value = "inventory:3"))
@TestProfile(IdempotencyKeyPurgeScheduleTest.EveryHalfSecond.class)
class IdempotencyKeyPurgeScheduleTest {
    public static final class EveryHalfSecond implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("orderflow.order-service.idempotency.purge-every", "500ms");
        }
    }

    @Inject
    DataSource dataSource;

    @Test
    void expiredKeysAreDeletedOnTheConfiguredSchedule() {
        OrderTables tables = new OrderTables(dataSource);
        String key = "key-" + UUID.randomUUID();
        given().contentType(ContentType.JSON)
                .header("Idempotency-Key", key)
                .body(validBody("customer-" + UUID.randomUUID()))
                .post("/orders")
                .then()
                .statusCode(201);
        tables.execute(
                "UPDATE idempotency_keys SET created_at = created_at - '25 hours'::interval WHERE idempotency_key = ?",
                key);

        await().atMost(Duration.ofSeconds(20))
                .until(() ->
                        tables.number("SELECT count(*) FROM idempotency_keys WHERE idempotency_key = ?", key) == 0);
    }
}
