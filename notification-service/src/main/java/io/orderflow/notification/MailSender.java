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
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.jboss.logging.Logger;

/**
 * Sends the pending mails ({@link NotificationLedger} writes them), oldest first, in groups of up to
 * {@code send-concurrency} mails of different orders: the group's SMTP transactions in flight at once (the mailer's
 * connection pool), then the accepted ones marked {@code SENT} in one transaction. One order's mails are sent in the
 * order they were written, one group after another. A mail is never lost and never dead-lettered: while the SMTP server refuses or is
 * away, the mail stays pending and the sender waits (500 ms doubling to {@code send-backoff-max}) and tries again.
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
    private static final String MARK_SENT = "UPDATE notifications n SET status = 'SENT', sent_at = clock_timestamp(),"
            + " attempts = attempts + 1, last_error = NULL FROM unnest(?::uuid[]) AS s (event_id)"
            + " WHERE n.event_id = s.event_id";
    private static final String MARK_FAILED = "UPDATE notifications n SET attempts = attempts + 1, last_error = f.error"
            + " FROM unnest(?::uuid[], ?::text[]) AS f (event_id, error) WHERE n.event_id = f.event_id";

    private record Pending(UUID eventId, String recipient, String subject, String body) {}

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
            // The oldest mail of each order only: an order's mails go out one group after another, in order.
            Set<String> orders = new HashSet<>();
            try (ResultSet rows = statement.executeQuery("SELECT event_id, recipient, subject, body, order_id"
                    + " FROM notifications WHERE status = 'PENDING' AND recipient IS NOT NULL ORDER BY created_at"
                    + " LIMIT " + 4 * config.sendConcurrency())) {
                while (rows.next() && due.size() < config.sendConcurrency()) {
                    if (orders.add(rows.getString(5))) {
                        due.add(new Pending(
                                rows.getObject(1, UUID.class),
                                rows.getString(2),
                                rows.getString(3),
                                rows.getString(4)));
                    }
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
        List<UUID> refused = new ArrayList<>();
        List<String> errors = new ArrayList<>();
        long deadline = System.nanoTime() + SEND_TIMEOUT.toNanos();
        for (int i = 0; i < due.size(); i++) {
            try {
                sends.get(i).get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                accepted.add(due.get(i).eventId());
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
