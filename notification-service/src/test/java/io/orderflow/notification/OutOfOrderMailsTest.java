package io.orderflow.notification;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.orderflow.consumer.ConsumedEvent;
import io.orderflow.contracts.order.OrderCancelled;
import io.orderflow.contracts.order.OrderConfirmed;
import io.orderflow.contracts.order.OrderCreated;
import io.orderflow.contracts.order.OrderLine;
import io.orderflow.contracts.order.OrderPaid;
import io.orderflow.contracts.order.OrderRejected;
import io.orderflow.contracts.order.OrderShipped;
import io.orderflow.testing.quarkus.BrokerResource;
import io.orderflow.testing.quarkus.ServiceDatabaseResource;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.math.BigDecimal;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A shipment, cancellation, rejection or payment that arrives before its order's {@code OrderCreated} (a retry took the
 * {@code OrderCreated} out of its sequence): the customer still receives the confirmation first, then the shipment,
 * cancellation or rejection, each exactly once, read from the SMTP server (GreenMail). The events go to the service's own ledger in
 * batches this test cuts ({@link LedgerDeliveries}), on the service's PostgreSQL, and its own mail sender sends them.
 * The same resources as {@link NotificationConsumerTest}, so both run in one application.
 */
@QuarkusTest
@WithTestResource(value = BrokerResource.class, initArgs = @ResourceArg(name = "topics", value = "orders:3"))
@WithTestResource(
        value = ServiceDatabaseResource.class,
        initArgs = @ResourceArg(name = "service", value = "notification-service"))
@WithTestResource(SmtpServerResource.class)
class OutOfOrderMailsTest {

    private static final Duration WITHIN = Duration.ofSeconds(30);

    @Inject
    DataSource dataSource;

    @Inject
    NotificationLedger ledger;

    private LedgerDeliveries deliveries;
    private String order;
    private String customer;
    private String recipient;

    @BeforeEach
    void setUp() {
        deliveries = new LedgerDeliveries(dataSource, ledger);
        String run = UUID.randomUUID().toString().substring(0, 8);
        order = "order-" + run;
        customer = "customer-" + run;
        recipient = customer + "@customers.orderflow.test";
    }

    private ConsumedEvent created() {
        return deliveries.consumed(new OrderCreated(
                order,
                customer,
                "EUR",
                List.of(new OrderLine("sku-1", 3, new BigDecimal("2.50"))),
                new BigDecimal("7.50"),
                "web"));
    }

    private ConsumedEvent paid() {
        return deliveries.consumed(new OrderPaid(order, new BigDecimal("7.50"), "EUR", "psp-1"));
    }

    private ConsumedEvent shipped() {
        return deliveries.consumed(new OrderShipped(order, "DHL", "track-9"));
    }

    private ConsumedEvent cancelled() {
        return deliveries.consumed(new OrderCancelled(order, "out of stock"));
    }

    private ConsumedEvent rejected(List<String> shortSkus) {
        return deliveries.consumed(new OrderRejected(order, "not enough stock", shortSkus));
    }

    private ConsumedEvent confirmed() {
        return deliveries.consumed(new OrderConfirmed(order));
    }

    private static String messageId(ConsumedEvent event) {
        return "<" + event.envelope().eventId() + "@orderflow>";
    }

    /** Waits until {@code count} mails arrived for the customer and none of the order's is pending, and returns them. */
    private List<ReceivedMail> awaitMails(int count) {
        await().atMost(WITHIN)
                .pollDelay(Duration.ZERO)
                .pollInterval(Duration.ofMillis(10))
                .until(() -> ReceivedMail.to(recipient).size() >= count && deliveries.pending(List.of(order)) == 0);
        return ReceivedMail.to(recipient);
    }

    private void assertConfirmation(ReceivedMail mail, ConsumedEvent created) {
        assertThat(mail.messageId()).isEqualTo(messageId(created));
        assertThat(mail.subject()).isEqualTo("Your order " + order);
        assertThat(mail.body()).contains("Hello " + customer).contains("1 item(s), 7.50 EUR");
    }

    @Test
    void aShipmentAndAPaymentInBatchesBeforeTheOrderFollowItsConfirmation() throws Exception {
        ConsumedEvent shipped = shipped();
        ConsumedEvent created = created();

        deliveries.deliver(List.of(shipped));
        deliveries.deliver(List.of(paid()));
        assertThat(deliveries.pending(List.of(order)))
                .as("the shipment waits for its order")
                .isEqualTo(1);
        deliveries.deliver(List.of(created));

        List<ReceivedMail> mails = awaitMails(2);
        assertThat(mails).hasSize(2);
        assertConfirmation(mails.get(0), created);
        assertThat(mails.get(1).messageId()).isEqualTo(messageId(shipped));
        assertThat(mails.get(1).subject()).isEqualTo("Your order " + order + " has shipped");
        assertThat(mails.get(1).body()).contains("with DHL").contains("track-9");
    }

