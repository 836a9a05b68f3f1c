package io.orderflow.inventory;

import io.orderflow.contracts.EventHeaders;
import io.orderflow.kafka.KafkaClientSettings;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.jboss.logging.Logger;

/**
 * inventory-service's outcomes published by the service itself, in Kafka transactions, instead of by an outbox relay
 * ({@code orderflow.inventory-service.outcomes=kafka-transactions}; docs/consumers.md says what each way guarantees).
 *
 * <p><b>Staging.</b> The ledger writes each outcome to the {@code outbox} table in the batch's database transaction,
 * as in outbox mode; here the table is only a staging area and no relay reads it. After the batch's database commit,
 * {@link #publish} runs one Kafka transaction: every staged row it can lock ({@code FOR UPDATE SKIP LOCKED}, so two
 * instances on one database never send the same row in two transactions at once), keyed by order id with the envelope
 * as value and the relay's headers, then the batch's offsets ({@code sendOffsetsToTransaction} with the consumer's
 * group metadata), then the commit; after the Kafka commit it deletes the rows it sent and commits the database.
 *
 * <p><b>Crashes.</b> PostgreSQL is outside the Kafka transaction, so the two commits are ordered and each window has
 * one outcome:
 *
 * <ul>
 *   <li>Dead before or during the Kafka transaction (database committed, Kafka not): the open transaction is aborted
 *       when the restarted instance calls {@code initTransactions} with the same {@code transactional.id} (or when
 *       {@code transaction.timeout.ms} passes); a read_committed reader never sees its records. The offsets were not
 *       committed, so the batch is delivered again, its events are found in {@code processed_events} and decide
 *       nothing new, and the rows staged by the first attempt go out in the next transaction: nothing lost, nothing
 *       twice.
 *   <li>Dead after the Kafka commit, before the rows' delete commits: the outcomes and offsets are in Kafka, the rows
 *       still staged, so the next transaction publishes them again. This is the one window that duplicates: the copy
 *       carries the same event id, and order-service's consumer (idempotent by event id) applies it once.
 * </ul>
 *
 * <p>A zombie (an instance that lost its {@code transactional.id} to a restarted one) fails its next Kafka call with
 * {@link ProducerFencedException}; {@link #publish} then throws and the channel stops. Other Kafka failures abort the
 * transaction (the rows stay staged) and the attempt is repeated with backoff until it succeeds: the batch waits, as
 * it waits for its database. Thread-safe: transactions are serialised ({@code publish} is synchronized), since the
 * service's two channels share the producer.
 */
