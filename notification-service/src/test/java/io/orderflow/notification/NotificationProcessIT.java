package io.orderflow.notification;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.icegreen.greenmail.util.GreenMail;
import com.icegreen.greenmail.util.ServerSetup;
import io.orderflow.contracts.order.OrderCreated;
import io.orderflow.contracts.order.OrderLine;
import io.orderflow.postgres.PostgresDatabase;
import io.orderflow.process.ServiceProcess;
import io.orderflow.testing.CleanSchema;
import io.orderflow.testing.ConsumerGroupOffsets;
import io.orderflow.testing.InProcessBroker;
import io.orderflow.testing.OrderEventsProducer;
import io.orderflow.testing.PackagedService;
import io.orderflow.testing.PostgresTest;
import jakarta.mail.internet.MimeMessage;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged notification-service as a process, on our broker, a real PostgreSQL and a real SMTP server (GreenMail):
 * killed with SIGKILL while consuming and sending, it loses no mail and writes none twice after a restart; a replay
 * from the earliest offset sends nothing again. The one documented window, mails accepted by the SMTP server and not
 * yet marked sent when the process dies, can resend at most the group in flight ({@code send-concurrency}, 16 by
 * default), and each resend carries the same Message-ID.
 */
@PostgresTest(service = "notification-service")
class NotificationProcessIT {

    private static final int ORDERS = 2_000;
    private static final Duration WITHIN = Duration.ofMinutes(3);
    private static final int SEND_CONCURRENCY = 16;

    private static ServiceProcess start(
            PostgresDatabase database, InProcessBroker broker, GreenMail smtp, String name) {
        return PackagedService.builder(
                        "notification-service", database, broker.bootstrapServers(), "notification-" + name)
                .property("quarkus.mailer.host", "127.0.0.1")
                .property("quarkus.mailer.port", Integer.toString(smtp.getSmtp().getPort()))
                .property("orderflow.notification-service.send-concurrency", Integer.toString(SEND_CONCURRENCY))
                .start();
    }

    private static long number(PostgresDatabase database, String sql) throws SQLException {
        try (Connection connection = database.connect();
                Statement statement = connection.createStatement();
                ResultSet row = statement.executeQuery(sql)) {
            row.next();
            return row.getLong(1);
        }
    }

    private static long distinctMessageIds(GreenMail smtp) {
        return Arrays.stream(smtp.getReceivedMessages())
                .map(message -> {
                    try {
                        return ((MimeMessage) message).getMessageID();
                    } catch (jakarta.mail.MessagingException e) {
                        throw new IllegalStateException(e);
                    }
                })
                .distinct()
                .count();
    }

    @Test
    void aServiceKilledWhileSendingLosesNoMailAndAReplaySendsNoneAgain(
            PostgresDatabase database, @TempDir Path brokerDir) throws Exception {
        CleanSchema.empty(database);
        GreenMail smtp = new GreenMail(new ServerSetup(0, "127.0.0.1", ServerSetup.PROTOCOL_SMTP));
        smtp.start();
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
            assertThat(distinctMessageIds(smtp)).isEqualTo(ORDERS);
            assertThat(smtp.getReceivedMessages().length).isBetween(ORDERS, ORDERS + SEND_CONCURRENCY);
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
