package io.orderflow.notification;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;

import io.orderflow.contracts.EventCodec;
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
import io.restassured.specification.RequestSpecification;
import jakarta.inject.Inject;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.stream.IntStream;
import javax.sql.DataSource;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * notification-service as deployed: its consumers on our broker over TCP, its PostgreSQL and its SMTP server real
 * (GreenMail). Each test uses orders and customers of its own and reads the mails the SMTP server received.
 */
@QuarkusTest
@WithTestResource(value = BrokerResource.class, initArgs = @ResourceArg(name = "topics", value = "orders:3"))
@WithTestResource(
        value = ServiceDatabaseResource.class,
        initArgs = @ResourceArg(name = "service", value = "notification-service"))
@WithTestResource(SmtpServerResource.class)
class NotificationConsumerTest {

    private static final Duration WITHIN = Duration.ofSeconds(30);

    @ConfigProperty(name = "orderflow.admin.token")
    String adminToken;

    @Inject
    DataSource dataSource;

    private final EventCodec codec = new EventCodec();
    private final String run = UUID.randomUUID().toString().substring(0, 8);
    private OrderEventsProducer producer;

    @BeforeEach
    void setUp() {
        producer = new OrderEventsProducer(BrokerResource.bootstrapServers());
    }

    @AfterEach
    void tearDown() {
        producer.close();
    }

    private String name(String base) {
        return base + "-" + run;
    }

    private byte[] encode(OrderEvent event) {
        return producer.encode(event);
    }

    private void send(String key, byte[] value) throws Exception {
        producer.send(key, value);
    }

    private void send(OrderEvent event) throws Exception {
        send(event.orderId(), encode(event));
    }

    private static OrderCreated created(String orderId, String customerId) {
        return new OrderCreated(
                orderId,
                customerId,
                "EUR",
                List.of(new OrderLine("sku-1", 2, new BigDecimal("4.50"))),
                new BigDecimal("9.00"),
                "web");
    }

    /** The subjects of the mails the SMTP server received for {@code recipient}, first received first. */
    private static List<String> subjectsTo(String recipient) {
        return ReceivedMail.to(recipient).stream().map(ReceivedMail::subject).toList();
    }

