package io.orderflow.notification;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.orderflow.consumer.ConsumedEvent;
import io.orderflow.contracts.order.OrderCancelled;
import io.orderflow.contracts.order.OrderConfirmed;
import io.orderflow.contracts.order.OrderCreated;
import io.orderflow.contracts.order.OrderEvent;
import io.orderflow.contracts.order.OrderLine;
import io.orderflow.contracts.order.OrderPaid;
import io.orderflow.contracts.order.OrderRejected;
import io.orderflow.contracts.order.OrderShipped;
import io.orderflow.property.Gen;
import io.orderflow.property.Properties;
import io.orderflow.testing.quarkus.BrokerResource;
import io.orderflow.testing.quarkus.ServiceDatabaseResource;
import io.quarkus.test.common.ResourceArg;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;

/**
 * The mail policy against its oracle: for one order's lifecycle (created; then rejected, or maybe confirmed and paid,
 * then maybe shipped or cancelled, as order-service allows), delivered in any order, with redeliveries, cut into batches
 * anywhere, the customer receives exactly one mail per {@code OrderCreated}, {@code OrderShipped},
 * {@code OrderCancelled} and {@code OrderRejected}, in that lifecycle order, and none for {@code OrderConfirmed} or
 * {@code OrderPaid}: the mails the same events would have sent in order. Through the service's ledger, PostgreSQL, mail sender and SMTP
 * server (GreenMail), without the broker ({@link LedgerDeliveries}).
 *
 * <p>Every try has an order of its own; all are delivered first and checked once the sender has sent them, so that the
 * test takes one wait instead of one per try, and the sender meets many orders at once, as it does in service. A failing
 * try names its seed, which replays it alone.
 */
@QuarkusTest
@WithTestResource(value = BrokerResource.class, initArgs = @ResourceArg(name = "topics", value = "orders:3"))
@WithTestResource(
        value = ServiceDatabaseResource.class,
        initArgs = @ResourceArg(name = "service", value = "notification-service"))
@WithTestResource(SmtpServerResource.class)
class MailPolicyPropertyTest {

    private static final int TRIES = 30;
    private static final Duration WITHIN = Duration.ofSeconds(30);
    /** The lifecycle's order of the mailed event types: the oracle, written out independently of LifecycleStep. */
    private static final List<Class<?>> MAILED_IN_ORDER =
            List.of(OrderCreated.class, OrderShipped.class, OrderCancelled.class, OrderRejected.class);

    @Inject
    DataSource dataSource;

    @Inject
    NotificationLedger ledger;

    /** One try: its seed, its order, what arrived in which batches, and the Message-IDs the policy prescribes. */
    private record Try(
            long seed, String order, String recipient, List<List<ConsumedEvent>> batches, List<String> prescribed) {}

    @Test
    void anyArrivalOfALifecycleSendsItsMailsOnceEachInLifecycleOrder() throws Exception {
        LedgerDeliveries deliveries = new LedgerDeliveries(dataSource, ledger);
        List<Try> tries = new ArrayList<>();
        Properties.forAll(TRIES, gen -> {
            String order = "order-" + gen.uuid();
            String customer = "customer-" + gen.uuid();
            List<ConsumedEvent> lifecycle = lifecycle(gen, order, customer).stream()
                    .map(event -> deliveries.consumed(event, gen.uuid()))
                    .toList();
            List<List<ConsumedEvent>> batches = batches(gen, arrival(gen, lifecycle));
            for (List<ConsumedEvent> batch : batches) {
                deliveries.deliver(batch);
            }
            tries.add(
                    new Try(gen.seed(), order, customer + "@customers.orderflow.test", batches, prescribed(lifecycle)));
        });

        // The tries' orders are sent together, as the sender sends any orders: checked once all are sent.
        List<String> orders = tries.stream().map(Try::order).toList();
        int expected = tries.stream().mapToInt(t -> t.prescribed().size()).sum();
        await().atMost(WITHIN)
                .pollDelay(Duration.ZERO)
                .pollInterval(Duration.ofMillis(20))
                .until(() -> received(tries).size() >= expected && deliveries.pending(orders) == 0);
        Map<String, List<ReceivedMail>> received =
                received(tries).stream().collect(Collectors.groupingBy(ReceivedMail::recipient));
        for (Try t : tries) {
            List<ReceivedMail> mails = received.getOrDefault(t.recipient(), List.of());
            assertThat(mails)
                    .as(
                            "seed %d (replay it with -D%s=%d), batches %s",
                            t.seed(), Properties.SEED_PROPERTY, t.seed(), describe(t.batches()))
                    .extracting(ReceivedMail::messageId)
                    .containsExactlyElementsOf(t.prescribed());
            assertThat(mails).allSatisfy(mail -> assertThat(mail.subject()).startsWith("Your order " + t.order()));
        }
    }

