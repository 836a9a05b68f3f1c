package io.orderflow.broker.network;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.SocketChannel;
import java.security.Principal;
import java.util.Optional;

/**
 * Plain TCP: buffers are written with gathering writes and record batches stored in segment files go straight
 * from the page cache to the socket ({@code sendfile}) without passing through the heap. One reading and one
 * writing thread.
 */
final class PlaintextTransport implements Transport {
    private static final int FALLBACK_CHUNK = 64 * 1024;

    private final SocketChannel socket;
    private long written;
    private ByteBuffer fallback;

    PlaintextTransport(SocketChannel socket) {
        this.socket = socket;
    }

    @Override
    public void handshake() {}

    @Override
    public Optional<Principal> peerPrincipal() {
        return Optional.empty();
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
        return socket.read(dst);
    }

    @Override
    public long bytesWritten() {
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
