package io.orderflow.broker.log;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one recovery routine: turns a partition directory, in whatever state a crash left it, into a valid
 * log. Idempotent: running it twice (or crashing inside it and running it again) gives the same result.
 *
 * <ol>
 *   <li>Finishes or undoes compaction swaps: a {@code .log.swap} file is a committed cleaned segment and
 *       replaces the original; {@code .cleaned} files are unfinished output and are deleted; so are
 *       {@code .deleted} files (segments already removed by retention or compaction).
 *   <li>Opens the segments. After a clean shutdown (marker file present) their indexes are trusted. After an
 *       unclean stop the last segment, the only one that can hold unflushed or torn bytes (segments are
 *       fsynced when they are rolled), is validated batch by batch, truncated at the first invalid batch and
 *       its indexes rebuilt; segments with indexes pointing past their data are rebuilt too.
 *   <li>Loads the log start offset checkpoint and the latest producer-state snapshot at or below the log end,
 *       and replays the batches after the snapshot into the producer state: data batches update the producers'
 *       sequences and open their transactions, transaction markers close them, and the aborted transactions of
 *       the replayed range are rebuilt into the segments' {@link TransactionIndex}es.
 * </ol>
 */
final class LogLoader {
    private static final Logger log = LoggerFactory.getLogger(LogLoader.class);

    static final String CLEAN_SHUTDOWN_FILE = "clean-shutdown";
    static final String LOG_START_OFFSET_FILE = "log-start-offset";

    record Loaded(TreeMap<Long, LogSegment> segments, long logStartOffset, boolean wasClean, int truncatedBytes) {}

    private LogLoader() {}

    static Loaded load(Path dir, LogFiles files, LogConfig config, ProducerStateTable producers) {
        try {
            Files.createDirectories(dir);
            Path marker = dir.resolve(CLEAN_SHUTDOWN_FILE);
            boolean clean = Files.exists(marker);
            TreeSet<Long> swapped = finishSwaps(dir);
            TreeSet<Long> bases = segmentBaseOffsets(dir);
            long checkpointedStart = readLogStartOffset(dir);
            TreeMap<Long, LogSegment> segments = new TreeMap<>();
            int truncated = 0;
            for (long base : bases) {
                boolean last = base == bases.last();
                LogSegment segment;
                boolean indexMissing = !Files.exists(dir.resolve(LogSegment.fileName(base, LogSegment.INDEX_SUFFIX)))
                        || !Files.exists(dir.resolve(LogSegment.fileName(base, LogSegment.TIME_INDEX_SUFFIX)));
                if (swapped.contains(base) || indexMissing || (!clean && last)) {
                    segment = LogSegment.openToRecover(files, dir, base, config.indexIntervalBytes());
                    truncated += segment.recover();
                } else {
                    segment = LogSegment.open(files, dir, base, config.indexIntervalBytes());
                }
                segments.put(base, segment);
            }
            if (segments.isEmpty()) {
                long start = Math.max(0, checkpointedStart);
                segments.put(start, LogSegment.create(files, dir, start, config.indexIntervalBytes(), ""));
                files.syncDirectory(dir);
            }
            long logEnd = segments.lastEntry().getValue().nextOffset();
            long logStart = Math.min(Math.max(checkpointedStart, segments.firstKey()), logEnd);

            long snapshotOffset = producers.loadLatestSnapshot(files, dir, logEnd);
            if (snapshotOffset < logStart) {
                // Batches between the snapshot and the log start are gone, so the snapshot may understate a
                // producer's sequence; forgetting the producer is safe (an unknown producer may resume at any
                // sequence), remembering stale state is not.
                producers.clear();
            }
            long replayFrom = Math.max(snapshotOffset, logStart);
            if (replayFrom < logEnd) {
                for (LogSegment segment : segments.values()) {
                    if (segment.nextOffset() > replayFrom) {
                        // The aborted transactions of the replayed range are rebuilt from their markers.
                        segment.txnIndex().truncateFrom(replayFrom);
                        segment.forEachBatchAt((h, position) -> {
                            if (h.baseOffset() >= replayFrom) {
                                replay(segment, h, position, producers);
                            }
                        });
                    }
                }
            }
            if (clean) {
                Files.delete(marker);
                files.syncDirectory(dir);
            } else if (!bases.isEmpty()) {
                log.atInfo()
                        .addKeyValue("dir", dir)
                        .addKeyValue("logEndOffset", logEnd)
                        .addKeyValue("truncatedBytes", truncated)
                        .log("Recovered a partition after an unclean stop");
            }
            return new Loaded(segments, logStart, clean, truncated);
        } catch (IOException e) {
            throw new LogStorageException("Cannot load log in " + dir, e);
        }
    }

