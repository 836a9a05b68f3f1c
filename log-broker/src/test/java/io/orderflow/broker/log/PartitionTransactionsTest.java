package io.orderflow.broker.log;

import static io.orderflow.broker.log.TestBatches.batch;
import static io.orderflow.broker.log.TestBatches.idempotent;
import static io.orderflow.broker.log.TestBatches.transactional;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A partition's side of transactions: open transactions hold the last stable offset back, markers close them, aborts
 * are indexed per segment and listed to {@code read_committed} readers, and all of it survives a clean restart (the
 * producer snapshot) and a crash (the replay after the snapshot rebuilds it).
 */
class PartitionTransactionsTest {
    private static final long T0 = 1_700_000_000_000L;
    private static final long PID = 7;
    private static final short EPOCH = 0;

    @TempDir
    Path dir;

    private final ManualClock clock = new ManualClock(T0);
    private final ExecutorService flusher = Executors.newSingleThreadExecutor();
    private final List<PartitionLog> opened = new ArrayList<>();

    @AfterEach
    void tearDown() {
        opened.forEach(PartitionLog::close);
        flusher.shutdownNow();
    }

    private PartitionLog open(LogConfig config) {
        PartitionLog log = PartitionLog.open("orders-0", dir, config, clock, LogFiles.real(), flusher);
        opened.add(log);
        return log;
    }

    private PartitionLog open() {
        return open(LogConfig.defaults());
    }

    private static long appendDurably(PartitionLog log, ByteBuffer records) {
        AppendResult result = log.append(records);
        log.awaitDurable(result.endOffset()).join();
        return result.firstOffset();
    }

    private static long markDurably(PartitionLog log, long producerId, short epoch, boolean commit) {
        long offset = log.appendMarker(producerId, epoch, commit, 0);
        log.awaitDurable(offset + 1).join();
        return offset;
    }

    /**
     * The values a read_committed consumer keeps reading from {@code from} to the last stable offset, fetch after
     * fetch, filtering with each answer's aborted transactions as the Java client does.
     */
    private static List<String> committedValues(PartitionLog log, long from) {
        List<String> values = new ArrayList<>();
        java.util.Set<Long> skipping = new java.util.HashSet<>();
        long next = from;
        while (next < log.lastStableOffset()) {
            LogReadResult result = log.readCommitted(next, 1 << 20);
            List<AbortedTxn> aborted = new ArrayList<>(result.abortedTransactions());
            for (RecordBatch b :
                    MemoryRecords.readableRecords(result.records().read()).batches()) {
                for (AbortedTxn t : List.copyOf(aborted)) {
                    if (t.firstOffset() <= b.lastOffset()) {
                        skipping.add(t.producerId());
                        aborted.remove(t);
                    }
                }
                next = b.nextOffset();
                if (b.isControlBatch()) {
                    skipping.remove(b.producerId());
                    continue;
                }
                if (b.isTransactional() && skipping.contains(b.producerId())) {
                    continue;
                }
                for (Record r : b) {
                    if (r.offset() >= from) {
                        values.add(java.nio.charset.StandardCharsets.UTF_8
                                .decode(r.value())
                                .toString());
                    }
                }
            }
        }
        return values;
    }

    @Test
    void anOpenTransactionHoldsTheLastStableOffsetAtItsFirstRecordUntilItsMarker() {
        PartitionLog log = open();
        appendDurably(log, batch(T0, "k", "before"));
        appendDurably(log, transactional(PID, EPOCH, 0, T0, "k", "t1", "k", "t2"));
        appendDurably(log, batch(T0, "k", "after"));

        assertThat(log.highWatermark()).isEqualTo(4);
        assertThat(log.lastStableOffset()).isEqualTo(1);
        assertThat(committedValues(log, 0)).containsExactly("before");
        assertThat(log.readCommitted(1, 1 << 20).records().isEmpty()).isTrue();

        long marker = markDurably(log, PID, EPOCH, true);
        assertThat(marker).isEqualTo(4);
        assertThat(log.lastStableOffset()).isEqualTo(5);
        assertThat(committedValues(log, 0)).containsExactly("before", "t1", "t2", "after");
        assertThat(log.readCommitted(0, 1 << 20).abortedTransactions()).isEmpty();
    }

    @Test
    void anAbortIsListedToReadCommittedReadersThatReachItsRecords() {
        PartitionLog log = open();
        appendDurably(log, transactional(PID, EPOCH, 0, T0, "k", "aborted"));
        appendDurably(log, batch(T0, "k", "plain"));
        long marker = markDurably(log, PID, EPOCH, false);
        appendDurably(log, transactional(PID, EPOCH, 1, T0, "k", "committed"));
        markDurably(log, PID, EPOCH, true);

        assertThat(log.readCommitted(0, 1 << 20).abortedTransactions()).containsExactly(new AbortedTxn(PID, 0, marker));
        assertThat(committedValues(log, 0)).containsExactly("plain", "committed");
        assertThat(log.readCommitted(marker + 1, 1 << 20).abortedTransactions())
                .as("a read past the marker needs no word of the abort")
                .isEmpty();
        assertThat(log.read(0, 1 << 20, false).abortedTransactions())
                .as("read_uncommitted readers get no list")
                .isEmpty();
    }