    private static double metric(String name, String label) {
        return given().get("/q/metrics")
                .then()
                .statusCode(200)
                .extract()
                .asString()
                .lines()
                .filter(line -> line.startsWith(name) && line.contains(label))
                .mapToDouble(line -> Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)))
                .sum();
    }

    @Test
    void eachOrderEventSendsOneMailToItsCustomerAndADuplicateSendsNoSecond() throws Exception {
        String order = name("order");
        String customer = name("customer");
        String recipient = customer + "@customers.orderflow.test";
        byte[] placed = encode(created(order, customer));
        double duplicatesBefore = metric("orderflow_consumer_events_total{", "outcome=\"duplicate\"");

        send(order, placed);
        send(order, placed);
        send(new OrderShipped(order, "carrier", "track-1"));

        await().atMost(WITHIN)
                .until(() -> subjectsTo(recipient).size() >= 2
                        && metric("orderflow_consumer_events_total{", "outcome=\"duplicate\"") > duplicatesBefore);
        await().atMost(WITHIN)
                .until(() -> given().get("/notifications?orderId=" + order)
                        .jsonPath()
                        .getList("status")
                        .equals(List.of("SENT", "SENT")));
        assertThat(subjectsTo(recipient))
                .containsExactly("Your order " + order, "Your order " + order + " has shipped");
        assertThat(ReceivedMail.to(recipient).getFirst().body()).contains(order).contains("9.00 EUR");
    }

    @Test
    void aMailWaitsWhileTheSmtpServerIsDownAndIsSentOnceItIsBack() throws Exception {
        String order = name("outage");
        String recipient = name("patient") + "@customers.orderflow.test";
        double failuresBefore = metric("orderflow_notifications_send_failures_total", "");
        SmtpServerResource.stopServer();
        try {
            send(created(order, name("patient")));
            await().atMost(WITHIN)
                    .until(() -> metric("orderflow_notifications_send_failures_total", "") > failuresBefore);
            given().get("/notifications?orderId=" + order).then().body("status", equalTo(List.of("PENDING")));
        } finally {
            SmtpServerResource.startServer();
        }
        await().atMost(Duration.ofSeconds(60)).until(() -> subjectsTo(recipient).size() == 1);
        given().get("/notifications?orderId=" + order).then().body("status", equalTo(List.of("SENT")));
        assertThat(metric("orderflow_consumer_events_total{", "outcome=\"dead_lettered\""))
                .isZero();
    }

    @Test
    void aGroupOfMailsGoesOutOnThirtyTwoSmtpConnectionsAtOnce() throws Exception {
        // Each connection carries one SMTP transaction at a time, so the mails the server holds unanswered at once are
        // the connections in use: the pool's 32 (quarkus.mailer.max-pool-size), fewer than a group's 64 mails. The
        // 100 mails are written at once, as rows, so that the sender's next claim finds them all due.
        GreenMailSmtp.AcceptanceGate gate = SmtpServerResource.gate();
        String batch = name("pooled");
        gate.close();
        try {
            gate.resetMostHeld();
            PendingMails.write(dataSource, batch, 100);
            await().atMost(WITHIN).until(() -> gate.held().size() == 32);
        } finally {
            gate.open();
        }
        await().atMost(Duration.ofSeconds(60))
                .until(() -> IntStream.rangeClosed(1, 100)
                        .allMatch(n -> subjectsTo(batch + "-" + n + "@customers.orderflow.test")
                                        .size()
                                == 1));
        assertThat(gate.mostHeld()).isEqualTo(32);
    }

    @Test
    void aShipmentAndAPaymentBeforeTheirOrderAreMailedAfterItsConfirmation() throws Exception {
        String order = name("early");
        String recipient = name("early-customer") + "@customers.orderflow.test";
        send(new OrderShipped(order, "carrier", "track-2"));
        send(new OrderPaid(order, new BigDecimal("9.00"), "EUR", "psp-2"));
        await().atMost(WITHIN)
                .until(() -> given().get("/notifications?orderId=" + order)
                        .jsonPath()
                        .getList("status")
                        .equals(List.of("PENDING")));
        given().get("/notifications?orderId=" + order).then().body("recipient", equalTo(Arrays.asList((String) null)));

        send(created(order, name("early-customer")));

        await().atMost(WITHIN)
                .until(() -> given().get("/notifications?orderId=" + order)
                        .jsonPath()
                        .getList("status")
                        .equals(List.of("SENT", "SENT")));
        assertThat(subjectsTo(recipient))
                .containsExactly("Your order " + order, "Your order " + order + " has shipped");
        given().get("/notifications?orderId=" + order)
                .then()
                .body("eventType", equalTo(List.of("OrderCreated", "OrderShipped")))
                .body("recipient", equalTo(List.of(recipient, recipient)));
    }

    @Test
    void aRejectionBeforeItsOrderIsMailedAfterTheConfirmation() throws Exception {
        String order = name("rejected");
        String recipient = name("rejected-customer") + "@customers.orderflow.test";
        send(new OrderRejected(order, "not enough stock", List.of("sku-1")));
        send(created(order, name("rejected-customer")));

        await().atMost(WITHIN)
                .until(() -> given().get("/notifications?orderId=" + order)
                        .jsonPath()
                        .getList("status")
                        .equals(List.of("SENT", "SENT")));
        given().get("/notifications?orderId=" + order)
                .then()
                .body("eventType", equalTo(List.of("OrderCreated", "OrderRejected")));
        assertThat(subjectsTo(recipient))
                .containsExactly("Your order " + order, "Your order " + order + " could not be fulfilled");
        assertThat(ReceivedMail.to(recipient).get(1).body())
                .contains("not enough stock")
                .contains("sku-1")
                .contains("Nothing was charged");
    }

    /** The order's later events are consumed after its OrderConfirmed (one key, one partition): it wrote no mail. */
    @Test
    void inventorysConfirmationSendsNoMail() throws Exception {
        String order = name("confirmed");
        send(created(order, name("confirmed-customer")));
        send(new OrderConfirmed(order));
        send(new OrderPaid(order, new BigDecimal("9.00"), "EUR", "psp-3"));
        send(new OrderShipped(order, "carrier", "track-3"));

        await().atMost(WITHIN)
                .until(() -> given().get("/notifications?orderId=" + order)
                        .jsonPath()
                        .getList("status")
                        .equals(List.of("SENT", "SENT")));
        given().get("/notifications?orderId=" + order)
                .then()
                .body("eventType", equalTo(List.of("OrderCreated", "OrderShipped")));
    }

    @Test
    void listingWithoutAnOrderIdIsAProblemNamingTheParameter() {
        given().get("/notifications")
                .then()
                .statusCode(400)
                .contentType("application/problem+json")
                .body("field", equalTo("orderId"));
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
}