    private static void replay(LogSegment segment, BatchHeader h, int position, ProducerStateTable producers) {
        if (!h.isControl()) {
            producers.replay(h);
            return;
        }
        if (!h.hasProducerId()) {
            return;
        }
        ControlRecordType type = TransactionMarker.typeOf(segment.readBatch(position, h));
        if (type != ControlRecordType.COMMIT && type != ControlRecordType.ABORT) {
            return;
        }
        long first = producers.replayMarker(h.producerId(), h.producerEpoch(), h.maxTimestamp());
        if (type == ControlRecordType.ABORT && first >= 0) {
            segment.txnIndex().append(new AbortedTxn(h.producerId(), first, h.baseOffset()));
        }
    }

    /** Completes committed compaction swaps and removes leftovers; returns the base offsets swapped in. */
    private static TreeSet<Long> finishSwaps(Path dir) throws IOException {
        TreeSet<Long> swapped = new TreeSet<>();
        List<Path> entries = list(dir);
        for (Path p : entries) {
            String name = p.getFileName().toString();
            if (name.endsWith(".cleaned") || name.endsWith(".deleted") || name.endsWith(".tmp")) {
                Files.deleteIfExists(p);
            }
        }
        for (Path p : entries) {
            String name = p.getFileName().toString();
            if (name.endsWith(LogSegment.LOG_SUFFIX + ".swap")) {
                long base = Long.parseLong(name.substring(0, 20));
                for (String s : List.of(LogSegment.LOG_SUFFIX, LogSegment.INDEX_SUFFIX, LogSegment.TIME_INDEX_SUFFIX)) {
                    Files.deleteIfExists(dir.resolve(LogSegment.fileName(base, s)));
                }
                Files.move(p, dir.resolve(LogSegment.fileName(base, LogSegment.LOG_SUFFIX)));
                // The cleaned copy carries its original's aborted transactions, which the data alone cannot rebuild.
                Path txnSwap = dir.resolve(LogSegment.fileName(base, TransactionIndex.SUFFIX) + ".swap");
                if (Files.exists(txnSwap)) {
                    Files.move(
                            txnSwap,
                            dir.resolve(LogSegment.fileName(base, TransactionIndex.SUFFIX)),
                            java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                }
                swapped.add(base);
            }
        }
        for (Path p : list(dir)) {
            if (p.getFileName().toString().endsWith(".swap")) {
                Files.deleteIfExists(p); // index swaps: the swapped segment's indexes are rebuilt
            }
        }
        return swapped;
    }

    private static TreeSet<Long> segmentBaseOffsets(Path dir) throws IOException {
        TreeSet<Long> bases = new TreeSet<>();
        for (Path p : list(dir)) {
            String name = p.getFileName().toString();
            if (name.length() == 20 + LogSegment.LOG_SUFFIX.length() && name.endsWith(LogSegment.LOG_SUFFIX)) {
                bases.add(Long.parseLong(name.substring(0, 20)));
            }
        }
        return bases;
    }

    private static List<Path> list(Path dir) throws IOException {
        List<Path> out = new ArrayList<>();
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(dir)) {
            stream.forEach(out::add);
        }
        return out;
    }

    static long readLogStartOffset(Path dir) throws IOException {
        Path file = dir.resolve(LOG_START_OFFSET_FILE);
        if (!Files.exists(file)) {
            return 0;
        }
        try {
            return Long.parseLong(
                    Files.readString(file, StandardCharsets.US_ASCII).trim());
        } catch (NumberFormatException e) {
            log.atWarn().addKeyValue("file", file).log("Ignoring an unreadable log start offset file");
            return 0;
        }
    }

    static void writeLogStartOffset(Path dir, LogFiles files, long offset) throws IOException {
        writeAtomically(dir, files, LOG_START_OFFSET_FILE, Long.toString(offset));
    }

    static void writeCleanShutdownMarker(Path dir, LogFiles files) throws IOException {
        writeAtomically(dir, files, CLEAN_SHUTDOWN_FILE, "");
    }

    private static void writeAtomically(Path dir, LogFiles files, String name, String content) throws IOException {
        Path tmp = dir.resolve(name + ".tmp");
        try (var channel = files.open(
                tmp,
                java.nio.file.StandardOpenOption.CREATE,
                java.nio.file.StandardOpenOption.WRITE,
                java.nio.file.StandardOpenOption.TRUNCATE_EXISTING)) {
            var buf = java.nio.ByteBuffer.wrap(content.getBytes(StandardCharsets.US_ASCII));
            while (buf.hasRemaining()) {
                channel.write(buf);
            }
            channel.force(true);
        }
        Files.move(tmp, dir.resolve(name), java.nio.file.StandardCopyOption.ATOMIC_MOVE);
        files.syncDirectory(dir);
    }
}
