package io.orderflow.relay;

import io.opentelemetry.api.OpenTelemetry;
import io.orderflow.backoff.Backoff;
import io.orderflow.contracts.TraceIds;
import io.orderflow.outbox.OutboxRow;
import io.orderflow.outbox.OutboxTable;
import io.orderflow.outbox.PendingBatch;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.kafka.clients.producer.Producer;
import org.jboss.logging.Logger;
import org.jboss.logging.MDC;
import org.postgresql.PGConnection;

/**
 * Moves outbox rows to the broker: reads what may be published ({@link OutboxTable#pending}), sends it keyed by
 * order id ({@link OutboxPublisher}), and marks a row published only after the broker acknowledged it.
 *
 * <p><b>Guarantees.</b> Nothing is lost: a row stays unpublished until its acknowledgement has been recorded, so a
 * crash at any point (before sending, after sending and before marking) leaves it to be sent again; such duplicates
 * carry the same event id, which consumers deduplicate on. Per-order order holds: one leader publishes
 * ({@link RelayLeadership}), in {@code (tx_id, id)} order below the horizon ({@link OutboxTable}), through a producer
 * that never reorders a partition ({@link OutboxPublisher}); a resend after a crash repeats a prefix of the same
 * sequence, so the first occurrence of every event id is still in order. A row that can never be published is
 * quarantined with its reason, and so are the later events of its order (publishing them would break the order);
 * other orders go on. The design and its argument: libs/outbox/README.md.
 *
 * <p><b>Waking up.</b> The session {@code LISTEN}s on the channel the outbox trigger notifies on commit, and also
 * looks every {@link RelayConfig#pollInterval()} in case a notification was missed. Under load a cycle sends a
 * whole batch and starts the next one at once.
 *
 * <p><b>Failures.</b> Database errors drop the session (and with it the leadership), back off exponentially and
 * reconnect. While the broker is unreachable, sends wait (the producer retries without limit) and
 * {@link #status()} reports since when; the relay resumes by itself.
 *
 * <p>Thread-safety: {@link #run()} runs on one thread; {@link #status()} and {@link #close()} may be called from any.
 */
public final class OutboxRelay implements Runnable, AutoCloseable {

    private static final Logger LOG = Logger.getLogger(OutboxRelay.class);
    static final String CHANNEL = "outbox";
    private static final int PURGE_CHUNK = 10_000;
    private static final Duration BACKLOG_REFRESH = Duration.ofSeconds(1);
    private static final Duration STOP_CHECK = Duration.ofMillis(200);

    private final RelayConfig settings;
    private final OutboxDatabase database;
    private final Supplier<Producer<String, byte[]>> producers;
    private final RelayMetrics metrics;
    private final Clock clock;
    private final RelayLeadership leadership;
    private final OutboxRecords records;
    private final PublishSpans spans;

    private Connection connection;
    private OutboxTable table;
    private OutboxPublisher publisher;
    private Instant nextPurge = Instant.MIN;
    private Instant nextBacklogRefresh = Instant.MIN;
    private volatile RelayStatus.Role role = RelayStatus.Role.DISCONNECTED;
    private volatile String lastError;
    private volatile boolean stopping;
    private volatile boolean running;

    public OutboxRelay(
            RelayConfig settings,
            OutboxDatabase database,
            Supplier<Producer<String, byte[]>> producers,
            RelayMetrics metrics,
            OpenTelemetry openTelemetry,
            Clock clock) {
        if (settings.batchSize() < 1) {
            throw new IllegalArgumentException(
                    "orderflow.outbox-relay.batch-size must be at least 1, was " + settings.batchSize());
        }
        if (settings.maxRecordBytes() < 1) {
            throw new IllegalArgumentException(
                    "orderflow.outbox-relay.max-record-bytes must be positive, was " + settings.maxRecordBytes());
        }
        this.settings = settings;
        this.database = database;
        this.producers = producers;
        this.metrics = metrics;
        this.clock = clock;
        this.leadership = new RelayLeadership(settings.leaderLockId());
        this.records = new OutboxRecords(settings.topic(), settings.maxRecordBytes());
        this.spans = new PublishSpans(openTelemetry, settings.topic());
    }

