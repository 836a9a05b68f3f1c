package io.orderflow.notification;

import static io.orderflow.notification.NotificationProcesses.messageIds;
import static io.orderflow.notification.NotificationProcesses.number;
import static io.orderflow.notification.NotificationProcesses.start;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.icegreen.greenmail.util.GreenMail;
import io.orderflow.contracts.order.OrderCreated;
import io.orderflow.contracts.order.OrderLine;
import io.orderflow.postgres.PostgresDatabase;
import io.orderflow.process.ServiceProcess;
import io.orderflow.testing.CleanSchema;
import io.orderflow.testing.ConsumerGroupOffsets;
import io.orderflow.testing.InProcessBroker;
import io.orderflow.testing.OrderEventsProducer;
import io.orderflow.testing.PostgresTest;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged notification-service as a process, on our broker, a real PostgreSQL and a real SMTP server (GreenMail):
 * killed with SIGKILL while consuming and sending, it loses no mail and writes none twice after a restart; a replay
 * from the earliest offset sends nothing again. The one documented window, mails accepted by the SMTP server and not
 * yet marked sent when the process dies, can resend at most the group in flight (the mails it had claimed, at most
 * {@code send-concurrency}), and each resend carries the same Message-ID; the restarted instance sends them once their
 * lease has passed. {@link NotificationInstancesIT} runs two instances side by side.
 */
@PostgresTest(service = "notification-service")
class NotificationProcessIT {

    private static final int ORDERS = 2_000;
    private static final Duration WITHIN = Duration.ofMinutes(3);

    @Test
    void aServiceKilledWhileSendingLosesNoMailAndAReplaySendsNoneAgain(
            PostgresDatabase database, @TempDir Path brokerDir) throws Exception {
        CleanSchema.empty(database);
        GreenMail smtp = GreenMailSmtp.start(0);
        try (InProcessBroker broker = InProcessBroker.start(brokerDir)) {
            broker.createTopic("orders", 3);
            try (OrderEventsProducer producer = new OrderEventsProducer(broker.bootstrapServers())) {
                for (int n = 0; n < ORDERS; n++) {
                    producer.send(new OrderCreated(
                            "order-" + n,
                            "customer-" + n,
                            "EUR",
                            List.of(new OrderLine("sku-1", 1, BigDecimal.ONE)),
                            BigDecimal.ONE,
                            "web"));
                }
            }

            ServiceProcess first = start(database, broker, smtp, "first");
            await().atMost(WITHIN).until(() -> smtp.getReceivedMessages().length >= 200);
            first.killNine();
            assertThat(number(database, "SELECT count(*) FROM notifications WHERE status = 'SENT'"))
                    .as("killed before the end, or the test proves nothing")
                    .isLessThan(ORDERS);

            try (ServiceProcess second = start(database, broker, smtp, "second")) {
                await().atMost(WITHIN)
                        .until(() ->
                                number(database, "SELECT count(*) FROM notifications WHERE status = 'SENT'") == ORDERS);
            }
            assertThat(number(database, "SELECT count(*) FROM notifications")).isEqualTo(ORDERS);
            assertThat(messageIds(smtp).stream().distinct().count()).isEqualTo(ORDERS);
            assertThat(smtp.getReceivedMessages().length)
                    .isBetween(ORDERS, ORDERS + NotificationProcesses.SEND_CONCURRENCY);
            int received = smtp.getReceivedMessages().length;

            ConsumerGroupOffsets.resetToEarliest(broker.bootstrapServers(), "notification-service", "orders");
            try (ServiceProcess replaying = start(database, broker, smtp, "replay")) {
                await().atMost(WITHIN)
                        .until(() -> replaying
                                        .metrics()
                                        .lines()
                                        .filter(line -> line.startsWith("orderflow_consumer_events_total{")
                                                && line.contains("outcome=\"duplicate\""))
                                        .mapToDouble(
                                                line -> Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)))
                                        .sum()
                                >= ORDERS);
            }
            assertThat(smtp.getReceivedMessages().length).isEqualTo(received);
            assertThat(number(database, "SELECT count(*) FROM notifications")).isEqualTo(ORDERS);
        } finally {
            smtp.stop();
        }
    }
}
