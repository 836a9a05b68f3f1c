package io.orderflow.notification;

import static io.orderflow.notification.NotificationProcesses.messageId;
import static io.orderflow.notification.NotificationProcesses.messageIds;
import static io.orderflow.notification.NotificationProcesses.number;
import static io.orderflow.notification.NotificationProcesses.start;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.icegreen.greenmail.util.GreenMail;
import io.orderflow.contracts.order.OrderCreated;
import io.orderflow.contracts.order.OrderLine;
import io.orderflow.contracts.order.OrderRejected;
import io.orderflow.contracts.order.OrderShipped;
import io.orderflow.notification.GreenMailSmtp.AcceptanceGate;
import io.orderflow.postgres.PostgresDatabase;
import io.orderflow.process.ServiceProcess;
import io.orderflow.testing.CleanSchema;
import io.orderflow.testing.InProcessBroker;
import io.orderflow.testing.OrderEventsProducer;
import io.orderflow.testing.PostgresTest;
import jakarta.mail.MessagingException;
import jakarta.mail.internet.MimeMessage;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two packaged notification-service instances on one database, our broker and one SMTP server (GreenMail), sharing
 * 2,000 orders' 3,000 mails; one is killed with SIGKILL while it sends, with a mail of its stored by the SMTP server and
 * not yet answered. Every mail is sent, each order's mails in lifecycle order whichever instance sent which, both
 * instances sent some, and the only mails received twice are mails the killed instance had claimed when it died (sent
 * again, with the same Message-ID, by the other once their lease passed): at least that one, at most all it had
 * claimed.
 */
@PostgresTest(service = "notification-service")
class NotificationInstancesIT {

    private static final int ORDERS = 2_000;
    private static final Duration WITHIN = Duration.ofMinutes(3);

    /** A mail row: its order, step, recipient and the instance that holds or sent it. */
    private record Row(String orderId, String messageId, short step, String recipient, String claimedBy) {}

    @Test
    void twoInstancesShareTheMailsAndAKilledOneResendsAtMostWhatItHadClaimed(
            PostgresDatabase database, @TempDir Path brokerDir) throws Exception {
        CleanSchema.empty(database);
        int smtpPort = NotificationProcesses.freePort();
        GreenMail smtp = null;
        try (InProcessBroker broker = InProcessBroker.start(brokerDir)) {
            broker.createTopic("orders", 6);
            int mails = produce(broker);
            try (ServiceProcess victim = start(database, broker, smtpPort, "victim");
                    ServiceProcess survivor = start(database, broker, smtpPort, "survivor")) {
                // Every mail written and none sent while the SMTP server is away; with it back, both instances meet
                // the whole backlog at once.
                await().atMost(WITHIN).until(() -> number(database, "SELECT count(*) FROM notifications") == mails);
                AcceptanceGate gate = new AcceptanceGate();
                GreenMail server = GreenMailSmtp.start(smtpPort, gate);
                smtp = server;

                // Killed while the server has stored one of its mails and not yet answered: the mail it will receive
                // twice. The gate holds the answers back for the moment that takes.
                // Each instance marks a group of mails sent once the server has answered every mail in it: wait until
                // the victim has marked one, so that it has mails of its own to show afterwards.
                await().atMost(WITHIN)
                        .until(() -> server.getReceivedMessages().length >= mails / 5
                                && !messageIdsOf(rowsWhere(database, "status = 'SENT'"), victim)
                                        .isEmpty());
                gate.close();
                await().atMost(WITHIN)
                        .until(() -> !Collections.disjoint(
                                gate.held(), messageIdsOf(rowsWhere(database, "status = 'PENDING'"), victim)));
                victim.killNine();
                victim.onExit().get();
                // Before its leases pass (12 s), nobody else has taken them: what it had in flight when it died.
                Set<String> claimsAtKill = messageIdsOf(rowsWhere(database, "status = 'PENDING'"), victim);
                gate.open();
                assertThat(number(database, "SELECT count(*) FROM notifications WHERE status = 'SENT'"))
                        .as("killed before the end, or the test proves nothing")
                        .isLessThan(mails);

                await().atMost(WITHIN)
                        .until(() ->
                                number(database, "SELECT count(*) FROM notifications WHERE status = 'SENT'") == mails);
                List<Row> rows = rowsWhere(database, "true");
                assertThat(rows).hasSize(mails);
                assertThat(messageIdsOf(rows, victim))
                        .as("mails sent by the killed instance")
                        .isNotEmpty();
                assertThat(messageIdsOf(rows, survivor))
                        .as("mails sent by the survivor")
                        .isNotEmpty();

                List<String> received = messageIds(server);
                System.out.printf(
                        "%d mails: %d sent by the killed instance, %d by the survivor; %d claimed by the killed one when"
                                + " it died, %d received twice%n",
                        mails,
                        messageIdsOf(rows, victim).size(),
                        messageIdsOf(rows, survivor).size(),
                        claimsAtKill.size(),
                        received.size() - received.stream().distinct().count());
                assertThat(Set.copyOf(received))
                        .as("every mail received")
                        .isEqualTo(rows.stream().map(Row::messageId).collect(Collectors.toSet()));
                Set<String> duplicated = duplicated(received);
                assertThat(received.size() - received.stream().distinct().count())
                        .as("mails received twice, at most the %d the killed instance had claimed", claimsAtKill.size())
                        .isPositive()
                        .isLessThanOrEqualTo(claimsAtKill.size());
                assertThat(claimsAtKill).containsAll(duplicated);
                assertSameMailEachTime(server, duplicated);
                assertLifecycleOrderPerOrder(server, rows);
            }
        } finally {
            if (smtp != null) {
                smtp.stop();
            }
        }
    }