    @Test
    void aCancellationAndAPaymentInTheOrdersOwnBatchFollowItsConfirmation() throws Exception {
        ConsumedEvent cancelled = cancelled();
        ConsumedEvent created = created();

        deliveries.deliver(List.of(cancelled, paid(), created));

        List<ReceivedMail> mails = awaitMails(2);
        assertThat(mails).hasSize(2);
        assertConfirmation(mails.get(0), created);
        assertThat(mails.get(1).messageId()).isEqualTo(messageId(cancelled));
        assertThat(mails.get(1).subject()).isEqualTo("Your order " + order + " was cancelled");
        assertThat(mails.get(1).body()).contains("was cancelled: out of stock");
    }

    @Test
    void aRejectionInABatchBeforeTheOrderFollowsItsConfirmation() throws Exception {
        ConsumedEvent rejected = rejected(List.of("sku-1", "sku-7"));
        ConsumedEvent created = created();

        deliveries.deliver(List.of(rejected));
        assertThat(deliveries.pending(List.of(order)))
                .as("the rejection waits for its order")
                .isEqualTo(1);
        deliveries.deliver(List.of(created, rejected));

        List<ReceivedMail> mails = awaitMails(2);
        assertThat(mails).hasSize(2);
        assertConfirmation(mails.get(0), created);
        assertThat(mails.get(1).messageId()).isEqualTo(messageId(rejected));
        assertThat(mails.get(1).subject()).isEqualTo("Your order " + order + " could not be fulfilled");
        assertThat(mails.get(1).body())
                .contains("could not fulfil your order " + order + ": not enough stock")
                .contains("Not available in the quantity ordered: sku-1, sku-7.")
                .contains("Nothing was charged");
    }

    @Test
    void aRejectionInOrderWithoutShortSkusNamesNone() throws Exception {
        ConsumedEvent created = created();
        ConsumedEvent rejected = rejected(List.of());

        deliveries.deliver(List.of(created));
        deliveries.deliver(List.of(rejected));

        List<ReceivedMail> mails = awaitMails(2);
        assertThat(mails).extracting(ReceivedMail::messageId).containsExactly(messageId(created), messageId(rejected));
        assertThat(mails.get(1).body())
                .contains("could not fulfil your order " + order + ": not enough stock.")
                .doesNotContain("Not available")
                .contains("Nothing was charged");
    }

    @Test
    void redeliveriesOfHeldAndReleasedEventsSendNoMailTwice() throws Exception {
        ConsumedEvent cancelled = cancelled();
        ConsumedEvent created = created();

        deliveries.deliver(List.of(cancelled, cancelled));
        deliveries.deliver(List.of(cancelled, created, created));
        deliveries.deliver(List.of(created, cancelled));

        List<ReceivedMail> mails = awaitMails(2);
        assertThat(mails).extracting(ReceivedMail::messageId).containsExactly(messageId(created), messageId(cancelled));
    }

    /**
     * The main and retry channels apply events of one order at the same time: the shipment's transaction cannot see the
     * order's customer, committed beside it, nor the order's transaction the shipment's mail. Neither may be lost.
     */
    @Test
    void aShipmentCommittedBesideItsOrderIsSentAfterTheConfirmation() throws Exception {
        ConsumedEvent shipped = shipped();
        ConsumedEvent created = created();

        try (Connection shipping = dataSource.getConnection()) {
            shipping.setAutoCommit(false);
            deliveries.deliver(shipping, List.of(shipped));
            deliveries.deliver(List.of(created));
            shipping.commit();
        }

        List<ReceivedMail> mails = awaitMails(2);
        assertThat(mails).extracting(ReceivedMail::messageId).containsExactly(messageId(created), messageId(shipped));
    }

    /** In order, and with inventory's confirmation and the payment between: neither sends a mail. */
    @Test
    void eventsInOrderSendTheirMailsInOrder() throws Exception {
        ConsumedEvent created = created();
        ConsumedEvent shipped = shipped();

        deliveries.deliver(List.of(created));
        deliveries.deliver(List.of(confirmed(), paid(), shipped));

        List<ReceivedMail> mails = awaitMails(2);
        assertConfirmation(mails.get(0), created);
        assertThat(mails).extracting(ReceivedMail::messageId).containsExactly(messageId(created), messageId(shipped));
    }
}