public final class OutcomeTransactions implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(OutcomeTransactions.class);

    private static final String LOCK_STAGED = "SELECT id, event_id, aggregate_id, event_type, event_version, payload,"
            + " traceparent FROM outbox WHERE published_at IS NULL AND quarantined_at IS NULL"
            + " ORDER BY tx_id, id LIMIT ? FOR UPDATE SKIP LOCKED";
    private static final String DELETE_SENT = "DELETE FROM outbox WHERE id = ANY (?)";
    private static final int MAX_ROWS_PER_TRANSACTION = 10_000;
    private static final Duration MAX_BACKOFF = Duration.ofSeconds(5);

    private final DataSource database;
    private final KafkaClientSettings cluster;
    private final String topic;
    private final String transactionalId;
    private Producer<String, byte[]> producer;

    /**
     * Opens the transactional producer {@code transactionalId} and calls {@code initTransactions}: an earlier
     * producer with the same id (this instance before a crash) is fenced, and its open transaction aborted.
     */
    public OutcomeTransactions(DataSource database, KafkaClientSettings cluster, String topic, String transactionalId) {
        this.database = database;
        this.cluster = cluster;
        this.topic = topic;
        this.transactionalId = transactionalId;
        this.producer = newProducer();
    }

    /**
     * Publishes every staged outcome and commits {@code offsets} for {@code group} in one Kafka transaction, then deletes
     * the rows it published; with no offsets (a retry batch) only the outcomes. Repeats after a Kafka failure until it
     * succeeds. Returns the number of outcomes published.
     *
     * @throws IllegalStateException if another producer with this {@code transactional.id} fenced this one
     */
    public synchronized int publish(Map<TopicPartition, OffsetAndMetadata> offsets, ConsumerGroupMetadata group)
            throws SQLException, InterruptedException {
        Duration backoff = Duration.ofMillis(100);
        while (true) {
            try (Pending pending = begin(offsets, group)) {
                return pending.commit();
            } catch (KafkaException e) {
                if (isFenced(e)) {
                    throw fenced(e);
                }
                LOG.warnf(
                        "Kafka transaction of %s failed, outcomes stay staged; trying again in %d ms: %s",
                        transactionalId, backoff.toMillis(), e.toString());
                renew();
                Thread.sleep(backoff.toMillis());
                backoff = backoff.multipliedBy(2).compareTo(MAX_BACKOFF) > 0 ? MAX_BACKOFF : backoff.multipliedBy(2);
            }
        }
    }

    /**
     * The first half of {@link #publish}: locks the staged rows, begins the Kafka transaction, sends them and the
     * offsets; nothing is committed until {@link Pending#commit}. Closing a pending publication without committing
     * releases the rows and leaves the Kafka transaction open, as a crash would (the next {@code initTransactions} or
     * the transaction timeout aborts it).
     */
    public synchronized Pending begin(Map<TopicPartition, OffsetAndMetadata> offsets, ConsumerGroupMetadata group)
            throws SQLException {
        Connection connection = database.getConnection();
        try {
            connection.setAutoCommit(false);
            List<Long> ids = new ArrayList<>();
            List<ProducerRecord<String, byte[]>> records = new ArrayList<>();
            try (PreparedStatement select = connection.prepareStatement(LOCK_STAGED)) {
                select.setInt(1, MAX_ROWS_PER_TRANSACTION);
                try (ResultSet rows = select.executeQuery()) {
                    while (rows.next()) {
                        ids.add(rows.getLong(1));
                        records.add(record(
                                rows.getString(2),
                                rows.getString(3),
                                rows.getString(4),
                                rows.getString(5),
                                rows.getString(6),
                                rows.getString(7)));
                    }
                }
            }
            if (records.isEmpty() && offsets.isEmpty()) {
                return new Pending(connection, ids, false);
            }
            producer.beginTransaction();
            records.forEach(producer::send); // a failed send fails commitTransaction
            if (!offsets.isEmpty()) {
                producer.sendOffsetsToTransaction(offsets, group);
            }
            return new Pending(connection, ids, true);
        } catch (SQLException | RuntimeException e) {
            connection.close();
            throw e;
        }
    }

    /** A Kafka transaction sent but not committed, and the locked rows it holds. */
    public final class Pending implements AutoCloseable {
        private final Connection connection;
        private final List<Long> ids;
        private final boolean inTransaction;

        private Pending(Connection connection, List<Long> ids, boolean inTransaction) {
            this.connection = connection;
            this.ids = ids;
            this.inTransaction = inTransaction;
        }

        /** Commits the Kafka transaction, then deletes the rows it published; returns how many. */
        public int commit() throws SQLException {
            if (inTransaction) {
                producer.commitTransaction(); // a failure leaves the rows staged; publish aborts and tries again
            }
            if (!ids.isEmpty()) {
                try (PreparedStatement delete = connection.prepareStatement(DELETE_SENT)) {
                    delete.setArray(1, connection.createArrayOf("bigint", ids.toArray()));
                    delete.executeUpdate();
                }
            }
            connection.commit();
            return ids.size();
        }

        /** Releases the rows; a Kafka transaction not committed stays open. */
        @Override
        public void close() throws SQLException {
            connection.close();
        }
    }

    @Override
    public synchronized void close() {
        producer.close(Duration.ofSeconds(10));
    }

    public String transactionalId() {
        return transactionalId;
    }

    private ProducerRecord<String, byte[]> record(
            String eventId, String orderId, String eventType, String eventVersion, String payload, String traceparent) {
        RecordHeaders headers = new RecordHeaders();
        headers.add(EventHeaders.EVENT_ID, utf8(eventId));
        headers.add(EventHeaders.EVENT_TYPE, utf8(eventType));
        headers.add(EventHeaders.EVENT_VERSION, utf8(eventVersion));
        if (traceparent != null) {
            headers.add(EventHeaders.TRACEPARENT, utf8(traceparent));
        }
        return new ProducerRecord<>(topic, null, orderId, utf8(payload), headers);
    }

    private Producer<String, byte[]> newProducer() {
        KafkaProducer<String, byte[]> created = new KafkaProducer<>(
                cluster.producer(Map.of(
                        ProducerConfig.TRANSACTIONAL_ID_CONFIG,
                        transactionalId,
                        ProducerConfig.ACKS_CONFIG,
                        "all",
                        ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG,
                        true,
                        ProducerConfig.CLIENT_ID_CONFIG,
                        transactionalId)),
                new StringSerializer(),
                new ByteArraySerializer());
        try {
            created.initTransactions();
        } catch (RuntimeException e) {
            created.close(Duration.ZERO);
            throw e;
        }
        return created;
    }

    /** After a failed transaction: abort it, or, where the producer cannot go on, start a new one with the same id. */
    private void renew() {
        try {
            producer.abortTransaction();
        } catch (RuntimeException e) {
            producer.close(Duration.ZERO);
            producer = newProducer();
        }
    }

    /** Whether {@code e} or a cause says a newer producer took this {@code transactional.id}. */
    private static boolean isFenced(Throwable e) {
        for (Throwable link = e; link != null; link = link.getCause()) {
            if (link instanceof ProducerFencedException || link instanceof InvalidProducerEpochException) {
                return true;
            }
        }
        return false;
    }

    private IllegalStateException fenced(Exception e) {
        return new IllegalStateException(
                "The Kafka producer with transactional.id " + transactionalId + " was fenced by a newer one with the"
                        + " same id (another instance, or this one restarted); its outcomes stay staged for that one",
                e);
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
