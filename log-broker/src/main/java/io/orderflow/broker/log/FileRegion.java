package io.orderflow.broker.log;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;

/**
 * A run of whole record batches inside a segment file, handed to the network layer so it can
 * {@link FileChannel#transferTo transfer} them to a socket without copying through the heap.
 *
 * <p>The channel stays open while the region may be in use: segments removed by retention or compaction are
 * closed only after {@code file.delete.delay.ms}.
 */
public record FileRegion(FileChannel channel, long position, int size) {

    public static final FileRegion EMPTY = new FileRegion(null, 0, 0);

    public boolean isEmpty() {
        return size == 0;
    }

    /** Copies the region into memory; for tests, compaction and tools, not for the fetch path. */
    public ByteBuffer read() {
        ByteBuffer buf = ByteBuffer.allocate(size);
        if (size == 0) {
            return buf;
        }
        try {
            while (buf.hasRemaining()) {
                int n = channel.read(buf, position + buf.position());
                if (n < 0) {
                    throw new LogStorageException(
                            "Segment ended inside a region at " + (position + buf.position()),
                            new java.io.EOFException());
                }
            }
        } catch (IOException e) {
            throw new LogStorageException("Cannot read region at " + position, e);
        }
        return buf.flip();
    }
}
