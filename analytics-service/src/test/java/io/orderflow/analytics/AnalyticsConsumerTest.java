package io.orderflow.analytics;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.not;

import io.orderflow.contracts.EventCodec;
import io.orderflow.contracts.order.OrderCancelled;
import io.orderflow.contracts.order.OrderConfirmed;
import io.orderflow.contracts.order.OrderCreated;
import io.orderflow.contracts.order.OrderEvent;
import io.orderflow.contracts.order.OrderLine;
import io.orderflow.contracts.order.OrderPaid;
import io.orderflow.contracts.order.OrderRejected;
import io.orderflow.contracts.order.OrderShipped;
import io.orderflow.testing.OrderEventsProducer;
import io.orderflow.testing.quarkus.BrokerResource;
import io.orderflow.testing.quarkus.ServiceDatabaseResource;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import io.restassured.specification.RequestSpecification;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * analytics-service as deployed, on our broker and a real PostgreSQL. Each test places its events in minutes of its
 * own (a random hour of 2020) and reads the windows back through the API.
 */
@QuarkusTest
@WithTestResource(value = BrokerResource.class, initArgs = @ResourceArg(name = "topics", value = "orders:3"))
@WithTestResource(
        value = ServiceDatabaseResource.class,
        initArgs = @ResourceArg(name = "service", value = "analytics-service"))
class AnalyticsConsumerTest {

    private static final Duration WITHIN = Duration.ofSeconds(30);

    @ConfigProperty(name = "orderflow.admin.token")
    String adminToken;

    private final EventCodec codec = new EventCodec();
    private final Instant hour = Instant.parse("2020-01-01T00:00:00Z")
            .plus(Duration.ofHours(ThreadLocalRandom.current().nextInt(0, 365 * 24)));
    private OrderEventsProducer producer;

    @BeforeEach
    void setUp() {
        producer = new OrderEventsProducer(BrokerResource.bootstrapServers());
    }

    @AfterEach
    void tearDown() {
        producer.close();
    }

    private byte[] at(OrderEvent event, Instant occurredAt) {
        return producer.encode(event, occurredAt);
    }

    private void send(String key, byte[] value) throws Exception {
        producer.send(key, value);
    }

    private static OrderCreated created(String orderId) {
        return new OrderCreated(
                orderId, "c", "EUR", List.of(new OrderLine("sku-1", 1, BigDecimal.ONE)), BigDecimal.ONE, "web");
    }

    private JsonPath minutes() {
        return given().get("/analytics/minutes?from=" + hour + "&to=" + hour.plus(Duration.ofHours(1)))
                .then()
                .statusCode(200)
                .extract()
                .jsonPath();
    }

