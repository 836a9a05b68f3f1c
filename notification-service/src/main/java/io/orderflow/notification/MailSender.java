package io.orderflow.notification;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.orderflow.backoff.Backoff;
import io.quarkus.mailer.Mail;
import io.quarkus.mailer.reactive.ReactiveMailer;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Singleton;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BinaryOperator;
import javax.sql.DataSource;
import org.jboss.logging.Logger;

/**
 * Sends the pending mails ({@link NotificationLedger} writes them), oldest first, in groups of up to
 * {@code send-concurrency} mails of different orders: the group's SMTP transactions in flight at once (the mailer's
 * connection pool), then the accepted ones marked {@code SENT} in one transaction. A mail is never lost and never
 * dead-lettered: while the SMTP server refuses or is away, the mail stays pending and the sender waits (500 ms doubling
 * to {@code send-backoff-max}) and tries again.
 *
 * <p><b>One order's mails in its lifecycle's order.</b> The orders of the oldest pending mails whose customer is known
 * (the order's {@code OrderCreated} wrote {@code order_customers}) are served first, and of each such order only its
 * first pending mail in lifecycle order ({@link LifecycleStep}, then the order the mails were written in) is due: so
 * each group holds at most one mail per order, the next one is sent only once the SMTP server accepted the one before,
 * and a shipment or cancellation whose event arrived before the order's {@code OrderCreated} still follows the
 * confirmation. The address is read when the mail is sent, from the customer of the order, and recorded on the row
 * with {@code SENT}: a mail written before its order's customer was known needs no second write, and nothing depends on
 * which of two concurrent transactions committed first.
 *
 * <p><b>The duplicate window.</b> A crash after the SMTP server accepted a mail and before its row is marked sends it
 * again after the restart: at most the {@code send-concurrency} mails of the group in flight, for the time of their
 * sends and one commit. Every mail carries {@code Message-ID: <eventId@orderflow>}, the same on a resend, so mail
 * clients that deduplicate by Message-ID show it once. Nothing else can send a mail twice: a redelivered event finds
 * its id claimed and writes no second row.
 *
 * <p>Runs on its own thread from start-up to shutdown. Thread-safe.
 */
@Singleton
public class MailSender implements Runnable {

    private static final Logger LOG = Logger.getLogger(MailSender.class);
    private static final Duration BACKOFF_MIN = Duration.ofMillis(500);
    private static final Duration SEND_TIMEOUT = Duration.ofSeconds(60);
    // The pending gauge's count scans the pending mails (200,000 took 75 ms at 2,000 orders/s, 2026-12-03); once per
    // Prometheus scrape interval (ops/deploy/prometheus, 5 s) is as fresh as anything reads it.
    private static final Duration PENDING_COUNT_INTERVAL = Duration.ofSeconds(5);
    // Which mails are due takes two statements whose plans do not depend on statistics (a young table has none): the
    // pending index in age order, with a primary-key probe of each row's customer, for the oldest orders that can be
    // mailed; then those orders' mails through the order index. Each took under 3 ms at 170,000 pending mails, with and
    // without statistics (2026-12-04). Single statements that also compared each pending mail with the earlier ones of
    // its order were planned, without statistics, as a read of every pending mail per mail: 0.6 s (NOT EXISTS) and
    // 22 minutes (a correlated LIMIT 1) for one group.
    private static final String OLDEST_ADDRESSED_ORDERS = """
            SELECT n.order_id FROM notifications n
            WHERE n.status = 'PENDING' AND EXISTS (SELECT 1 FROM order_customers c WHERE c.order_id = n.order_id)
            ORDER BY n.created_at
            LIMIT ?
            """;
    // Every mail of the orders, sent ones too: filtering on status here would invite the planner to combine the order
    // index with the pending index, which it then reads whole for each order. An order has a few mails at most.
    private static final String MAILS_OF_ORDERS = """
            SELECT n.order_id, n.event_id, n.status, n.lifecycle_step, n.created_at, n.subject, n.body,
                   c.customer_id || '@' || ?
            FROM unnest(?::text[]) AS k (order_id)
            JOIN notifications n ON n.order_id = k.order_id
            JOIN order_customers c ON c.order_id = k.order_id
            """;
    private static final Comparator<PendingOfOrder> LIFECYCLE_ORDER = Comparator.comparingInt(PendingOfOrder::step)
            .thenComparing(PendingOfOrder::createdAt)
            .thenComparing(PendingOfOrder::eventId);
    private static final String MARK_SENT = "UPDATE notifications n SET status = 'SENT', sent_at = clock_timestamp(),"
            + " recipient = s.recipient, attempts = attempts + 1, last_error = NULL"
            + " FROM unnest(?::uuid[], ?::text[]) AS s (event_id, recipient) WHERE n.event_id = s.event_id";
    private static final String MARK_FAILED = "UPDATE notifications n SET attempts = attempts + 1, last_error = f.error"
            + " FROM unnest(?::uuid[], ?::text[]) AS f (event_id, error) WHERE n.event_id = f.event_id";

