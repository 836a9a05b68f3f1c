package io.orderflow.inventory;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.orderflow.testing.quarkus.BrokerResource;
import io.orderflow.testing.quarkus.ServiceDatabaseResource;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.path.json.JsonPath;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * With {@code orderflow.consumer.warm-up.rounds} set, a consuming service rehearses its handler that many times at
 * start (the event-consumer library's {@code ConsumerWarmUp}), reports ready once they are done, and keeps nothing of
 * them: no reservation, no inventory event, no count in its meters. The other tests start with
 * {@code 0}.
 */
@QuarkusTest
@WithTestResource(value = BrokerResource.class, initArgs = @ResourceArg(name = "topics", value = "orders:3"))
@WithTestResource(
        value = ServiceDatabaseResource.class,
        initArgs = @ResourceArg(name = "service", value = "inventory-service"))
@TestProfile(ConsumerWarmUpTest.TwentyRounds.class)
class ConsumerWarmUpTest {
    public static final class TwentyRounds implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("orderflow.consumer.warm-up.rounds", "20");
        }
    }

    @Inject
    DataSource dataSource;

    @Test
    void theServiceIsReadyAfterItsWarmUpRoundsAndKeepsNothingOfThem() throws SQLException {
        await().atMost(Duration.ofSeconds(60))
                .until(() -> given().get("/q/health/ready").statusCode() == 200);

        JsonPath health = given().get("/q/health/ready").then().extract().jsonPath();
        assertThat(health.getString("checks.find { it.name == 'warm-up' }.status"))
                .isEqualTo("UP");
        assertThat(health.getMap("checks.find { it.name == 'warm-up' }.data"))
                .containsEntry("rounds", 20)
                .containsEntry("completed", 20)
                .doesNotContainKey("failure");

        assertThat(count("SELECT count(*) FROM reservations WHERE order_id LIKE 'warm-up-%'"))
                .isZero();
        assertThat(count("SELECT count(*) FROM outbox WHERE aggregate_id LIKE 'warm-up-%'"))
                .isZero();
        String metrics =
                given().get("/q/metrics").then().statusCode(200).extract().asString();
        assertThat(metrics)
                .contains("orderflow_consumer_events_total{group=\"inventory-service\",outcome=\"applied\"} 0.0");
    }

    private long count(String sql) throws SQLException {
        try (Connection connection = dataSource.getConnection();
                Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery(sql)) {
            rows.next();
            return rows.getLong(1);
        }
    }
}
