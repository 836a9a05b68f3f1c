package io.orderflow.broker.txn;

import io.orderflow.broker.group.GroupCoordinator;
import io.orderflow.broker.group.GroupStore;
import io.orderflow.broker.log.InvalidProducerEpochException;
import io.orderflow.broker.log.LogDirectory;
import io.orderflow.broker.log.PartitionLog;
import io.orderflow.broker.log.ProducerIds;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Supplier;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The transaction coordinator (KIP-98, with KIP-360's epoch bumps and KIP-447's group-aware offsets), for every
 * transactional id, on this one broker: it hands producer ids and epochs to transactional producers, records which
 * partitions each transaction wrote to, and ends transactions by writing COMMIT or ABORT markers to each of them.
 *
 * <p><b>Two-phase commit.</b> EndTxn first makes PREPARE_COMMIT (or PREPARE_ABORT) durable in {@link TransactionLog}:
 * from then on the outcome is decided. It then writes the marker to every data partition of the transaction and, when
 * the transaction committed group offsets, to {@code __consumer_offsets} (through {@link GroupCoordinator}), waits
 * until all are durable, and records COMPLETE_COMMIT (or COMPLETE_ABORT). The producer is answered after the markers
 * are durable, so a {@code read_committed} consumer can read the transaction once the producer's commit returned.
 *
 * <p><b>After a restart</b> {@link #start} replays the log. A transaction found prepared is completed (its markers
 * written again; a marker that was already written is written twice, which consumers and the log ignore). A
 * transaction found open stays open after a clean stop, as Kafka keeps it: its producer may go on and commit it, and
 * its timeout still counts from its start. After an unclean stop (kill -9, power loss) it is aborted with its
 * producer's epoch bumped, so the producer that had it open is fenced rather than left to commit a transaction whose
 * writes a topic with a relaxed flush policy may have lost.
 *
 * <p><b>Fencing.</b> Each InitProducerId for a transactional id bumps its epoch (aborting an open transaction
 * first); requests and markers of an older epoch are refused (PRODUCER_FENCED, or INVALID_PRODUCER_EPOCH for versions
 * that predate it), and so are writes, because a transactional Produce must belong to the open transaction of its
 * producer id and epoch with that partition added ({@link #appendVerified}, KIP-890's server-side defence): a zombie
 * cannot write into a transaction, and no write can land after its transaction's marker. A transaction open longer
 * than its timeout is aborted and its producer fenced ({@link #tick}).
 *
 * <p><b>Thread-safety.</b> Each transactional id has a read-write lock: state changes take it for writing, through
 * the durable writes they wait for; a verified append and a transactional offset commit take it for reading, so
 * neither can interleave with the end of its transaction. Different ids proceed in parallel.
 */
public final class TransactionCoordinator {
    private static final Logger log = LoggerFactory.getLogger(TransactionCoordinator.class);

    /** Kafka's {@code transaction.max.timeout.ms} default: the longest timeout a producer may ask for. */
    public static final int DEFAULT_MAX_TIMEOUT_MS = 15 * 60 * 1000;
    /** The partition the group offsets of a transaction count as. */
    static final TopicPartition OFFSETS_PARTITION = new TopicPartition(GroupStore.TOPIC, 0);
    /** The coordinator epoch written into markers: there is one coordinator and it never moves. */
    private static final int COORDINATOR_EPOCH = 0;

    private static final long MARKER_WAIT_MS = 60_000;

    private final TransactionLog txnLog;
    private final LogDirectory logs;
    private final GroupCoordinator groups;
    private final ProducerIds ids;
    private final Clock clock;
    private final int maxTimeoutMs;
    private final Map<String, Entry> byId = new ConcurrentHashMap<>();
    private final Map<Long, Entry> byProducerId = new ConcurrentHashMap<>();

    /** One transactional id: its lock and its latest durable metadata. */
    private static final class Entry {
        final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
        volatile TransactionMetadata metadata;
        /**
         * The producer id and epoch the last InitProducerId with an expected epoch (KIP-360) bumped from, so that its
         * retry (the answer lost) gets the same answer instead of being fenced; not kept across restarts.
         */
        long bumpedFromProducerId = -1;

        short bumpedFromEpoch = -1;

        Entry(TransactionMetadata metadata) {
            this.metadata = metadata;
        }
    }

    public TransactionCoordinator(
            TransactionLog txnLog,
            LogDirectory logs,
            GroupCoordinator groups,
            ProducerIds ids,
            Clock clock,
            int maxTimeoutMs) {
        this.txnLog = txnLog;
        this.logs = logs;
        this.groups = groups;
        this.ids = ids;
        this.clock = clock;
        this.maxTimeoutMs = maxTimeoutMs;
    }

    /**
     * Replays the log and settles what a stop left: prepared transactions completed; open ones aborted unless
     * {@code afterCleanStop} (every log of the broker was closed cleanly).
     */
    public void start(boolean afterCleanStop) {
        Map<String, TransactionMetadata> replayed = txnLog.replay();
        replayed.values().forEach(this::register);
        int completed = 0;
        int aborted = 0;
        for (Entry entry : byId.values()) {
            TransactionMetadata m = entry.metadata;
            try {
                if (m.state().isPrepared()) {
                    withWriteLock(entry, () -> complete(entry));
                    completed++;
                } else if (m.state() == TransactionState.ONGOING && !afterCleanStop) {
                    withWriteLock(entry, () -> abortFencing(entry));
                    aborted++;
                }
            } catch (RuntimeException e) {
                log.atWarn()
                        .setCause(e)
                        .addKeyValue("transactionalId", m.transactionalId())
                        .log("Could not settle a transaction at start-up; the timer tries again");
            }
        }
        log.atInfo()
                .addKeyValue("transactionalIds", byId.size())
                .addKeyValue("preparedCompleted", completed)
                .addKeyValue("openAborted", aborted)
                .addKeyValue("afterCleanStop", afterCleanStop)
                .log("Loaded the transactions");
    }

    // ---------------------------------------------------------------- InitProducerId

    /** What InitProducerId answers: an error, or the producer id and epoch to use. */
    public record ProducerIdAndEpoch(Errors error, long producerId, short producerEpoch) {}

    /**
     * InitProducerId with a transactional id: settles any transaction of the id that is still open (aborting it) and
     * answers the id's producer id with its next epoch; a new id gets a fresh producer id at epoch 0. With {@code
     * expectedProducerId} set (KIP-360), the producer must hold the id's current producer id and epoch.
     */
    public ProducerIdAndEpoch initProducerId(
            String transactionalId, int timeoutMs, long expectedProducerId, short expectedEpoch, short version) {
        if (timeoutMs <= 0 || timeoutMs > maxTimeoutMs) {
            return new ProducerIdAndEpoch(Errors.INVALID_TRANSACTION_TIMEOUT, -1, (short) -1);
        }
        long now = clock.millis();
        Entry entry = byId.computeIfAbsent(transactionalId, id -> new Entry(null));
        return withWriteLock(entry, () -> {
            TransactionMetadata m = entry.metadata;
            if (m == null) {
                if (expectedProducerId >= 0) {
                    return new ProducerIdAndEpoch(Errors.INVALID_PRODUCER_ID_MAPPING, -1, (short) -1);
                }
                TransactionMetadata fresh = new TransactionMetadata(
                        transactionalId, ids.nextId(), (short) 0, timeoutMs, TransactionState.EMPTY, Set.of(), -1, now);
                persist(entry, fresh);
                return new ProducerIdAndEpoch(Errors.NONE, fresh.producerId(), fresh.producerEpoch());
            }
            if (expectedProducerId >= 0
                    && expectedProducerId == entry.bumpedFromProducerId
                    && expectedEpoch == entry.bumpedFromEpoch
                    && m.state() == TransactionState.EMPTY) {
                return new ProducerIdAndEpoch(Errors.NONE, m.producerId(), m.producerEpoch()); // a retry, as Kafka
            }
            if (expectedProducerId >= 0
                    && (expectedProducerId != m.producerId() || expectedEpoch != m.producerEpoch())) {
                return new ProducerIdAndEpoch(fenced(version, 4), -1, (short) -1);
            }
            try {
                if (m.state().isPrepared()) {
                    complete(entry);
                } else if (m.state() == TransactionState.ONGOING) {
                    abortFencing(entry);
                }
            } catch (RuntimeException e) {
                // Decided, its markers not all written: the producer retries while the timer finishes them.
                log.atWarn()
                        .setCause(e)
                        .addKeyValue("transactionalId", transactionalId)
                        .log("Could not end the open transaction for InitProducerId");
                return new ProducerIdAndEpoch(Errors.CONCURRENT_TRANSACTIONS, -1, (short) -1);
            }
            TransactionMetadata current = entry.metadata;
            boolean exhausted = current.producerEpoch() >= Short.MAX_VALUE - 1;
            TransactionMetadata next = current.withProducer(
                            exhausted ? ids.nextId() : current.producerId(),
                            exhausted ? 0 : (short) (current.producerEpoch() + 1),
                            timeoutMs,
                            clock.millis())
                    .completed(TransactionState.EMPTY, clock.millis());
            persist(entry, next);
            entry.bumpedFromProducerId = expectedProducerId >= 0 ? expectedProducerId : -1;
            entry.bumpedFromEpoch = expectedProducerId >= 0 ? expectedEpoch : -1;
            return new ProducerIdAndEpoch(Errors.NONE, next.producerId(), next.producerEpoch());
        });
    }

    // ---------------------------------------------------------------- AddPartitionsToTxn, AddOffsetsToTxn

    /**
     * AddPartitionsToTxn: the partitions (known to exist and authorised; the handler answers the others) join the
     * producer's transaction, which opens if it was not.
     */
    public Errors addPartitions(
            String transactionalId, long producerId, short epoch, Set<TopicPartition> partitions, short version) {
        Entry entry = byId.get(transactionalId);
        if (entry == null) {
            return Errors.INVALID_PRODUCER_ID_MAPPING;
        }
        return withWriteLock(entry, () -> {
            TransactionMetadata m = entry.metadata;
            Errors error = checkProducer(m, producerId, epoch, version, 2);
            if (error != Errors.NONE) {
                return error;
            }
            if (m.state().isPrepared()) {
                return Errors.CONCURRENT_TRANSACTIONS;
            }
            if (m.state() == TransactionState.ONGOING && m.partitions().containsAll(partitions)) {
                return Errors.NONE;
            }
            persist(entry, m.withPartitions(partitions, clock.millis()));
            return Errors.NONE;
        });
    }

    /** AddOffsetsToTxn: the group's offsets join the producer's transaction, as {@code __consumer_offsets-0}. */
    public Errors addOffsets(String transactionalId, long producerId, short epoch, short version) {
        return addPartitions(transactionalId, producerId, epoch, Set.of(OFFSETS_PARTITION), version);
    }

    // ---------------------------------------------------------------- EndTxn

    /** EndTxn: commits or aborts the producer's open transaction; see the class comment for the two phases. */
    public Errors endTransaction(String transactionalId, long producerId, short epoch, boolean commit, short version) {
        Entry entry = byId.get(transactionalId);
        if (entry == null) {
            return Errors.INVALID_PRODUCER_ID_MAPPING;
        }
        return withWriteLock(entry, () -> {
            TransactionMetadata m = entry.metadata;
            Errors error = checkProducer(m, producerId, epoch, version, 2);
            if (error != Errors.NONE) {
                return error;
            }
            TransactionState wanted = commit ? TransactionState.COMPLETE_COMMIT : TransactionState.COMPLETE_ABORT;
            return switch (m.state()) {
                case ONGOING -> {
                    persist(
                            entry,
                            m.with(
                                    commit ? TransactionState.PREPARE_COMMIT : TransactionState.PREPARE_ABORT,
                                    clock.millis()));
                    // Decided and durable: whatever happens to the markers now, the answer is the decision's, and
                    // the timer finishes what this could not.
                    completeOrLeaveToTimer(entry);
                    yield Errors.NONE;
                }
                // A retry of an EndTxn that completed: the same answer.
                case COMPLETE_COMMIT, COMPLETE_ABORT -> m.state() == wanted ? Errors.NONE : Errors.INVALID_TXN_STATE;
                case PREPARE_COMMIT, PREPARE_ABORT -> {
                    boolean same = (m.state() == TransactionState.PREPARE_COMMIT) == commit;
                    if (!same) {
                        yield Errors.INVALID_TXN_STATE;
                    }
                    // Its markers failed before: try again; if they fail again, the client retries.
                    yield completeOrLeaveToTimer(entry) ? Errors.NONE : Errors.CONCURRENT_TRANSACTIONS;
                }
                case EMPTY -> Errors.INVALID_TXN_STATE;
            };
        });
    }

    // ---------------------------------------------------------------- verified writes

    /**
     * Runs {@code append} (a transactional Produce's append to {@code partition}) only if it belongs to the open
     * transaction of {@code producerId} at {@code epoch} with {@code partition} added, holding off the end of that
     * transaction while it runs.
     *
     * @throws InvalidProducerEpochException when the epoch is older than the producer's current one (fenced)
     * @throws TransactionVerificationException when the write belongs to no open transaction of this partition
     */
    public <T> T appendVerified(long producerId, short epoch, TopicPartition partition, Supplier<T> append) {
        Entry entry = byProducerId.get(producerId);
        if (entry == null) {
            throw new TransactionVerificationException(
                    "producer " + producerId + " holds no transactional id; call initTransactions first");
        }
        entry.lock.readLock().lock();
        try {
            TransactionMetadata m = entry.metadata;
            if (m.producerId() != producerId || epoch < m.producerEpoch()) {
                throw new InvalidProducerEpochException(partition.toString(), producerId, epoch, m.producerEpoch(), -1);
            }
            if (epoch != m.producerEpoch()
                    || m.state() != TransactionState.ONGOING
                    || !m.partitions().contains(partition)) {
                throw new TransactionVerificationException("producer " + producerId + " at epoch " + epoch
                        + " has no open transaction with " + partition + " added (transactional id "
                        + m.transactionalId() + " is " + m.state().kafkaName() + " at epoch " + m.producerEpoch()
                        + ")");
            }
            return append.get();
        } finally {
            entry.lock.readLock().unlock();
        }
    }

    /**
     * Checks a TxnOffsetCommit against the producer's transaction: the current producer id and epoch, open, with the
     * group offsets added. Then runs {@code commit} holding off the end of that transaction until it has answered.
     */
    public <T> T commitOffsetsVerified(
            String transactionalId,
            long producerId,
            short epoch,
            Supplier<T> commit,
            java.util.function.Function<Errors, T> refuse) {
        Entry entry = byId.get(transactionalId);
        if (entry == null || entry.metadata == null) {
            return refuse.apply(Errors.INVALID_PRODUCER_ID_MAPPING);
        }
        entry.lock.readLock().lock();
        try {
            TransactionMetadata m = entry.metadata;
            if (m.producerId() != producerId) {
                return refuse.apply(Errors.INVALID_PRODUCER_ID_MAPPING);
            }
            if (epoch != m.producerEpoch()) {
                return refuse.apply(Errors.INVALID_PRODUCER_EPOCH);
            }
            if (m.state() != TransactionState.ONGOING || !m.partitions().contains(OFFSETS_PARTITION)) {
                return refuse.apply(Errors.INVALID_TXN_STATE);
            }
            return commit.get();
        } finally {
            entry.lock.readLock().unlock();
        }
    }

    // ---------------------------------------------------------------- timeouts, descriptions

    /** Aborts, fencing their producers, the transactions open longer than their timeout. For the broker's scheduler. */
    public void tick() {
        long now = clock.millis();
        for (Entry entry : byId.values()) {
            TransactionMetadata m = entry.metadata;
            if (m == null) {
                continue;
            }
            boolean expired = m.state() == TransactionState.ONGOING && now - m.txnStartMs() >= m.timeoutMs();
            if ((expired || m.state().isPrepared()) && entry.lock.writeLock().tryLock()) {
                try {
                    TransactionMetadata current = entry.metadata;
                    if (current.state() == TransactionState.ONGOING
                            && clock.millis() - current.txnStartMs() >= current.timeoutMs()) {
                        log.atInfo()
                                .addKeyValue("transactionalId", current.transactionalId())
                                .addKeyValue("producerId", current.producerId())
                                .addKeyValue("timeoutMs", current.timeoutMs())
                                .log("Aborting a transaction open past its timeout");
                        abortFencing(entry);
                    } else if (current.state().isPrepared()) {
                        complete(entry);
                    }
                } catch (RuntimeException e) {
                    log.atWarn()
                            .setCause(e)
                            .addKeyValue("transactionalId", m.transactionalId())
                            .log("Could not end a transaction; trying again later");
                } finally {
                    entry.lock.writeLock().unlock();
                }
            }
        }
    }

    /** True when {@code producerId} belongs to a transactional id: no idempotent producer may claim it. */
    public boolean ownsProducerId(long producerId) {
        return byProducerId.containsKey(producerId);
    }

    /** The metadata of {@code transactionalId}, for DescribeTransactions. */
    public Optional<TransactionMetadata> describe(String transactionalId) {
        Entry entry = byId.get(transactionalId);
        return entry == null ? Optional.empty() : Optional.ofNullable(entry.metadata);
    }

    /** Every transactional id's metadata, sorted by id, for ListTransactions. */
    public List<TransactionMetadata> transactions() {
        List<TransactionMetadata> all = new ArrayList<>();
        for (Entry e : byId.values()) {
            if (e.metadata != null) {
                all.add(e.metadata);
            }
        }
        all.sort(Comparator.comparing(TransactionMetadata::transactionalId));
        return all;
    }

    // ---------------------------------------------------------------- internals (under the entry's write lock)

    private Errors checkProducer(TransactionMetadata m, long producerId, short epoch, short version, int fencedSince) {
        if (m == null || m.producerId() != producerId) {
            return Errors.INVALID_PRODUCER_ID_MAPPING;
        }
        if (epoch != m.producerEpoch()) {
            return fenced(version, fencedSince);
        }
        return Errors.NONE;
    }

    /** PRODUCER_FENCED from the version that knows it, INVALID_PRODUCER_EPOCH before. */
    private static Errors fenced(short version, int since) {
        return version >= since ? Errors.PRODUCER_FENCED : Errors.INVALID_PRODUCER_EPOCH;
    }

    /** Aborts the open transaction with the producer's epoch bumped: whoever holds the old epoch is fenced. */
    private void abortFencing(Entry entry) {
        TransactionMetadata m = entry.metadata;
        boolean exhausted = m.producerEpoch() >= Short.MAX_VALUE - 1;
        short epoch = exhausted ? m.producerEpoch() : (short) (m.producerEpoch() + 1);
        persist(
                entry,
                m.withProducer(m.producerId(), epoch, m.timeoutMs(), clock.millis())
                        .with(TransactionState.PREPARE_ABORT, clock.millis()));
        complete(entry);
    }

    /** {@link #complete}, logging a failure for the timer to retry; true when the transaction is complete. */
    private boolean completeOrLeaveToTimer(Entry entry) {
        try {
            complete(entry);
            return true;
        } catch (RuntimeException e) {
            log.atWarn()
                    .setCause(e)
                    .addKeyValue("transactionalId", entry.metadata.transactionalId())
                    .log("Could not write a decided transaction's markers; the timer tries again");
            return false;
        }
    }

    /** Writes the prepared transaction's markers, waits until they are durable, then records it complete. */
    private void complete(Entry entry) {
        TransactionMetadata m = entry.metadata;
        boolean commit = m.state() == TransactionState.PREPARE_COMMIT;
        Map<TopicPartition, CompletableFuture<Void>> written = new LinkedHashMap<>();
        Map<PartitionLog, Long> ends = new LinkedHashMap<>();
        for (TopicPartition tp : m.partitions()) {
            if (tp.equals(OFFSETS_PARTITION)) {
                written.put(tp, groups.endTransaction(m.producerId(), m.producerEpoch(), commit));
                continue;
            }
            Optional<PartitionLog> partition = logs.partition(tp.topic(), tp.partition());
            if (partition.isEmpty()) {
                continue; // deleted since it was added: nothing left to mark
            }
            try {
                ends.put(
                        partition.get(),
                        partition.get().appendMarker(m.producerId(), m.producerEpoch(), commit, COORDINATOR_EPOCH) + 1);
            } catch (InvalidProducerEpochException e) {
                // The partition saw a newer epoch of this producer id: a later transaction ended it already.
                log.atWarn()
                        .addKeyValue("partition", tp)
                        .addKeyValue("problem", e.getMessage())
                        .log("Marker refused");
            }
        }
        PartitionLog.awaitDurable(ends).forEach((p, f) -> written.put(new TopicPartition(p.name(), -1), f));
        for (Map.Entry<TopicPartition, CompletableFuture<Void>> w : written.entrySet()) {
            try {
                w.getValue().get(MARKER_WAIT_MS, TimeUnit.MILLISECONDS);
            } catch (ExecutionException e) {
                throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
            } catch (TimeoutException e) {
                throw new IllegalStateException("the marker for " + w.getKey() + " was not durable in time");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while writing markers", e);
            }
        }
        persist(
                entry,
                m.completed(
                        commit ? TransactionState.COMPLETE_COMMIT : TransactionState.COMPLETE_ABORT, clock.millis()));
    }

    /**
     * Writes {@code next} to the log, waits until it is durable, then makes it current.
     *
     * @throws TransactionLogUnavailableException when it could not be made durable; nothing changed
     */
    private void persist(Entry entry, TransactionMetadata next) {
        try {
            txnLog.write(next).get(MARKER_WAIT_MS, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw new TransactionLogUnavailableException(next.transactionalId(), e.getCause());
        } catch (TimeoutException | RuntimeException e) {
            throw new TransactionLogUnavailableException(next.transactionalId(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new TransactionLogUnavailableException(next.transactionalId(), e);
        }
        TransactionMetadata previous = entry.metadata;
        entry.metadata = next;
        if (previous != null && previous.producerId() != next.producerId()) {
            byProducerId.remove(previous.producerId(), entry);
        }
        byProducerId.put(next.producerId(), entry);
    }

    private void register(TransactionMetadata m) {
        Entry entry = new Entry(m);
        byId.put(m.transactionalId(), entry);
        byProducerId.put(m.producerId(), entry);
    }

    private static <T> T withWriteLock(Entry entry, Supplier<T> action) {
        entry.lock.writeLock().lock();
        try {
            return action.get();
        } finally {
            entry.lock.writeLock().unlock();
        }
    }

    private static void withWriteLock(Entry entry, Runnable action) {
        withWriteLock(entry, () -> {
            action.run();
            return null;
        });
    }
}