    @Test
    void aProducerWithATransactionOpenMayNotWriteOutsideIt() {
        PartitionLog log = open();
        appendDurably(log, transactional(PID, EPOCH, 0, T0, "k", "t"));
        assertThatThrownBy(() -> log.append(idempotent(PID, EPOCH, 1, T0, "k", "outside")))
                .isInstanceOf(InvalidTxnStateException.class);
        assertThat(log.logEndOffset()).isEqualTo(1);
    }

    @Test
    void aMarkerOfAnOlderEpochIsRefusedAndANewerOneFencesTheProducer() {
        PartitionLog log = open();
        appendDurably(log, transactional(PID, (short) 3, 0, T0, "k", "t"));
        assertThatThrownBy(() -> log.appendMarker(PID, (short) 2, true, 0))
                .isInstanceOf(InvalidProducerEpochException.class);
        markDurably(log, PID, (short) 4, false);
        assertThatThrownBy(() -> log.append(transactional(PID, (short) 3, 1, T0, "k", "zombie")))
                .isInstanceOf(InvalidProducerEpochException.class);
        assertThat(log.lastStableOffset()).isEqualTo(log.highWatermark());
    }

    @Test
    void producersCannotWriteControlBatches() {
        PartitionLog log = open();
        ByteBuffer marker = TransactionMarker.batch(PID, EPOCH, true, 0, T0);
        assertThatThrownBy(() -> log.append(marker)).isInstanceOf(InvalidRecordBatchException.class);
        assertThat(TransactionMarker.typeOf(marker)).isEqualTo(ControlRecordType.COMMIT);
    }

    @Test
    void aCleanRestartKeepsOpenTransactionsAndAbortsFromTheSnapshotAndTheIndex() {
        PartitionLog log = open();
        appendDurably(log, transactional(PID, EPOCH, 0, T0, "k", "aborted"));
        long abortAt = markDurably(log, PID, EPOCH, false);
        appendDurably(log, transactional(8, EPOCH, 0, T0, "k", "open"));
        log.close();
        opened.remove(log);
        assertThat(Files.exists(dir.resolve(LogSegment.fileName(0, TransactionIndex.SUFFIX))))
                .isTrue();

        PartitionLog reopened = open();
        assertThat(reopened.recoveredCleanly()).isTrue();
        assertThat(reopened.lastStableOffset()).isEqualTo(2);
        assertThat(reopened.readCommitted(0, 1 << 20).abortedTransactions())
                .containsExactly(new AbortedTxn(PID, 0, abortAt));
        markDurably(reopened, 8, EPOCH, true);
        assertThat(committedValues(reopened, 0)).containsExactly("open");
    }

    @Test
    void aCrashRebuildsOpenTransactionsAndAbortsByReplayingTheLog() {
        PartitionLog log = open();
        appendDurably(log, transactional(PID, EPOCH, 0, T0, "k", "spans-a-roll"));
        appendDurably(log, batch(T0, "k", "plain-1"));
        log.forceRoll(); // the snapshot at the roll holds the open transaction; the replay after it, its abort
        appendDurably(log, batch(T0, "k", "plain-2"));
        long abortAt = markDurably(log, PID, EPOCH, false);
        appendDurably(log, transactional(9, EPOCH, 0, T0, "k", "open-at-crash"));
        assertThat(log.segmentCount()).as("the transaction spans segments").isGreaterThan(1);
        log.closeUncleanly();
        opened.remove(log);

        PartitionLog recovered = open();
        assertThat(recovered.recoveredCleanly()).isFalse();
        assertThat(recovered.readCommitted(0, 1 << 20).abortedTransactions())
                .containsExactly(new AbortedTxn(PID, 0, abortAt));
        assertThat(recovered.lastStableOffset()).isEqualTo(abortAt + 1);
        assertThat(committedValues(recovered, 0)).containsExactly("plain-1", "plain-2");
    }

    @Test
    void compactionNeitherKeepsAnAbortedValueNorDropsAMarkerNorCleansPastAnOpenTransaction() {
        LogConfig compacted = LogConfig.defaults()
                .with(Map.of(LogConfig.CLEANUP_POLICY, "compact", LogConfig.SEGMENT_BYTES, "100000"));
        PartitionLog log = open(compacted);
        appendDurably(log, batch(T0, "k", "committed-value"));
        appendDurably(log, transactional(PID, EPOCH, 0, T0, "k", "aborted-value"));
        markDurably(log, PID, EPOCH, false);
        log.forceRoll();
        appendDurably(log, batch(T0, "other", "x"));
        log.forceRoll();

        new LogCleaner(clock).clean(log);

        List<String> values = new ArrayList<>();
        boolean markerKept = false;
        for (RecordBatch b : MemoryRecords.readableRecords(
                        log.read(0, 1 << 20, false).records().read())
                .batches()) {
            markerKept |= b.isControlBatch();
            if (!b.isControlBatch()) {
                for (Record r : b) {
                    values.add(java.nio.charset.StandardCharsets.UTF_8
                            .decode(r.value())
                            .toString());
                }
            }
        }
        assertThat(values).contains("committed-value").doesNotContain("aborted-value");
        assertThat(markerKept).isTrue();

        appendDurably(log, transactional(PID, EPOCH, 1, T0, "other", "open"));
        log.forceRoll();
        assertThat(log.sealedSegments())
                .as("the segment with the open transaction is not cleaned")
                .allSatisfy(s -> assertThat(s.nextOffset()).isLessThanOrEqualTo(log.lastStableOffset()));
    }
}
