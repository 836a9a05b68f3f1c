package io.orderflow.consumer;

import io.opentelemetry.api.trace.Span;
import io.orderflow.backoff.Backoff;
import io.orderflow.contracts.EventCodec;
import io.orderflow.contracts.EventEnvelope;
import io.orderflow.contracts.UndecodableEventException;
import io.orderflow.contracts.UnknownEventTypeException;
import io.orderflow.contracts.order.OrderEvent;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import javax.sql.DataSource;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.jboss.logging.Logger;

/**
 * Applies a batch of consumed records exactly once in effect: one database transaction takes the handler's locks
 * ({@link EventHandler#lockFirst}), claims the batch's event ids ({@link ProcessedEvents}) and applies the new ones in
 * record order ({@link EventHandler}); records that fail go to a
 * retry or dead-letter topic ({@link FailureRouting}). {@link #process} returns only when every record of the batch is
 * accounted for (applied and committed, skipped, or sent and acknowledged elsewhere): the caller commits the batch's
 * offsets after that, never before.
 *
 * <p><b>Crash behaviour.</b> A crash before the transaction commits redelivers the batch and nothing of it was applied;
 * after the commit and before the offsets are committed, the redelivered records find their ids claimed and are
 * skipped as duplicates (a failed record's id was rolled back with its effect, so it is tried again). A record sent to a
 * retry topic and then redelivered may be sent twice; its copies carry the same event id, so at most one applies.
 *
 * <p><b>Failures.</b> A record that cannot be decoded (not an envelope, or a field no consumer can store: a
 * {@code MalformedEventException}), or whose major version this reader does not read, goes to the dead-letter topic at
 * once; an event type this service does not handle, or does not know, is skipped (a producer may add a type before
 * every consumer reads it). The new events go to the handler at once ({@link EventHandler#applyAll}); if that fails,
 * the transaction is rolled back and the batch runs one event at a time, and each event whose handler fails is set
 * aside and the batch runs again without it (failures are rare, so the common path has no savepoints). Where a
 * set-aside record goes is its failure's {@link FailureKind}: a permanent one (a rejection, an SQL data or integrity
 * error) to the dead-letter topic at once, a transient one through the retry topics. A lost database (connection
 * errors, SQLSTATE 08, 57P0x) or a transaction conflict (40001, 40P01), even wrapped by the handler, fails no record:
 * the batch is tried again with back-off until it commits or the processor is closed.
 *
 * <p><b>Tracing.</b> Each record's processing is a span, and each retry or dead-letter hop a span beneath it
 * ({@link RecordSpans}).
 *
 * <p>Thread-safety: one batch at a time per instance (the consumer's thread); {@link #rehearse} beside it, and
 * {@link #close()}, from any thread.
 */