    @Override
    public void run() {
        running = true;
        Backoff backoff = new Backoff(settings.backoffMin(), settings.backoffMax());
        while (!stopping) {
            try {
                step();
                backoff.succeeded();
            } catch (SQLException | RuntimeException e) {
                if (stopping) {
                    break;
                }
                lastError = e.getClass().getSimpleName() + ": " + e.getMessage();
                Duration delay = backoff.failed();
                LOG.warnf("outbox relay: %s; retrying in %d ms", lastError, delay.toMillis());
                dropSession(false);
                pause(delay);
            }
        }
        dropSession(true);
        role = RelayStatus.Role.STOPPED;
        running = false;
    }

    /** One turn: connect if needed, lead or stand by, publish what is ready, then wait for more. */
    void step() throws SQLException {
        connect();
        if (!lead()) {
            refreshBacklog();
            awaitNotification(settings.standbyRetry());
            return;
        }
        CycleResult cycle = cycle();
        purgeIfDue();
        refreshBacklog();
        if (cycle.brokerUnavailable()) {
            pause(settings.backoffMin());
        } else if (!cycle.moreReady()) {
            awaitNotification(cycle.heldBehindHorizon() ? settings.horizonRetry() : settings.pollInterval());
        }
    }

    /** Connects and tries to take the leadership; true if this instance leads. */
    boolean lead() throws SQLException {
        connect();
        if (role == RelayStatus.Role.LEADER) {
            return true;
        }
        if (!leadership.tryAcquire(connection)) {
            role = RelayStatus.Role.STANDBY;
            return false;
        }
        publisher = new OutboxPublisher(producers.get(), records, spans, clock);
        role = RelayStatus.Role.LEADER;
        metrics.leader(true);
        LOG.infof("outbox relay: leading (lock %d), publishing to topic %s", leadership.lockId(), settings.topic());
        return true;
    }

    /** Publishes one batch of ready rows. The caller must lead ({@link #lead()}). */
    CycleResult cycle() throws SQLException {
        PendingBatch batch = table.pending(settings.batchSize());
        if (batch.isEmpty()) {
            return batch.heldBehindHorizon() ? new CycleResult(0, 0, true, false, false) : CycleResult.IDLE;
        }
        Set<String> orders = new LinkedHashSet<>();
        batch.ready().forEach(row -> orders.add(row.entry().aggregateId()));
        Set<String> blocked = table.aggregatesWithQuarantinedEvents(orders);
        List<OutboxRow> toSend = new ArrayList<>(batch.ready().size());
        int quarantined = 0;
        for (OutboxRow row : batch.ready()) {
            String refusal = blocked.contains(row.entry().aggregateId())
                    ? "held: an earlier event of order " + row.entry().aggregateId() + " is quarantined"
                    : records.refusal(row).orElse(null);
            if (refusal != null) {
                quarantine(row, refusal);
                blocked.add(row.entry().aggregateId());
                quarantined++;
            } else {
                toSend.add(row);
            }
        }
        List<Long> acknowledged = new ArrayList<>(toSend.size());
        boolean unanswered = false;
        for (Delivery delivery : publisher.publish(toSend, () -> stopping)) {
            switch (delivery) {
                case Delivery.Acknowledged ack -> {
                    acknowledged.add(ack.row().id());
                    metrics.published(ack.row(), Duration.between(ack.row().createdAt(), ack.at()));
                }
                case Delivery.Refused refused -> {
                    quarantine(refused.row(), refused.reason());
                    quarantined++;
                }
                case Delivery.Pending pending -> unanswered = true;
            }
        }
        table.markPublished(acknowledged);
        if (unanswered) {
            lastError = "broker unreachable: rows wait to be sent";
        } else if (!acknowledged.isEmpty()) {
            lastError = null;
        }
        boolean full = batch.ready().size() == settings.batchSize();
        return new CycleResult(
                acknowledged.size(), quarantined, batch.heldBehindHorizon(), unanswered, full && !unanswered);
    }

    public RelayStatus status() {
        OutboxPublisher current = publisher;
        return new RelayStatus(role, current == null ? null : current.waitingSince(), lastError);
    }

    public RelayConfig settings() {
        return settings;
    }