    /**
     * Every order event type counts in its minute, confirmations and rejections among them: a duplicate of a
     * confirmation adds nothing, and a payment and a rejection sent after the events of a later minute still land in
     * their own. A duplicate is sent before a later event of its own order (one key, one partition, read in order), so
     * once that later event is counted the duplicate has been read.
     */
    @Test
    void everyEventCountsOnceInTheMinuteItHappenedAndPaymentsSumByCurrencyHoweverLateTheyArrive() throws Exception {
        Instant first = hour.plusSeconds(10);
        Instant second = hour.plusSeconds(75);
        byte[] duplicatedCreation = at(created("a"), first);
        byte[] duplicatedConfirmation = at(new OrderConfirmed("a"), first.plusSeconds(1));
        send("a", duplicatedCreation);
        send("a", duplicatedConfirmation);
        send("b", at(created("b"), first.plusSeconds(20)));
        send("b", at(new OrderConfirmed("b"), first.plusSeconds(21)));
        send("d", at(created("d"), second));
        send("d", at(new OrderRejected("d", "not enough stock", List.of("sku-1")), second.plusSeconds(1)));
        send("a", duplicatedCreation);
        send("a", duplicatedConfirmation);
        send("a", at(new OrderPaid("a", new BigDecimal("10.50"), "EUR", "p1"), second));
        send("b", at(new OrderPaid("b", new BigDecimal("3"), "USD", "p2"), second));
        send("a", at(new OrderShipped("a", "carrier", "t1"), second.plusSeconds(5)));
        send("b", at(new OrderCancelled("b", "changed"), second.plusSeconds(6)));
        // Late: they occurred in the first minute, and arrive last, after the second minute's events.
        send("c", at(new OrderPaid("c", new BigDecimal("1.25"), "EUR", "p3"), first.plusSeconds(30)));
        send("e", at(new OrderRejected("e", "unknown SKU", List.of("sku-9", "sku-10")), first.plusSeconds(40)));

        Map<String, Integer> firstMinute =
                Map.of("OrderCreated", 2, "OrderConfirmed", 2, "OrderPaid", 1, "OrderRejected", 1);
        Map<String, Integer> secondMinute = Map.of(
                "OrderCreated", 1,
                "OrderRejected", 1,
                "OrderPaid", 2,
                "OrderShipped", 1,
                "OrderCancelled", 1);
        await().atMost(WITHIN).untilAsserted(() -> {
            var answer = minutes();
            assertThat(answer.getList("minute"))
                    .containsExactly(hour.toString(), hour.plusSeconds(60).toString());
            assertThat(answer.getMap("[0].events")).isEqualTo(firstMinute);
            assertThat(answer.getMap("[1].events")).isEqualTo(secondMinute);
            assertThat(answer.getMap("[0].revenue")).isEqualTo(Map.of("EUR", 1.25f));
            assertThat(answer.getMap("[1].revenue")).isEqualTo(Map.of("EUR", 10.5f, "USD", 3));
        });
    }

    @Test
    void badRangesAreProblemsNamingTheParameter() {
        given().get("/analytics/minutes?from=yesterday")
                .then()
                .statusCode(400)
                .contentType("application/problem+json")
                .body("field", equalTo("from"));
        given().get("/analytics/minutes?from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z")
                .then()
                .statusCode(400)
                .body("field", equalTo("from"));
        given().get("/analytics/minutes?from=2026-01-01T00:00:00Z&to=2026-03-01T00:00:00Z")
                .then()
                .statusCode(400)
                .body("field", equalTo("to"));
    }

    /** A request to the drills' switch, an admin endpoint: it carries the admin token. */
    private RequestSpecification admin() {
        return given().header("Authorization", "Bearer " + adminToken);
    }

    /** The drills' switch answers with the slowdown it set, refuses a bad one naming the field, and is undone. */
    @Test
    void theDrillSwitchSetsAndClearsTheSlowdownAndRefusesABadOne() {
        admin().put("/drills/slowdown?perRecordMillis=-1")
                .then()
                .statusCode(400)
                .contentType("application/problem+json")
                .body("field", equalTo("perRecordMillis"));
        admin().put("/drills/slowdown").then().statusCode(400).body("field", equalTo("perRecordMillis"));
        admin().put("/drills/slowdown?perRecordMillis=5").then().statusCode(200).body("perRecordMillis", equalTo(5));
        admin().delete("/drills/slowdown").then().statusCode(200).body("perRecordMillis", equalTo(0));
    }

    /**
     * The drills' switch is an admin endpoint: without the admin token, or with another, each of its requests is refused
     * with 401, the challenge and a problem naming where the token comes from, before the switch is thrown.
     */
    @Test
    void theDrillSwitchRefusesRequestsWithoutTheAdminToken() {
        var refused = List.of(
                given().put("/drills/slowdown?perRecordMillis=5000"),
                given().delete("/drills/slowdown"),
                given().header("Authorization", "Bearer not-the-token").put("/drills/slowdown?perRecordMillis=5000"),
                given().header("Authorization", "Basic " + adminToken).delete("/drills/slowdown"));
        for (var response : refused) {
            response.then()
                    .statusCode(401)
                    .header("WWW-Authenticate", "Bearer realm=\"orderflow-admin\"")
                    .contentType("application/problem+json")
                    .body("status", equalTo(401))
                    .body("detail", containsString("orderflow.admin.token"))
                    .body("detail", not(containsString(adminToken)))
                    .body("detail", not(containsString("not-the-token")));
        }
        admin().delete("/drills/slowdown").then().statusCode(200).body("perRecordMillis", equalTo(0));
    }
}