    private record Pending(UUID eventId, String recipient, String subject, String body) {}

    /** A pending mail of an order that has some, as {@link #due} reads it. */
    private record PendingOfOrder(
            String orderId,
            UUID eventId,
            short step,
            OffsetDateTime createdAt,
            String subject,
            String body,
            String recipient) {}

    private final DataSource dataSource;
    private final ReactiveMailer mailer;
    private final NotificationConfig config;
    private final Counter sent;
    private final Counter failures;
    private final AtomicLong pending = new AtomicLong();
    private volatile boolean stopping;
    private long pendingCountedAt;
    private Thread thread;

    MailSender(DataSource dataSource, ReactiveMailer mailer, NotificationConfig config, MeterRegistry registry) {
        this.dataSource = dataSource;
        this.mailer = mailer;
        this.config = config;
        sent = Counter.builder("orderflow.notifications.sent")
                .description("Mails the SMTP server accepted")
                .register(registry);
        failures = Counter.builder("orderflow.notifications.send.failures")
                .description("Attempts the SMTP server refused or did not answer (the mail stays pending)")
                .register(registry);
        Gauge.builder("orderflow.notifications.pending", pending, AtomicLong::get)
                .description("Mails written and not yet sent")
                .register(registry);
    }

    void start(@Observes StartupEvent event) {
        thread = Thread.ofPlatform().name("mail-sender").start(this);
    }

    void stop(@Observes ShutdownEvent event) throws InterruptedException {
        stopping = true;
        if (thread != null) {
            thread.interrupt();
            thread.join(Duration.ofSeconds(10));
        }
    }

    @Override
    public void run() {
        Duration max = config.sendBackoffMax();
        Backoff backoff = new Backoff(BACKOFF_MIN.compareTo(max) > 0 ? max : BACKOFF_MIN, max);
        while (!stopping) {
            try {
                List<Pending> due = due();
                if (due.isEmpty()) {
                    Thread.sleep(config.sendPollInterval().toMillis()); // nothing to send: look again later
                    continue;
                }
                send(due);
                backoff.succeeded();
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException | SQLException e) {
                Duration delay = backoff.failed();
                LOG.warnf("sending mails failed (%s); trying again in %d ms", e.getMessage(), delay.toMillis());
                try {
                    Thread.sleep(delay.toMillis()); // back-off while SMTP or the database is away
                } catch (InterruptedException interrupted) {
                    return;
                }
            }
        }
    }