    /** The Message-IDs of the lifecycle's mailed events, in the lifecycle's order. */
    private static List<String> prescribed(List<ConsumedEvent> lifecycle) {
        return lifecycle.stream()
                .filter(event -> MAILED_IN_ORDER.contains(event.event().getClass()))
                .sorted(Comparator.comparingInt(
                        event -> MAILED_IN_ORDER.indexOf(event.event().getClass())))
                .map(event -> "<" + event.envelope().eventId() + "@orderflow>")
                .toList();
    }

    private static List<ReceivedMail> received(List<Try> tries) {
        Set<String> recipients = tries.stream().map(Try::recipient).collect(Collectors.toSet());
        return ReceivedMail.all().stream()
                .filter(mail -> recipients.contains(mail.recipient()))
                .toList();
    }

    /**
     * Created; then rejected (inventory's answer, and the end); or shipped (once confirmed and paid), cancelled
     * (confirmed or paid or neither), or still open (confirmed or paid or neither).
     */
    private static List<OrderEvent> lifecycle(Gen gen, String order, String customer) {
        List<OrderEvent> events = new ArrayList<>();
        events.add(new OrderCreated(
                order,
                customer,
                "EUR",
                List.of(new OrderLine("sku-1", 1, new BigDecimal("5.00"))),
                new BigDecimal("5.00"),
                "web"));
        String end = gen.oneOf("open", "shipped", "cancelled", "rejected");
        if (end.equals("rejected")) {
            List<String> shortSkus = gen.bool() ? List.of("sku-1") : List.of();
            events.add(new OrderRejected(order, "not enough stock", shortSkus));
            return events;
        }
        boolean paid = end.equals("shipped") || gen.bool();
        if (paid || gen.bool()) {
            events.add(new OrderConfirmed(order));
        }
        if (paid) {
            events.add(new OrderPaid(order, new BigDecimal("5.00"), "EUR", null));
        }
        switch (end) {
            case "shipped" -> events.add(new OrderShipped(order, "DHL", null));
            case "cancelled" -> events.add(new OrderCancelled(order, "changed my mind"));
            default -> {
                // still open: neither shipped nor cancelled yet
            }
        }
        return events;
    }

    /** The lifecycle's events in any order, with up to three of them delivered again at any point. */
    private static List<ConsumedEvent> arrival(Gen gen, List<ConsumedEvent> lifecycle) {
        List<ConsumedEvent> shuffled = new ArrayList<>(lifecycle);
        for (int i = shuffled.size() - 1; i > 0; i--) {
            ConsumedEvent swapped = shuffled.set(gen.ints(0, i), shuffled.get(i));
            shuffled.set(i, swapped);
        }
        int redeliveries = gen.ints(0, 3);
        for (int i = 0; i < redeliveries; i++) {
            shuffled.add(gen.ints(0, shuffled.size()), gen.oneOf(lifecycle));
        }
        return shuffled;
    }

    /** {@code arrival} cut into consecutive batches at random points. */
    private static List<List<ConsumedEvent>> batches(Gen gen, List<ConsumedEvent> arrival) {
        List<List<ConsumedEvent>> batches = new ArrayList<>();
        List<ConsumedEvent> batch = new ArrayList<>();
        for (ConsumedEvent event : arrival) {
            if (!batch.isEmpty() && gen.bool()) {
                batches.add(batch);
                batch = new ArrayList<>();
            }
            batch.add(event);
        }
        batches.add(batch);
        return batches;
    }

    private static List<List<String>> describe(List<List<ConsumedEvent>> batches) {
        return batches.stream()
                .map(batch -> batch.stream()
                        .map(event -> event.envelope().eventType() + " "
                                + event.envelope().eventId().toString().substring(0, 8))
                        .toList())
                .toList();
    }
}