    /** Stops the loop: sends still waiting are abandoned (their rows stay unpublished), the session is closed. */
    @Override
    public void close() {
        stopping = true;
        if (!running) {
            // Driven step by step (tests, tools), not by run(): nobody else will end the session.
            dropSession(true);
            role = RelayStatus.Role.STOPPED;
        }
    }

    private void quarantine(OutboxRow row, String reason) throws SQLException {
        table.quarantine(row.id(), reason);
        metrics.quarantined();
        // The row's ids as log fields (JSON logs carry them), as the consumers log their records.
        MDC.put("orderId", row.entry().aggregateId());
        MDC.put("eventId", row.entry().eventId().toString());
        TraceIds.of(row.entry().traceparent()).ifPresent(id -> MDC.put("traceId", id));
        try {
            LOG.errorf(
                    "outbox relay: quarantined event %s (%s %s) of order %s, outbox id %d: %s",
                    row.entry().eventId(),
                    row.entry().eventType(),
                    row.entry().eventVersion(),
                    row.entry().aggregateId(),
                    row.id(),
                    reason);
        } finally {
            MDC.remove("orderId");
            MDC.remove("eventId");
            MDC.remove("traceId");
        }
    }

    private void connect() throws SQLException {
        if (connection != null) {
            return;
        }
        Connection opened = database.open();
        try {
            opened.setAutoCommit(true);
            try (Statement statement = opened.createStatement()) {
                statement.execute("LISTEN " + CHANNEL);
            }
            OutboxTable.configureSession(opened);
        } catch (SQLException e) {
            opened.close();
            throw e;
        }
        connection = opened;
        table = new OutboxTable(opened);
        if (role == RelayStatus.Role.DISCONNECTED) {
            role = RelayStatus.Role.STANDBY;
        }
    }

    /**
     * Returns on the first notification, after {@code timeout}, or soon after {@link #close()}; either way the caller
     * looks at the table. Waits in slices of {@link #STOP_CHECK} so that a stop is noticed without a notification.
     */
    private void awaitNotification(Duration timeout) throws SQLException {
        PGConnection session = connection.unwrap(PGConnection.class);
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!stopping) {
            long remainingMillis = (deadline - System.nanoTime()) / 1_000_000;
            if (remainingMillis <= 0) {
                return;
            }
            int slice = (int) Math.min(remainingMillis, STOP_CHECK.toMillis());
            if (session.getNotifications(slice).length > 0) {
                return;
            }
        }
    }

    private void purgeIfDue() throws SQLException {
        Instant now = clock.instant();
        if (now.isBefore(nextPurge)) {
            return;
        }
        nextPurge = now.plus(settings.purgeInterval());
        int deleted;
        int total = 0;
        do {
            deleted = table.deletePublishedBefore(settings.retention(), PURGE_CHUNK);
            total += deleted;
        } while (deleted == PURGE_CHUNK && !stopping);
        if (total > 0) {
            LOG.infof("outbox relay: deleted %d rows published more than %s ago", total, settings.retention());
        }
    }

    private void refreshBacklog() throws SQLException {
        Instant now = clock.instant();
        if (now.isBefore(nextBacklogRefresh)) {
            return;
        }
        nextBacklogRefresh = now.plus(BACKLOG_REFRESH);
        metrics.backlog(table.backlog());
    }

    /** {@code healthy}: the session was not just failing, so the leader lock is handed back before it closes. */
    private void dropSession(boolean healthy) {
        if (publisher != null) {
            publisher.abort();
            publisher = null;
        }
        if (connection != null) {
            if (healthy && role == RelayStatus.Role.LEADER) {
                try {
                    leadership.release(connection);
                } catch (SQLException e) {
                    LOG.debugf("outbox relay: releasing the leader lock failed: %s", e.getMessage());
                }
            }
            try {
                connection.close(); // ends the session: releases the leader lock and the LISTEN
            } catch (SQLException e) {
                LOG.debugf("outbox relay: closing the session failed: %s", e.getMessage());
            }
            connection = null;
            table = null;
        }
        if (role == RelayStatus.Role.LEADER) {
            LOG.info("outbox relay: no longer leading");
        }
        metrics.leader(false);
        role = RelayStatus.Role.DISCONNECTED;
    }

    private void pause(Duration duration) {
        try {
            Thread.sleep(duration.toMillis()); // a back-off between retries, not synchronisation
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            stopping = true;
        }
    }
}