    private List<Pending> due() throws SQLException {
        List<Pending> due = new ArrayList<>();
        try (Connection connection = dataSource.getConnection();
                Statement statement = connection.createStatement()) {
            long now = System.nanoTime();
            if (now - pendingCountedAt >= PENDING_COUNT_INTERVAL.toNanos()) {
                try (ResultSet count =
                        statement.executeQuery("SELECT count(*) FROM notifications WHERE status = 'PENDING'")) {
                    count.next();
                    pending.set(count.getLong(1));
                }
                pendingCountedAt = now;
            }
            Set<String> orders = new LinkedHashSet<>(); // oldest pending mail first
            try (PreparedStatement select = connection.prepareStatement(OLDEST_ADDRESSED_ORDERS)) {
                select.setInt(1, 4 * config.sendConcurrency());
                try (ResultSet rows = select.executeQuery()) {
                    while (rows.next()) {
                        orders.add(rows.getString(1));
                    }
                }
            }
            if (orders.isEmpty()) {
                return due;
            }
            Map<String, PendingOfOrder> next = new HashMap<>();
            try (PreparedStatement select = connection.prepareStatement(MAILS_OF_ORDERS)) {
                select.setString(1, config.recipientDomain());
                select.setArray(2, connection.createArrayOf("text", orders.toArray()));
                try (ResultSet rows = select.executeQuery()) {
                    while (rows.next()) {
                        if (!rows.getString(3).equals("PENDING")) {
                            continue;
                        }
                        PendingOfOrder mail = new PendingOfOrder(
                                rows.getString(1),
                                rows.getObject(2, UUID.class),
                                rows.getShort(4),
                                rows.getObject(5, OffsetDateTime.class),
                                rows.getString(6),
                                rows.getString(7),
                                rows.getString(8));
                        next.merge(mail.orderId(), mail, BinaryOperator.minBy(LIFECYCLE_ORDER));
                    }
                }
            }
            for (String order : orders) {
                PendingOfOrder mail = next.get(order);
                if (mail != null && due.size() < config.sendConcurrency()) {
                    due.add(new Pending(mail.eventId(), mail.recipient(), mail.subject(), mail.body()));
                }
            }
        }
        return due;
    }

    /**
     * Sends {@code due} at once and records each outcome: the accepted ones {@code SENT}, the others an attempt and
     * their error. Throws if any was not accepted, so that the sender backs off before the next attempt.
     */
    private void send(List<Pending> due) throws SQLException, InterruptedException {
        List<CompletableFuture<Void>> sends = new ArrayList<>(due.size());
        for (Pending mail : due) {
            sends.add(mailer.send(Mail.withText(mail.recipient(), mail.subject(), mail.body())
                            .addHeader("Message-ID", "<" + mail.eventId() + "@orderflow>"))
                    .subscribeAsCompletionStage());
        }
        List<UUID> accepted = new ArrayList<>();
        List<String> acceptedFor = new ArrayList<>();
        List<UUID> refused = new ArrayList<>();
        List<String> errors = new ArrayList<>();
        long deadline = System.nanoTime() + SEND_TIMEOUT.toNanos();
        for (int i = 0; i < due.size(); i++) {
            try {
                sends.get(i).get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                accepted.add(due.get(i).eventId());
                acceptedFor.add(due.get(i).recipient());
            } catch (ExecutionException | TimeoutException e) {
                Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
                refused.add(due.get(i).eventId());
                errors.add(String.valueOf(cause.getMessage()));
            }
        }
        try (Connection connection = dataSource.getConnection()) {
            if (!accepted.isEmpty()) {
                try (PreparedStatement update = connection.prepareStatement(MARK_SENT)) {
                    update.setArray(1, connection.createArrayOf("uuid", accepted.toArray()));
                    update.setArray(2, connection.createArrayOf("text", acceptedFor.toArray()));
                    update.executeUpdate();
                }
            }
            if (!refused.isEmpty()) {
                try (PreparedStatement update = connection.prepareStatement(MARK_FAILED)) {
                    update.setArray(1, connection.createArrayOf("uuid", refused.toArray()));
                    update.setArray(2, connection.createArrayOf("text", errors.toArray()));
                    update.executeUpdate();
                }
            }
        }
        sent.increment(accepted.size());
        if (!refused.isEmpty()) {
            failures.increment(refused.size());
            throw new IllegalStateException(
                    refused.size() + " of " + due.size() + " mails not accepted, the first: " + errors.getFirst());
        }
    }
}
