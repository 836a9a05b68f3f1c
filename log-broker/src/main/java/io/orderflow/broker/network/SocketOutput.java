package io.orderflow.broker.network;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.SocketChannel;
import org.apache.kafka.common.network.TransferableChannel;

/**
 * The socket as kafka-clients' response encoder wants it: buffers are written with gathering writes and
 * record batches stored in segment files go straight from the page cache to the socket ({@code sendfile})
 * without passing through the heap. Not thread-safe: one per connection.
 */
final class SocketOutput implements TransferableChannel {
    private static final int FALLBACK_CHUNK = 64 * 1024;

    private final SocketChannel socket;
    private long written;
    private ByteBuffer fallback;

    SocketOutput(SocketChannel socket) {
        this.socket = socket;
    }

    long bytesWritten() {
        return written;
    }

    @Override
    public boolean hasPendingWrites() {
        return false;
    }

    @Override
    public long transferFrom(FileChannel file, long position, long count) throws IOException {
        long n = file.transferTo(position, count, socket);
        if (n == 0 && count > 0) {
            // transferTo may make no progress on a socket a virtual thread blocks on; a plain write parks
            // properly, so copy one chunk instead of spinning.
            if (fallback == null) {
                fallback = ByteBuffer.allocate(FALLBACK_CHUNK);
            }
            fallback.clear().limit((int) Math.min(FALLBACK_CHUNK, count));
            int read = file.read(fallback, position);
            if (read <= 0) {
                throw new IOException("Segment file ended at " + position + " with " + count + " bytes to send");
            }
            fallback.flip();
            while (fallback.hasRemaining()) {
                n += socket.write(fallback);
            }
        }
        written += n;
        return n;
    }

    @Override
    public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
        long n = socket.write(srcs, offset, length);
        written += n;
        return n;
    }

    @Override
    public long write(ByteBuffer[] srcs) throws IOException {
        return write(srcs, 0, srcs.length);
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
        int n = socket.write(src);
        written += n;
        return n;
    }

    @Override
    public boolean isOpen() {
        return socket.isOpen();
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
