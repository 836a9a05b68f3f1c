package io.orderflow.broker.log;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * A sparse map from offset to file position within one segment: one entry about every
 * {@code index.interval.bytes} of data, pointing at the start of a batch. A lookup returns the last entry at
 * or before the target; the reader scans forward from there.
 *
 * <p>Format: 8-byte entries, {@code relativeOffset int32 | position int32}, where relativeOffset is the
 * batch's base offset minus the segment's base offset. Entries are strictly increasing in both fields.
 */
final class OffsetIndex extends IndexFile {
    static final int ENTRY_SIZE = 8;

    private final long baseOffset;
    private int[] relativeOffsets = new int[16];
    private int[] positions = new int[16];

    OffsetIndex(LogFiles files, Path path, long baseOffset) {
        super(files, path, ENTRY_SIZE);
        this.baseOffset = baseOffset;
        loadEntries();
    }

    @Override
    protected void load(int i, ByteBuffer buf, int position) {
        ensureCapacity(i + 1);
        relativeOffsets[i] = buf.getInt(position);
        positions[i] = buf.getInt(position + 4);
    }

    private void ensureCapacity(int n) {
        if (n > relativeOffsets.length) {
            int size = Math.max(n, relativeOffsets.length * 2);
            relativeOffsets = Arrays.copyOf(relativeOffsets, size);
            positions = Arrays.copyOf(positions, size);
        }
    }

    synchronized void append(long offset, int position) {
        int n = entries();
        int relative = Math.toIntExact(offset - baseOffset);
        if (n > 0 && (relative <= relativeOffsets[n - 1] || position <= positions[n - 1])) {
            throw new IllegalArgumentException("Index entry (" + offset + ", " + position
                    + ") is not after the last one (" + (baseOffset + relativeOffsets[n - 1]) + ", "
                    + positions[n - 1] + ")");
        }
        ensureCapacity(n + 1);
        relativeOffsets[n] = relative;
        positions[n] = position;
        appendEntry(ByteBuffer.allocate(ENTRY_SIZE)
                .putInt(relative)
                .putInt(position)
                .flip());
    }

    /** The position of the last indexed batch starting at or before {@code offset}; 0 when none is. */
    synchronized int lookup(long offset) {
        int i = floorIndex(offset);
        return i < 0 ? 0 : positions[i];
    }

    private int floorIndex(long offset) {
        long relative = offset - baseOffset;
        if (relative < 0) {
            return -1;
        }
        int lo = 0;
        int hi = entries() - 1;
        int found = -1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            if (relativeOffsets[mid] <= relative) {
                found = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return found;
    }

    /** Removes every entry for a batch at or after {@code offset}. */
    synchronized void truncateFrom(long offset) {
        int keep = floorIndex(offset - 1) + 1;
        truncateEntries(keep);
    }

    /** True when every entry points inside a file of {@code segmentSize} bytes. */
    synchronized boolean fitsWithin(int segmentSize) {
        int n = entries();
        return n == 0 || positions[n - 1] < segmentSize;
    }

    synchronized long lastOffset() {
        int n = entries();
        return n == 0 ? baseOffset : baseOffset + relativeOffsets[n - 1];
    }

    synchronized int lastPosition() {
        int n = entries();
        return n == 0 ? 0 : positions[n - 1];
    }
}