    /**
     * {@value #ORDERS} orders: each created, every fourth also shipped and every fourth other one rejected, the second
     * event right after the first (one key, one partition). Returns the number of mails they send.
     */
    private static int produce(InProcessBroker broker) throws Exception {
        int mails = 0;
        try (OrderEventsProducer producer = new OrderEventsProducer(broker.bootstrapServers())) {
            for (int n = 0; n < ORDERS; n++) {
                String order = "order-" + n;
                producer.send(new OrderCreated(
                        order,
                        "customer-" + n,
                        "EUR",
                        List.of(new OrderLine("sku-1", 1, BigDecimal.ONE)),
                        BigDecimal.ONE,
                        "web"));
                mails++;
                switch (n % 4) {
                    case 0 -> {
                        producer.send(new OrderShipped(order, "DHL", "track-" + n));
                        mails++;
                    }
                    case 1 -> {
                        producer.send(new OrderRejected(order, "not enough stock", List.of("sku-1")));
                        mails++;
                    }
                    default -> {
                        // the confirmation alone
                    }
                }
            }
        }
        return mails;
    }

    private static String sender(ServiceProcess instance) {
        return instance.pid() + "@";
    }

    private static List<Row> rowsWhere(PostgresDatabase database, String condition) throws SQLException {
        List<Row> rows = new ArrayList<>();
        try (Connection connection = database.connect();
                Statement statement = connection.createStatement();
                ResultSet row = statement.executeQuery(
                        "SELECT order_id, '<' || event_id || '@orderflow>', lifecycle_step, recipient, claimed_by"
                                + " FROM notifications WHERE " + condition)) {
            while (row.next()) {
                rows.add(new Row(
                        row.getString(1), row.getString(2), row.getShort(3), row.getString(4), row.getString(5)));
            }
        }
        return rows;
    }

    private static Set<String> messageIdsOf(List<Row> rows, ServiceProcess instance) {
        return rows.stream()
                .filter(row -> row.claimedBy() != null && row.claimedBy().startsWith(sender(instance)))
                .map(Row::messageId)
                .collect(Collectors.toSet());
    }

    private static Set<String> duplicated(List<String> received) {
        Set<String> seen = new HashSet<>();
        return received.stream().filter(id -> !seen.add(id)).collect(Collectors.toSet());
    }

    /** Each copy of a mail received more than once has the same recipient, subject and text. */
    private static void assertSameMailEachTime(GreenMail smtp, Set<String> duplicated) throws Exception {
        Map<String, Set<List<String>>> copies = new LinkedHashMap<>();
        for (MimeMessage message : smtp.getReceivedMessages()) {
            String id = messageId(message);
            if (duplicated.contains(id)) {
                copies.computeIfAbsent(id, key -> new HashSet<>()).add(content(message));
            }
        }
        assertThat(copies.values()).allSatisfy(versions -> assertThat(versions).hasSize(1));
    }

    private static List<String> content(MimeMessage message) {
        try {
            return List.of(
                    message.getAllRecipients()[0].toString(),
                    message.getSubject(),
                    String.valueOf(message.getContent()));
        } catch (MessagingException | java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Each customer's mailbox, in the order the server received them: every copy of the confirmation before the first
     * copy of the order's second mail, although the two may have been sent by different instances.
     */
    private static void assertLifecycleOrderPerOrder(GreenMail smtp, List<Row> rows) {
        Map<String, List<String>> mailbox = new LinkedHashMap<>();
        for (MimeMessage message : smtp.getReceivedMessages()) {
            mailbox.computeIfAbsent(content(message).getFirst(), key -> new ArrayList<>())
                    .add(messageId(message));
        }
        Map<String, List<Row>> byOrder = rows.stream().collect(Collectors.groupingBy(Row::orderId));
        int checked = 0;
        for (List<Row> mails : byOrder.values()) {
            if (mails.size() < 2) {
                continue;
            }
            Map<Short, String> byStep = mails.stream().collect(Collectors.toMap(Row::step, Row::messageId));
            String confirmation = byStep.get(LifecycleStep.CREATED.number());
            String second = byStep.entrySet().stream()
                    .filter(step -> step.getKey() != LifecycleStep.CREATED.number())
                    .map(Map.Entry::getValue)
                    .findFirst()
                    .orElseThrow();
            List<String> received = mailbox.get(mails.getFirst().recipient());
            assertThat(received.lastIndexOf(confirmation))
                    .as(
                            "%s: the confirmation before the second mail, in %s",
                            mails.getFirst().orderId(), received)
                    .isLessThan(received.indexOf(second));
            checked++;
        }
        assertThat(checked).isEqualTo(ORDERS / 2);
    }
}
