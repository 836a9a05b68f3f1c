package io.orderflow.orders.rest;

import static io.orderflow.orders.OrderRequests.validBody;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.nullValue;

import io.orderflow.orders.OrderTables;
import io.orderflow.orders.PostgresResource;
import io.orderflow.orders.service.IdempotencyKeyPurge;
import io.orderflow.testing.quarkus.BrokerResource;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import jakarta.inject.Inject;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Idempotency keys are remembered for {@code orderflow.order-service.idempotency.retention} (24 h here): within it a retry
 * replays, after it the key is forgotten and creates a new order, and {@link IdempotencyKeyPurge} deletes only the
 * expired keys. Time passes by moving a key's {@code created_at} back.
 */
@QuarkusTest
@WithTestResource(PostgresResource.class)
@WithTestResource(value = BrokerResource.class, initArgs = @ResourceArg(name = "topics", value = "inventory:3"))
class IdempotencyKeyExpiryTest {

    @Inject
    DataSource dataSource;

    @Inject
    IdempotencyKeyPurge purge;

    private OrderTables tables;

    @BeforeEach
    void tables() {
        tables = new OrderTables(dataSource);
    }

    @Test
    void aKeyJustWithinItsRetentionStillReplays() {
        String key = "key-" + UUID.randomUUID();
        String body = validBody("customer-" + UUID.randomUUID());
        String id = create(key, body);
        age(key, "23 hours 59 minutes");

        given().contentType(ContentType.JSON)
                .header("Idempotency-Key", key)
                .body(body)
                .post("/orders")
                .then()
                .statusCode(201)
                .header("Idempotent-Replayed", "true")
                .body("id", equalTo(id));
        assertThat(keyOwner(key)).isEqualTo(id);
    }

    @Test
    void aKeyPastItsRetentionIsForgottenAndCreatesANewOrder() {
        String key = "key-" + UUID.randomUUID();
        String customer = "customer-" + UUID.randomUUID();
        String first = create(key, validBody(customer));
        age(key, "24 hours 1 minute");

        String second = given().contentType(ContentType.JSON)
                .header("Idempotency-Key", key)
                .body(validBody(customer))
                .post("/orders")
                .then()
                .statusCode(201)
                .header("Idempotent-Replayed", nullValue())
                .extract()
                .path("id");

        assertThat(second).isNotEqualTo(first);
        assertThat(keyOwner(key)).isEqualTo(second);
        assertThat(tables.number("SELECT count(*) FROM orders WHERE customer_id = ?", customer))
                .isEqualTo(2);
        given().header("Idempotency-Key", key)
                .contentType(ContentType.JSON)
                .body(validBody(customer))
                .post("/orders")
                .then()
                .statusCode(201)
                .header("Idempotent-Replayed", "true")
                .body("id", equalTo(second));
    }

    @Test
    void thePurgeDeletesExpiredKeysOnlyAndKeepsTheirOrders() {
        String expiredKey = "key-" + UUID.randomUUID();
        String freshKey = "key-" + UUID.randomUUID();
        String expiredOrder = create(expiredKey, validBody("customer-" + UUID.randomUUID()));
        create(freshKey, validBody("customer-" + UUID.randomUUID()));
        age(expiredKey, "25 hours");

        long deleted = purge.purge();

        assertThat(deleted).isGreaterThanOrEqualTo(1);
        assertThat(tables.number("SELECT count(*) FROM idempotency_keys WHERE idempotency_key = ?", expiredKey))
                .isZero();
        assertThat(tables.number("SELECT count(*) FROM idempotency_keys WHERE idempotency_key = ?", freshKey))
                .isOne();
        assertThat(tables.order(UUID.fromString(expiredOrder))).isPresent();
        assertThat(purge.purge()).as("nothing left to delete").isZero();
    }

    private static String create(String key, String body) {
        return given().contentType(ContentType.JSON)
                .header("Idempotency-Key", key)
                .body(body)
                .post("/orders")
                .then()
                .statusCode(201)
                .extract()
                .path("id");
    }

    private void age(String key, String interval) {
        tables.execute(
                "UPDATE idempotency_keys SET created_at = created_at - ?::interval WHERE idempotency_key = ?",
                interval,
                key);
    }

    private String keyOwner(String key) {
        return tables.text("SELECT order_id::text FROM idempotency_keys WHERE idempotency_key = ?", key);
    }
}