public final class EventBatchProcessor implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(EventBatchProcessor.class);
    private static final Duration BACKOFF_MIN = Duration.ofMillis(100);
    private static final Duration BACKOFF_MAX = Duration.ofSeconds(5);

    private final DataSource database;
    private final EventCodec codec;
    private final EventHandler handler;
    private final FailureRouting routing;
    private final Producer<String, byte[]> producer;
    private final ConsumerMetrics metrics;
    private final RecordSpans spans;
    private final Clock clock;
    private volatile boolean closed;

    public EventBatchProcessor(
            DataSource database,
            EventCodec codec,
            EventHandler handler,
            FailureRouting routing,
            Producer<String, byte[]> producer,
            ConsumerMetrics metrics,
            RecordSpans spans,
            Clock clock) {
        this.database = database;
        this.codec = codec;
        this.handler = handler;
        this.routing = routing;
        this.producer = producer;
        this.metrics = metrics;
        this.spans = spans;
        this.clock = clock;
    }

    /**
     * Applies {@code records} (a poll's worth, in partition order) and routes their failures; see the class comment.
     *
     * @throws InterruptedException if interrupted or closed while the database is away: nothing is committed then, and
     *     the records are delivered again
     */
    public BatchOutcome process(List<ConsumerRecord<String, byte[]>> records) throws InterruptedException {
        long startedNanos = System.nanoTime();
        Map<ConsumerRecord<String, byte[]>, Span> processing = new LinkedHashMap<>();
        for (ConsumerRecord<String, byte[]> record : records) {
            processing.put(record, spans.startProcessing(record));
        }
        try {
            return processTraced(records, processing, startedNanos);
        } finally {
            processing.values().forEach(Span::end);
        }
    }

    private BatchOutcome processTraced(
            List<ConsumerRecord<String, byte[]>> records,
            Map<ConsumerRecord<String, byte[]>, Span> processing,
            long startedNanos)
            throws InterruptedException {
        Map<ConsumerRecord<String, byte[]>, Failure> failures = new LinkedHashMap<>();
        List<ConsumedEvent> events = new ArrayList<>();
        int ignored = 0;
        for (ConsumerRecord<String, byte[]> record : records) {
            try {
                EventEnvelope envelope = codec.decode(record.value());
                if (!handler.handles(envelope.eventType())) {
                    ignored++;
                    continue;
                }
                OrderEvent event = codec.decodePayload(envelope);
                events.add(new ConsumedEvent(record, envelope, event));
            } catch (UnknownEventTypeException e) {
                ignored++;
            } catch (UndecodableEventException e) {
                failures.put(record, new Failure(e, false));
            }
        }
        Applied applied = applyWithRetries(events, failures);
        int retried = 0;
        int deadLettered = 0;
        List<Future<RecordMetadata>> sends = new ArrayList<>();
        for (Map.Entry<ConsumerRecord<String, byte[]>, Failure> failed : failures.entrySet()) {
            ProducerRecord<String, byte[]> routed = routing.route(
                    failed.getKey(),
                    failed.getValue().cause(),
                    failed.getValue().retryable());
            Span failedSpan = processing.get(failed.getKey());
            RecordSpans.failed(failedSpan, failed.getValue().cause());
            Span hop = spans.startHop(failedSpan, routed);
            try (RecordLogContext context = RecordLogContext.of(failed.getKey())) {
                if (routed.topic().equals(routing.topics().deadLetterTopic())) {
                    deadLettered++;
                    LOG.warnf(
                            "dead-lettering %s-%d@%d: %s",
                            failed.getKey().topic(),
                            failed.getKey().partition(),
                            failed.getKey().offset(),
                            failed.getValue().cause().getMessage());
                } else {
                    retried++;
                    LOG.infof(
                            "retrying %s-%d@%d through %s: %s",
                            failed.getKey().topic(),
                            failed.getKey().partition(),
                            failed.getKey().offset(),
                            routed.topic(),
                            failed.getValue().cause().getMessage());
                }
            }
            sends.add(producer.send(routed, (metadata, exception) -> {
                if (exception != null) {
                    RecordSpans.failed(hop, exception);
                }
                hop.end();
            }));
        }
        awaitAcknowledged(sends);
        BatchOutcome outcome = new BatchOutcome(
                applied.count(), applied.duplicates(), ignored, retried, deadLettered, applied.transactions());
        metrics.batch(outcome, Duration.ofNanos(System.nanoTime() - startedNanos));
        return outcome;
    }

    /**
     * Runs {@code records} through what {@link #process} does to them (decoding, the claim of their ids, the handler)
     * in one transaction, then rolls it back: nothing is applied, claimed, routed or counted in the meters. A service's
     * warm-up ({@code ConsumerWarmUp}) rehearses made-up events so that its first real batches find the path compiled.
     * Records that cannot be decoded, or that the handler does not handle, are left out.
     *
     * @return the events the handler applied before the rollback
     * @throws SQLException or the handler's exception, if the rehearsal failed (it was rolled back all the same)
     */
    public int rehearse(List<ConsumerRecord<String, byte[]>> records) throws Exception {
        List<ConsumedEvent> events = new ArrayList<>();
        for (ConsumerRecord<String, byte[]> record : records) {
            try {
                EventEnvelope envelope = codec.decode(record.value());
                if (handler.handles(envelope.eventType())) {
                    events.add(new ConsumedEvent(record, envelope, codec.decodePayload(envelope)));
                }
            } catch (UndecodableEventException e) { // an unknown type too
                // left out, as the method comment says
            }
        }
        try (Connection transaction = database.getConnection()) {
            transaction.setAutoCommit(false);
            try {
                handler.lockFirst(transaction, events);
                Set<UUID> fresh = ProcessedEvents.claim(transaction, events);
                List<ConsumedEvent> toApply = events.stream()
                        .filter(e -> fresh.remove(e.envelope().eventId()))
                        .toList();
                handler.applyAll(transaction, toApply);
                return toApply.size();
            } finally {
                transaction.rollback();
            }
        }
    }

    /**
     * {@link #process} once every record of {@code records} that came from a retry topic is due: its timestamp plus
     * the topic's delay. Records of one retry topic partition are in timestamp order, so waiting for the last one
     * delays the others by at most the spread of the batch. Records of other topics are not delayed.
     */
    public BatchOutcome processWhenDue(List<ConsumerRecord<String, byte[]>> records) throws InterruptedException {
        long now = clock.millis();
        long due = 0;
        for (ConsumerRecord<String, byte[]> record : records) {
            Optional<Duration> delay = routing.topics().delayOf(record.topic());
            if (delay.isPresent()) {
                // A timestamp in the future (a producer's clock) waits no longer than the delay from now.
                due = Math.max(
                        due, Math.min(record.timestamp(), now) + delay.get().toMillis());
            }
        }
        long wait = due - clock.millis();
        while (wait > 0 && !closed) {
            Thread.sleep(Math.min(wait, 200)); // a retry's delay, in slices so that close() is noticed
            wait = due - clock.millis();
        }
        return process(records);
    }

    private record Failure(Throwable cause, boolean retryable) {}

    private record Applied(int count, int duplicates, int transactions) {}

    /**
     * Runs the transaction until it commits: first with the whole batch handed to {@link EventHandler#applyAll}; if that
     * fails, one event at a time, setting aside each record whose handler fails.
     */
    private Applied applyWithRetries(List<ConsumedEvent> events, Map<ConsumerRecord<String, byte[]>, Failure> failures)
            throws InterruptedException {
        Backoff backoff = new Backoff(BACKOFF_MIN, BACKOFF_MAX);
        int transactions = 0;
        boolean together = true;
        while (true) {
            List<ConsumedEvent> remaining = events.stream()
                    .filter(e -> !failures.containsKey(e.record()))
                    .toList();
            if (remaining.isEmpty()) {
                return new Applied(0, 0, transactions);
            }
            transactions++;
            try {
                Applied applied = applyOnce(remaining, failures, together);
                if (applied != null) {
                    return new Applied(applied.count(), applied.duplicates(), transactions);
                }
                // Rolled back: the batch failed as a whole (run it one event at a time now), or one event failed (its
                // record is in failures; run again without it).
                together = false;
            } catch (SQLException e) {
                if (closed) {
                    throw new InterruptedException("closed while the database was unavailable: " + e.getMessage());
                }
                Duration delay = backoff.failed();
                LOG.warnf(
                        "batch of %d events not committed (%s, SQLSTATE %s); trying again in %d ms",
                        remaining.size(), e.getMessage(), FailureKind.sqlState(e), delay.toMillis());
                Thread.sleep(delay.toMillis()); // back-off while the database is away, not synchronisation
            }
        }
    }

    /**
     * One transaction over {@code events}: what it applied, or null if it was rolled back because a handler failed.
     * With {@code together}, the new events go to {@link EventHandler#applyAll} at once and a failure names no record;
     * otherwise each goes to {@link EventHandler#apply} and the failing one is added to {@code failures}. A database
     * failure outside the handlers, or one that is the database's and not the events', is thrown.
     */
    private Applied applyOnce(
            List<ConsumedEvent> events, Map<ConsumerRecord<String, byte[]>, Failure> failures, boolean together)
            throws SQLException {
        try (Connection transaction = database.getConnection()) {
            transaction.setAutoCommit(false);
            try {
                handler.lockFirst(transaction, events);
                Set<UUID> fresh = ProcessedEvents.claim(transaction, events);
                List<ConsumedEvent> toApply = new ArrayList<>();
                for (ConsumedEvent event : events) {
                    if (fresh.remove(event.envelope().eventId())) {
                        toApply.add(event);
                    }
                }
                if (together) {
                    try {
                        handler.applyAll(transaction, toApply);
                    } catch (Exception e) {
                        FailureKind kind = FailureKind.of(e);
                        if (kind == FailureKind.DATABASE) {
                            throw theDatabases(e);
                        }
                        return rolledBack(transaction, e, toApply.size());
                    }
                } else {
                    for (ConsumedEvent event : toApply) {
                        try {
                            handler.apply(transaction, event);
                        } catch (Exception e) {
                            FailureKind kind = FailureKind.of(e);
                            if (kind == FailureKind.DATABASE) {
                                throw theDatabases(e);
                            }
                            return rolledBack(
                                    transaction, failures, event, new Failure(e, kind == FailureKind.TRANSIENT));
                        }
                    }
                }
                transaction.commit();
                Instant now = clock.instant();
                toApply.forEach(
                        e -> metrics.latency(Duration.between(e.envelope().occurredAt(), now)));
                return new Applied(toApply.size(), events.size() - toApply.size(), 1);
            } catch (SQLException | RuntimeException e) {
                rollbackQuietly(transaction);
                throw e;
            }
        }
    }

    private static Applied rolledBack(Connection transaction, Exception cause, int events) throws SQLException {
        transaction.rollback();
        LOG.debugf(cause, "a batch of %d events failed together; applying them one at a time", events);
        return null;
    }

    private static Applied rolledBack(
            Connection transaction,
            Map<ConsumerRecord<String, byte[]>, Failure> failures,
            ConsumedEvent event,
            Failure failure)
            throws SQLException {
        transaction.rollback();
        failures.put(event.record(), failure);
        return null;
    }

    /**
     * A handler's failure that is the database's ({@link FailureKind#DATABASE}) as the SQLException that makes the
     * batch wait and try again; a handler that wrapped it keeps its exception as the cause.
     */
    private static SQLException theDatabases(Exception e) {
        return e instanceof SQLException sql
                ? sql
                : new SQLException("the database failed under the handler: " + e, FailureKind.sqlState(e), e);
    }

    private void awaitAcknowledged(List<Future<RecordMetadata>> sends) throws InterruptedException {
        for (Future<RecordMetadata> send : sends) {
            try {
                send.get();
            } catch (ExecutionException e) {
                // Not acknowledged: fail the batch so that its offsets are not committed and it is delivered again.
                throw new IllegalStateException("a retry or dead-letter record was not acknowledged", e.getCause());
            }
        }
    }

    private static void rollbackQuietly(Connection transaction) {
        try {
            transaction.rollback();
        } catch (SQLException ignored) {
            // The connection is gone; so is the transaction.
        }
    }

    /** Stops retrying a batch while the database is away. */
    @Override
    public void close() {
        closed = true;
    }
}
