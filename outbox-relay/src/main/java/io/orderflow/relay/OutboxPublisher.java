package io.orderflow.relay;

import io.opentelemetry.api.trace.Span;
import io.orderflow.kafka.KafkaClientSettings;
import io.orderflow.outbox.OutboxRow;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Sends a batch of rows through one idempotent {@code acks=all} producer and waits until each is acknowledged or
 * refused for good.
 *
 * <p><b>Why the producer never gives up.</b> Per-key order on the broker depends on the producer never letting a later
 * record of a partition land while an earlier one failed. The idempotent producer guarantees that while it keeps
 * retrying, so retries are unbounded ({@code delivery.timeout.ms} at its maximum): when the broker is down the
 * relay waits here, reports itself not ready after {@link RelayConfig#brokerTimeout()}, and carries on by itself
 * when the broker returns. Only errors that retrying cannot fix (a record the broker or the client refuses) end a
 * send early; such a row is quarantined by the caller together with its order's later rows, which this class
 * therefore does not send after a refusal in the same batch.
 *
 * <p>A send that fails synchronously with a retriable error (no metadata within {@code max.block.ms}: the broker is
 * unreachable) stops the batch there: the rows after it are {@link Delivery.Pending}, so nothing later in the batch
 * can overtake it. Rows already handed to the producer may still be delivered; the next attempt sends them again,
 * which only duplicates them, in order, with their event ids.
 *
 * <p>Each sent row is traced by a publish span ({@link PublishSpans}) whose context the record carries.
 *
 * <p>Not thread-safe: one relay thread sends. {@link #abort()} may be called from another thread to stop waiting.
 */
public final class OutboxPublisher implements AutoCloseable {

    private static final Duration WAIT_STEP = Duration.ofMillis(200);

    private final Producer<String, byte[]> producer;
    private final OutboxRecords records;
    private final PublishSpans spans;
    private final Clock clock;
    private volatile Instant waitingSince;

    public OutboxPublisher(Producer<String, byte[]> producer, OutboxRecords records, PublishSpans spans, Clock clock) {
        this.producer = producer;
        this.records = records;
        this.spans = spans;
        this.clock = clock;
    }

    /**
     * The producer settings the relay's guarantees rest on, over the cluster's settings (its address and security, and
     * any producer setting a user gave, such as {@code kafka.linger.ms}, where the guarantees allow it).
     */
    public static Map<String, Object> producerConfig(KafkaClientSettings cluster) {
        Map<String, Object> config = cluster.producer(Map.of());
        config.putIfAbsent(ProducerConfig.CLIENT_ID_CONFIG, "outbox-relay");
        config.putIfAbsent(ProducerConfig.LINGER_MS_CONFIG, 1);
        config.putIfAbsent(ProducerConfig.BATCH_SIZE_CONFIG, 65536);
        config.putIfAbsent(ProducerConfig.MAX_BLOCK_MS_CONFIG, 2000);
        config.put(ProducerConfig.ACKS_CONFIG, "all");
        config.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        config.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 5);
        config.put(ProducerConfig.RETRIES_CONFIG, Integer.MAX_VALUE);
        config.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, Integer.MAX_VALUE);
        return config;
    }

    public static Producer<String, byte[]> newProducer(Map<String, Object> config) {
        return new KafkaProducer<>(config, new StringSerializer(), new ByteArraySerializer());
    }

    /**
     * Sends {@code rows} in order and waits for every answer, or until {@code stop} says to stop waiting. Returns one
     * {@link Delivery} per row, in the same order.
     */
    public List<Delivery> publish(List<OutboxRow> rows, BooleanSupplier stop) {
        List<Future<RecordMetadata>> sent = new ArrayList<>(rows.size());
        Set<String> refusedOrders = new HashSet<>();
        Delivery[] outcome = new Delivery[rows.size()];
        Span[] traced = new Span[rows.size()];
        int index = 0;
        for (; index < rows.size(); index++) {
            OutboxRow row = rows.get(index);
            if (refusedOrders.contains(row.entry().aggregateId())) {
                outcome[index] = new Delivery.Refused(
                        row,
                        "held: an earlier event of order " + row.entry().aggregateId()
                                + " in the same batch was refused");
                sent.add(null);
                continue;
            }
            traced[index] = spans.start(row);
            Future<RecordMetadata> future =
                    producer.send(records.toRecord(row, PublishSpans.traceparent(traced[index], row)));
            if (future.isDone()) {
                Throwable failure = failure(future);
                if (failure instanceof RetriableException) {
                    break; // no metadata: the broker is unreachable; nothing after this row may go out now
                }
                if (failure != null) {
                    outcome[index] = new Delivery.Refused(row, describe(failure));
                    refusedOrders.add(row.entry().aggregateId());
                }
            }
            sent.add(future);
        }
        boolean pending = index < rows.size();
        for (int i = index; i < rows.size(); i++) {
            outcome[i] = new Delivery.Pending(rows.get(i));
        }
        for (int i = 0; i < sent.size(); i++) {
            if (outcome[i] == null) {
                outcome[i] = await(rows.get(i), sent.get(i), stop);
                pending |= outcome[i] instanceof Delivery.Pending;
            }
        }
        for (int i = 0; i < rows.size(); i++) {
            if (traced[i] != null) {
                PublishSpans.end(traced[i], outcome[i]);
            }
        }
        if (!pending) {
            waitingSince = null;
        } else if (waitingSince == null) {
            waitingSince = clock.instant();
        }
        return List.of(outcome);
    }

    /**
     * Since when sends have been waiting for the broker (unanswered, or not sendable for lack of metadata), or null
     * once a batch went through completely.
     */
    public Instant waitingSince() {
        return waitingSince;
    }

    private Delivery await(OutboxRow row, Future<RecordMetadata> future, BooleanSupplier stop) {
        while (true) {
            try {
                future.get(WAIT_STEP.toMillis(), TimeUnit.MILLISECONDS);
                return new Delivery.Acknowledged(row, clock.instant());
            } catch (TimeoutException e) {
                if (waitingSince == null) {
                    waitingSince = clock.instant();
                }
                if (stop.getAsBoolean()) {
                    return new Delivery.Pending(row);
                }
            } catch (ExecutionException e) {
                return e.getCause() instanceof RetriableException
                        ? new Delivery.Pending(row)
                        : new Delivery.Refused(row, describe(e.getCause()));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return new Delivery.Pending(row);
            }
        }
    }

    private static Throwable failure(Future<RecordMetadata> future) {
        try {
            future.get();
            return null;
        } catch (ExecutionException e) {
            return e.getCause();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    private static String describe(Throwable failure) {
        return failure.getClass().getSimpleName() + ": " + failure.getMessage();
    }

    /** Drops whatever is still buffered or in flight: used when leadership is lost or the relay stops. */
    public void abort() {
        producer.close(Duration.ZERO);
    }

    @Override
    public void close() {
        producer.close(Duration.ofSeconds(5));
    }
}
