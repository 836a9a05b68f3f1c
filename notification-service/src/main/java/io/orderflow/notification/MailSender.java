package io.orderflow.notification;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.mailer.Mail;
import io.quarkus.mailer.Mailer;
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
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.jboss.logging.Logger;

/**
 * Sends the pending mails ({@link NotificationLedger} writes them), oldest first, one at a time: SMTP, then the row
 * marked {@code SENT} in its own transaction. A mail is never lost and never dead-lettered: while the SMTP server
 * refuses or is away, the mail stays pending and the sender waits (500 ms doubling to
 * {@code send-backoff-max}) and tries again.
 *
 * <p><b>The duplicate window.</b> A crash after the SMTP server accepted a mail and before its row is marked sends it
 * again after the restart: one mail, one transaction of a few milliseconds, so the window is that commit. Every mail
 * carries {@code Message-ID: <eventId@orderflow>}, the same on a resend, so mail clients that deduplicate by
 * Message-ID show it once. Nothing else can send a mail twice: a redelivered event finds its id claimed and writes no
 * second row.
 *
 * <p>Runs on its own thread from start-up to shutdown. Thread-safe.
 */
@Singleton
public class MailSender implements Runnable {

    private static final Logger LOG = Logger.getLogger(MailSender.class);
    private static final Duration BACKOFF_MIN = Duration.ofMillis(500);
    private static final int BATCH = 20;

    private record Pending(UUID eventId, String recipient, String subject, String body) {}

    private final DataSource dataSource;
    private final Mailer mailer;
    private final NotificationConfig config;
    private final Counter sent;
    private final Counter failures;
    private final AtomicLong pending = new AtomicLong();
    private volatile boolean stopping;
    private Thread thread;

    MailSender(DataSource dataSource, Mailer mailer, NotificationConfig config, MeterRegistry registry) {
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
        Duration backoff = BACKOFF_MIN;
        while (!stopping) {
            try {
                List<Pending> due = due();
                if (due.isEmpty()) {
                    Thread.sleep(config.sendPollInterval().toMillis()); // nothing to send: look again later
                    continue;
                }
                for (Pending mail : due) {
                    send(mail);
                }
                backoff = BACKOFF_MIN;
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException | SQLException e) {
                failures.increment();
                LOG.warnf("sending mails failed (%s); trying again in %d ms", e.getMessage(), backoff.toMillis());
                try {
                    Thread.sleep(backoff.toMillis()); // back-off while SMTP or the database is away
                } catch (InterruptedException interrupted) {
                    return;
                }
                backoff = backoff.multipliedBy(2).compareTo(config.sendBackoffMax()) > 0
                        ? config.sendBackoffMax()
                        : backoff.multipliedBy(2);
            }
        }
    }

    private List<Pending> due() throws SQLException {
        List<Pending> due = new ArrayList<>();
        try (Connection connection = dataSource.getConnection();
                Statement statement = connection.createStatement()) {
            try (ResultSet count =
                    statement.executeQuery("SELECT count(*) FROM notifications WHERE status = 'PENDING'")) {
                count.next();
                pending.set(count.getLong(1));
            }
            try (ResultSet rows = statement.executeQuery("SELECT event_id, recipient, subject, body FROM notifications"
                    + " WHERE status = 'PENDING' AND recipient IS NOT NULL ORDER BY created_at LIMIT " + BATCH)) {
                while (rows.next()) {
                    due.add(new Pending(
                            rows.getObject(1, UUID.class), rows.getString(2), rows.getString(3), rows.getString(4)));
                }
            }
        }
        return due;
    }

    private void send(Pending mail) throws SQLException {
        try {
            mailer.send(Mail.withText(mail.recipient(), mail.subject(), mail.body())
                    .addHeader("Message-ID", "<" + mail.eventId() + "@orderflow>"));
        } catch (RuntimeException e) {
            record(
                    mail.eventId(),
                    "UPDATE notifications SET attempts = attempts + 1, last_error = ?" + " WHERE event_id = ?",
                    e.getMessage());
            throw e;
        }
        record(
                mail.eventId(),
                "UPDATE notifications SET status = 'SENT', sent_at = clock_timestamp(),"
                        + " attempts = attempts + 1, last_error = ? WHERE event_id = ?",
                null);
        sent.increment();
    }

    private void record(UUID eventId, String sql, String error) throws SQLException {
        try (Connection connection = dataSource.getConnection();
                PreparedStatement update = connection.prepareStatement(sql)) {
            update.setString(1, error);
            update.setObject(2, eventId);
            update.executeUpdate();
        }
    }
}
