package io.orderflow.notification;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.orderflow.backoff.Backoff;
import io.orderflow.notification.MailClaims.ClaimedMail;
import io.quarkus.mailer.Mail;
import io.quarkus.mailer.reactive.ReactiveMailer;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Singleton;
import java.lang.management.ManagementFactory;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import javax.sql.DataSource;
import org.jboss.logging.Logger;

/**
 * Sends the pending mails ({@link NotificationLedger} writes them), oldest first, in groups of up to
 * {@code send-concurrency} mails of different orders: it {@link MailClaims claims} a group (a lease of
 * {@code send-lease} on each row), puts the group's SMTP transactions in flight at once (the mailer's connection pool,
 * connections kept alive between mails), then marks the accepted ones {@code SENT} in one transaction and releases the
 * refused ones. Any number of instances may share one database: each sends the mails it claimed, and one order's mails
 * still go out one after another in lifecycle order ({@link MailClaims}, "Which mails are due"). A mail is never lost
 * and never dead-lettered: while the SMTP server refuses or is away, the mail stays pending and the sender waits (500
 * ms doubling to {@code send-backoff-max}) and tries again.
 *
 * <p>The address is read when the mail is claimed, from the customer of the order, and recorded on the row with
 * {@code SENT}: a mail written before its order's customer was known needs no second write.
 *
 * <p><b>The duplicate window.</b> A crash after the SMTP server accepted a mail and before its row is marked sends it
 * again, once its lease has passed, from whichever instance claims it then: at most the {@code send-concurrency} mails
 * the crashed sender had claimed. Every mail carries {@code Message-ID: <eventId@orderflow>}, the same on a resend, so
 * mail clients that deduplicate by Message-ID show it once. A sender gives its group's sends half the lease, and counts
 * a send not answered by then as failed, so that its mark lands while its lease still runs and no other sender takes
 * over a mail it is still sending. Nothing else sends a mail twice: a redelivered event finds its id claimed and
 * writes no second row.
 *
 * <p>Each instance names itself {@code <pid>@<host>} in {@code claimed_by}. Runs on its own thread from start-up to
 * shutdown; a shutdown lets the group in flight finish and be marked. Thread-safe.
 */
@Singleton
public class MailSender implements Runnable {

    private static final Logger LOG = Logger.getLogger(MailSender.class);
    private static final Duration BACKOFF_MIN = Duration.ofMillis(500);
    private static final Duration STOP_WAIT = Duration.ofSeconds(10);
    // The pending gauge's count scans the pending mails (200,000 took 75 ms at 2,000 orders/s, 2026-12-03); once per
    // Prometheus scrape interval (ops/deploy/prometheus, 5 s) is as fresh as anything reads it.
    private static final Duration PENDING_COUNT_INTERVAL = Duration.ofSeconds(5);

    private final DataSource dataSource;
    private final ReactiveMailer mailer;
    private final NotificationConfig config;
    private final MailClaims claims;
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
        if (config.sendLease().compareTo(Duration.ofSeconds(1)) < 0) {
            throw new IllegalArgumentException("orderflow.notification-service.send-lease is " + config.sendLease()
                    + ": it must be 1 s or more, since sends get half of it");
        }
        this.claims = new MailClaims(
                dataSource,
                ManagementFactory.getRuntimeMXBean().getName(),
                config.sendLease(),
                config.recipientDomain());
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
        LOG.infof(
                "sending mails as %s, %d at once, leased for %s",
                claims.sender(), config.sendConcurrency(), claims.lease());
        thread = Thread.ofPlatform().name("mail-sender").start(this);
    }

    void stop(@Observes ShutdownEvent event) throws InterruptedException {
        stopping = true;
        if (thread != null) {
            LockSupport.unpark(thread); // ends a wait for new mails or a back-off, not a group in flight
            thread.join(STOP_WAIT);
        }
    }

    @Override
    public void run() {
        Duration max = config.sendBackoffMax();
        Backoff backoff = new Backoff(BACKOFF_MIN.compareTo(max) > 0 ? max : BACKOFF_MIN, max);
        while (!stopping) {
            try {
                countPendingEvery(PENDING_COUNT_INTERVAL);
                long claimedAt = System.nanoTime();
                List<ClaimedMail> claimed = claims.claim(config.sendConcurrency());
                if (claimed.isEmpty()) {
                    LockSupport.parkNanos(config.sendPollInterval().toNanos()); // nothing due: look again later
                    continue;
                }
                send(claimed, claimedAt + claims.lease().toNanos() / 2);
                backoff.succeeded();
            } catch (RuntimeException | SQLException e) {
                Duration delay = backoff.failed();
                LOG.warnf("sending mails failed (%s); trying again in %d ms", e.getMessage(), delay.toMillis());
                LockSupport.parkNanos(delay.toNanos()); // back-off while SMTP or the database is away
            }
        }
    }

    private void countPendingEvery(Duration interval) throws SQLException {
        long now = System.nanoTime();
        if (now - pendingCountedAt < interval.toNanos()) {
            return;
        }
        try (Connection connection = dataSource.getConnection();
                Statement statement = connection.createStatement();
                ResultSet count =
                        statement.executeQuery("SELECT count(*) FROM notifications WHERE status = 'PENDING'")) {
            count.next();
            pending.set(count.getLong(1));
        }
        pendingCountedAt = now;
    }

    /**
     * Sends {@code claimed} at once and records each outcome: the accepted ones {@code SENT}, the others released with
     * an attempt and their error; a send not answered by {@code deadline} ({@link System#nanoTime()}) counts as
     * refused. Throws if any was not accepted, so that the sender backs off before the next attempt.
     */
    private void send(List<ClaimedMail> claimed, long deadline) throws SQLException {
        List<CompletableFuture<Void>> sends = new ArrayList<>(claimed.size());
        for (ClaimedMail mail : claimed) {
            sends.add(mailer.send(Mail.withText(mail.recipient(), mail.subject(), mail.body())
                            .addHeader("Message-ID", mail.messageId()))
                    .subscribeAsCompletionStage());
        }
        List<ClaimedMail> accepted = new ArrayList<>();
        List<ClaimedMail> refused = new ArrayList<>();
        List<String> errors = new ArrayList<>();
        for (int i = 0; i < claimed.size(); i++) {
            try {
                sends.get(i).get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                accepted.add(claimed.get(i));
            } catch (ExecutionException | TimeoutException e) {
                Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
                refused.add(claimed.get(i));
                errors.add(String.valueOf(cause.getMessage()));
            } catch (InterruptedException e) {
                stopping = true; // whoever interrupts wants the thread to end: this group is recorded, then it does
                refused.add(claimed.get(i));
                errors.add("interrupted while sending");
            }
        }
        int marked = claims.markSent(accepted);
        if (marked < accepted.size()) {
            LOG.warnf(
                    "%d of %d accepted mails were claimed by another sender after their lease passed; it sends them"
                            + " again, with the same Message-ID",
                    accepted.size() - marked, accepted.size());
        }
        claims.release(refused, errors);
        sent.increment(accepted.size());
        if (!refused.isEmpty()) {
            failures.increment(refused.size());
            throw new IllegalStateException(
                    refused.size() + " of " + claimed.size() + " mails not accepted, the first: " + errors.getFirst());
        }
    }
}
