package io.orderflow.broker.log;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * A sparse map from time to offset within one segment: an entry records the largest timestamp seen so far
 * and the base offset of the batch where it was seen, so entries increase in both fields. Used by
 * ListOffsets by timestamp and by time-based retention.
 *
 * <p>Format: 12-byte entries, {@code timestamp int64 | relativeOffset int32}.
 */
final class TimeIndex extends IndexFile {
    static final int ENTRY_SIZE = 12;

    private final long baseOffset;
    private long[] timestamps = new long[16];
    private int[] relativeOffsets = new int[16];

    TimeIndex(LogFiles files, Path path, long baseOffset) {
        super(files, path, ENTRY_SIZE);
        this.baseOffset = baseOffset;
        loadEntries();
    }

    @Override
    protected void load(int i, ByteBuffer buf, int position) {
        ensureCapacity(i + 1);
        timestamps[i] = buf.getLong(position);
        relativeOffsets[i] = buf.getInt(position + 8);
    }

    private void ensureCapacity(int n) {
        if (n > timestamps.length) {
            int size = Math.max(n, timestamps.length * 2);
            timestamps = Arrays.copyOf(timestamps, size);
            relativeOffsets = Arrays.copyOf(relativeOffsets, size);
        }
    }

    /** Adds an entry if {@code timestamp} is newer than the last one; older timestamps add nothing. */
    synchronized void maybeAppend(long timestamp, long offset) {
        int n = entries();
        int relative = Math.toIntExact(offset - baseOffset);
        if (n > 0 && (timestamp <= timestamps[n - 1] || relative <= relativeOffsets[n - 1])) {
            return;
        }
        ensureCapacity(n + 1);
        timestamps[n] = timestamp;
        relativeOffsets[n] = relative;
        appendEntry(ByteBuffer.allocate(ENTRY_SIZE)
                .putLong(timestamp)
                .putInt(relative)
                .flip());
    }

    /**
     * An offset from which a forward scan finds the first record with a timestamp at or after
     * {@code timestamp}: every record before it is older. The segment's base offset when no entry is older.
     */
    synchronized long scanStartFor(long timestamp) {
        int lo = 0;
        int hi = entries() - 1;
        int found = -1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (timestamps[mid] < timestamp) {
                found = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        // Every record up to and including the batch at entry[found] is at most timestamps[found], which is
        // older than the target, so starting the scan at that batch skips nothing it must find.
        return found < 0 ? baseOffset : baseOffset + relativeOffsets[found];
    }

    synchronized void truncateFrom(long offset) {
        int n = entries();
        int keep = n;
        while (keep > 0 && baseOffset + relativeOffsets[keep - 1] >= offset) {
            keep--;
        }
        truncateEntries(keep);
    }

    synchronized long lastTimestamp() {
        int n = entries();
        return n == 0 ? -1 : timestamps[n - 1];
    }
}
