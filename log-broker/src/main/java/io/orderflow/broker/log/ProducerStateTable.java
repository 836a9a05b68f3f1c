package io.orderflow.broker.log;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The idempotent-producer state of one partition: for every producer id that appended here, its current
 * epoch, the metadata of its last five batches of that epoch and its last batch timestamp (see
 * {@link ProducerEntry}). It is what lets the partition drop a retried batch instead of storing it twice,
 * answer the retry with the original offsets, and refuse batches that arrive out of order or from a fenced
 * producer. The checks are Kafka's, listed in {@link ProducerAppend}.
 *
 * <p><b>Appending.</b> {@link #prepare()} starts an append, {@link ProducerAppend#check} runs before each
 * batch is written and {@link ProducerAppend#commit()} after all of them are: a rejected or failed append
 * changes nothing here.
 *
 * <p><b>Crash behaviour.</b> The table lives in memory. The partition snapshots it at its log end offset
 * when it rolls a segment and when it closes ({@link #writeSnapshot}, format in
 * {@link ProducerSnapshotFile}); on open, recovery loads the newest valid snapshot at or below the recovered
 * log end ({@link #loadLatestSnapshot}) and {@link #replay}s every batch after it. Snapshots are therefore an
 * optimisation for what the log still holds, but the only record of producers whose batches retention,
 * DeleteRecords or compaction removed: without a snapshot those producers are unknown after a restart, and
 * their next batch is accepted whatever its sequence, as in Kafka. A snapshot above the log end describes
 * batches the crash took back; it is deleted (and the deletion made durable) before the offsets are reused.
 *
 * <p><b>Snapshot housekeeping.</b> A snapshot below the log start offset must not be loaded: the replay
 * starts at the log start, so the batches between the snapshot and the log start would be missing and the
 * producers they belong to would look behind and be refused. {@link #deleteSnapshotsBelow} is therefore to
 * be called with the log start offset each time it advances.
 *
 * <p><b>Expiry.</b> {@link #removeExpired} drops producers whose last batch is at least
 * {@code producer.id.expiration.ms} old, measured against the batch's (producer-supplied) max timestamp, as
 * Kafka does. The clock is the caller's, so tests move time instead of sleeping.
 *
 * <p>Not thread-safe: the partition's append lock guards every call, including reads of
 * {@link #producerCount()}.
 */
final class ProducerStateTable {
    private static final Logger log = LoggerFactory.getLogger(ProducerStateTable.class);

    private final String partitionName;
    private final Map<Long, ProducerEntry> producers = new HashMap<>();
    /** The producers with a transaction open here, by the first offset of that transaction. */
    private final TreeMap<Long, Long> openTransactions = new TreeMap<>();
    /** Bumped on every change, so that a {@link ProducerAppend} can tell the table moved under it. */
    private long version;

    /** @param partitionName the partition's name for messages, e.g. {@code orders-3} */
    ProducerStateTable(String partitionName) {
        this.partitionName = partitionName;
    }

    String partitionName() {
        return partitionName;
    }

    /** Begins checking one append; see {@link ProducerAppend}. */
    ProducerAppend prepare() {
        return new ProducerAppend(this, version, false);
    }

    /** Begins checking a coordinator's own write for producers: epochs and transactions, no sequences. */
    ProducerAppend prepareCoordinatorWrite() {
        return new ProducerAppend(this, version, true);
    }

    Optional<ProducerEntry> entry(long producerId) {
        return Optional.ofNullable(producers.get(producerId));
    }

    /** Every producer's entry, by producer id. */
    List<ProducerEntry> entries() {
        List<ProducerEntry> entries = new ArrayList<>(producers.values());
        entries.sort(Comparator.comparingLong(ProducerEntry::producerId));
        return entries;
    }

    int producerCount() {
        return producers.size();
    }

    /**
     * Forgets producers whose last batch timestamp is {@code expirationMs} or more before {@code nowMs}
     * (Kafka's {@code producer.id.expiration.ms} rule).
     *
     * @return how many producers were forgotten
     */
    int removeExpired(long nowMs, long expirationMs) {
        int removed = 0;
        for (Iterator<ProducerEntry> it = producers.values().iterator(); it.hasNext(); ) {
            ProducerEntry entry = it.next();
            // A producer with a transaction open stays until its marker: it holds the last stable offset back.
            if (!entry.inTransaction() && nowMs - entry.lastTimestamp() >= expirationMs) {
                it.remove();
                removed++;
            }
        }
        if (removed > 0) {
            version++;
        }
        return removed;
    }

    void clear() {
        producers.clear();
        openTransactions.clear();
        version++;
    }

    /**
     * The offset of the first record of the oldest transaction still open here, or -1 when none is: the last stable
     * offset is at most this.
     */
    long firstUnstableOffset() {
        return openTransactions.isEmpty() ? -1 : openTransactions.firstKey();
    }

    /**
     * Applies a data batch already in the log, without checks, for recovery. Its header must carry the offsets it
     * is stored at. Batches without a producer id are ignored; markers go to {@link #replayMarker}.
     */
    void replay(BatchHeader batch) {
        if (!batch.hasProducerId() || batch.isControl()) {
            return;
        }
        long producerId = batch.producerId();
        BatchMetadata metadata = BatchMetadata.of(batch);
        ProducerEntry current = producers.get(producerId);
        ProducerEntry next = current == null
                ? ProducerEntry.first(producerId, batch.producerEpoch(), metadata)
                : current.with(batch.producerEpoch(), metadata);
        put(batch.isTransactional() ? next.openingTransactionAt(batch.baseOffset()) : next);
        version++;
    }

    /**
     * Closes the producer's open transaction with a marker written at {@code markerOffset} (in a live append, after
     * {@link #checkMarker}; in recovery, as the log holds it).
     *
     * @return the first offset of the transaction it closed, or -1 when none was open (a repeated marker)
     */
    long replayMarker(long producerId, short markerEpoch, long timestamp) {
        ProducerEntry current = producers.get(producerId);
        long first = current == null ? ProducerEntry.NO_TRANSACTION : current.txnFirstOffset();
        put(
                current == null
                        ? new ProducerEntry(producerId, markerEpoch, timestamp, List.of())
                        : current.afterMarker((short) Math.max(markerEpoch, current.epoch()), timestamp));
        version++;
        return first;
    }

    /** The first offset of the producer's open transaction here, or -1 when none is open. */
    long openTransactionStart(long producerId) {
        ProducerEntry current = producers.get(producerId);
        return current == null ? ProducerEntry.NO_TRANSACTION : current.txnFirstOffset();
    }

    /** Refuses a marker from an epoch older than the producer's: the coordinator that sent it was fenced. */
    void checkMarker(long producerId, short markerEpoch, long offset) {
        ProducerEntry current = producers.get(producerId);
        if (current != null && markerEpoch < current.epoch()) {
            throw new InvalidProducerEpochException(partitionName, producerId, markerEpoch, current.epoch(), offset);
        }
    }

    private void put(ProducerEntry entry) {
        ProducerEntry old = producers.put(entry.producerId(), entry);
        if (old != null && old.inTransaction() && old.txnFirstOffset() != entry.txnFirstOffset()) {
            openTransactions.remove(old.txnFirstOffset());
        }
        if (entry.inTransaction()) {
            openTransactions.put(entry.txnFirstOffset(), entry.producerId());
        }
    }

    /**
     * Atomically writes {@code <offset>.snapshot} in {@code partitionDir}, holding the table as of log offset
     * {@code offset}, which must be the log end offset now. Replaces a snapshot already at that offset.
     */
    void writeSnapshot(LogFiles files, Path partitionDir, long offset) {
        try {
            ProducerSnapshotFile.write(files, partitionDir, offset, entries());
        } catch (IOException e) {
            throw new LogStorageException(
                    "Cannot write the producer snapshot of " + partitionName + " at offset " + offset, e);
        }
    }

    /**
     * Replaces the table with the newest valid snapshot at or below {@code maxOffset} (the log end offset
     * recovered), or empties it when there is none. Snapshots above {@code maxOffset} are deleted, and so are
     * corrupt ones (the next older one is tried instead); the deletions are made durable before returning.
     *
     * @return the offset of the snapshot loaded, from which the caller replays the log; -1 when none was
     * @throws LogStorageException when the directory or a snapshot file cannot be read or changed
     */
    long loadLatestSnapshot(LogFiles files, Path partitionDir, long maxOffset) {
        try {
            TreeMap<Long, Path> snapshots = ProducerSnapshotFile.list(partitionDir);
            boolean deletedAny = false;
            for (Map.Entry<Long, Path> above :
                    snapshots.tailMap(maxOffset, false).entrySet()) {
                log.atInfo()
                        .addKeyValue("partition", partitionName)
                        .addKeyValue("snapshotOffset", above.getKey())
                        .addKeyValue("logEndOffset", maxOffset)
                        .log("Deleting a producer snapshot past the log end");
                Files.deleteIfExists(above.getValue());
                deletedAny = true;
            }
            long loadedOffset = -1;
            List<ProducerEntry> loaded = List.of();
            for (Map.Entry<Long, Path> candidate :
                    snapshots.headMap(maxOffset, true).descendingMap().entrySet()) {
                try {
                    loaded = ProducerSnapshotFile.read(files, candidate.getValue(), candidate.getKey());
                    loadedOffset = candidate.getKey();
                    break;
                } catch (ProducerSnapshotFile.CorruptSnapshotException e) {
                    log.atWarn()
                            .addKeyValue("partition", partitionName)
                            .addKeyValue("file", candidate.getValue())
                            .addKeyValue("problem", e.getMessage())
                            .log("Deleting a corrupt producer snapshot");
                    Files.deleteIfExists(candidate.getValue());
                    deletedAny = true;
                }
            }
            if (deletedAny) {
                files.syncDirectory(partitionDir);
            }
            clear();
            for (ProducerEntry entry : loaded) {
                put(entry);
            }
            version++;
            return loadedOffset;
        } catch (IOException e) {
            throw new LogStorageException("Cannot load the producer snapshots of " + partitionName, e);
        }
    }

    /**
     * Deletes the snapshots strictly below {@code offset}, normally the log start offset after it advanced
     * (see the class comment for why older snapshots must go rather than be kept as a fallback). The
     * snapshot at {@code offset} itself, if any, is kept. The deletions are made durable before returning.
     *
     * @return how many snapshots were deleted
     */
    int deleteSnapshotsBelow(LogFiles files, Path partitionDir, long offset) {
        try {
            Collection<Path> below =
                    ProducerSnapshotFile.list(partitionDir).headMap(offset).values();
            for (Path p : below) {
                Files.deleteIfExists(p);
            }
            if (!below.isEmpty()) {
                files.syncDirectory(partitionDir);
            }
            return below.size();
        } catch (IOException e) {
            throw new LogStorageException(
                    "Cannot delete the producer snapshots of " + partitionName + " below offset " + offset, e);
        }
    }

    /** The committed entry of {@code producerId}, or null; for {@link ProducerAppend}. */
    ProducerEntry committedEntry(long producerId) {
        return producers.get(producerId);
    }

    /** Swaps in the entries an append produced; for {@link ProducerAppend#commit()}. */
    void apply(Collection<ProducerEntry> updated) {
        for (ProducerEntry entry : updated) {
            put(entry);
        }
        version++;
    }

    void ensureUnchangedSince(long preparedAtVersion) {
        if (version != preparedAtVersion) {
            throw new IllegalStateException("The producer state of " + partitionName
                    + " changed after this append was prepared; appends must be checked and committed under"
                    + " the append lock, one at a time");
        }
    }

    @Override
    public String toString() {
        return "ProducerStateTable(" + partitionName + ", " + producers.size() + " producers)";
    }
}
