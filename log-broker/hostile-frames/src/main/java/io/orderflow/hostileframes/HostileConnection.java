package io.orderflow.hostileframes;

import java.io.Closeable;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.time.Duration;

/**
 * One connection the harness sends hostile frames on. It never needs an answer: before and while it writes it reads
 * whatever the broker has sent and throws it away, so a broker that answers is never blocked writing to it, and it
 * sees the broker close the connection (end of stream or a reset) at the first read or write after.
 *
 * <p>After a frame is written it waits, at most the reaction wait, for the broker to react: an answer or a close,
 * whichever comes first. Without that wait a connection writes frame after frame before the broker has read the
 * first; the broker closes on the first malformed one and the kernel throws the rest away, so most frames "sent"
 * would never reach it. A frame the broker neither answers nor rejects within the wait (a body it still waits for, a
 * request it holds) is left behind; a wait of 0 sends as fast as the socket takes the bytes.
 *
 * <p>A non-blocking channel with its sender's selector, so that a write the broker does not read gives up after
 * the stall timeout instead of blocking the sender for ever (a broker that stopped reading but keeps the connection
 * open). Not thread-safe: one sender thread.
 */
final class HostileConnection implements Closeable {
    /** What became of a frame handed to {@link #send}. */
    enum Outcome {
        /** Written whole; the connection is still open. */
        WRITTEN,
        /** Written whole, after which the broker closed the connection (it rejected the frame, most likely). */
        WRITTEN_THEN_CLOSED,
        /** The broker had closed the connection before the frame was written whole: it never got the frame. */
        CLOSED_BEFORE,
        /** The broker neither read the frame nor closed the connection within the stall timeout. */
        STALLED
    }

    private final SocketChannel channel;
    private final Selector selector;
    private final SelectionKey key;
    private final Duration stallTimeout;
    private final ByteBuffer discard = ByteBuffer.allocateDirect(64 * 1024);
    private long bytesReceived;

    private HostileConnection(SocketChannel channel, Selector selector, SelectionKey key, Duration stallTimeout) {
        this.channel = channel;
        this.selector = selector;
        this.key = key;
        this.stallTimeout = stallTimeout;
    }

    /**
     * Connects, giving up after {@code connectTimeout}. {@code selector} is the sender thread's own, used by one
     * connection at a time: the next connection registers with it once this one is closed.
     */
    static HostileConnection open(
            InetSocketAddress from,
            InetSocketAddress address,
            Selector selector,
            Duration connectTimeout,
            Duration stallTimeout)
            throws IOException {
        SocketChannel channel = SocketChannel.open();
        try {
            channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
            channel.bind(from);
            channel.socket().connect(address, (int) connectTimeout.toMillis());
            channel.configureBlocking(false);
            SelectionKey key = channel.register(selector, SelectionKey.OP_READ);
            return new HostileConnection(channel, selector, key, stallTimeout);
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
    }

    /**
     * Writes all of {@code bytes}, reading and discarding what the broker sends meanwhile, then waits up to
     * {@code reactionWaitMillis} for the broker to answer or close.
     */
    Outcome send(byte[] bytes, int reactionWaitMillis) {
        ByteBuffer out = ByteBuffer.wrap(bytes);
        long deadline = System.nanoTime() + stallTimeout.toNanos();
        try {
            while (true) {
                if (!drain()) {
                    return Outcome.CLOSED_BEFORE;
                }
                channel.write(out);
                if (!out.hasRemaining()) {
                    break;
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return Outcome.STALLED;
                }
                key.interestOps(SelectionKey.OP_READ | SelectionKey.OP_WRITE);
                selector.select(Math.max(1, Math.min(100, left / 1_000_000)));
                selector.selectedKeys().clear();
                key.interestOps(SelectionKey.OP_READ);
            }
        } catch (IOException e) {
            return Outcome.CLOSED_BEFORE; // broken pipe or reset: the broker is gone from this connection
        }
        try {
            if (reactionWaitMillis > 0) {
                selector.select(reactionWaitMillis);
                selector.selectedKeys().clear();
            }
            return drain() ? Outcome.WRITTEN : Outcome.WRITTEN_THEN_CLOSED;
        } catch (IOException e) {
            return Outcome.WRITTEN_THEN_CLOSED;
        }
    }

    /** Reads and discards what has arrived; false once the broker has closed the connection. */
    private boolean drain() throws IOException {
        while (true) {
            discard.clear();
            int n = channel.read(discard);
            if (n < 0) {
                return false;
            }
            if (n == 0) {
                return true;
            }
            bytesReceived += n;
        }
    }

    long bytesReceived() {
        return bytesReceived;
    }

    /**
     * Closes the connection. A channel registered with a selector keeps its file descriptor, and its TCP connection
     * stays open, until the selector's next select removes its key: a select here, so that a sender that never waits
     * (a reaction wait of 0) does not pile up open connections.
     */
    @Override
    public void close() {
        try {
            channel.close();
            selector.selectNow();
            selector.selectedKeys().clear();
        } catch (IOException e) {
            // already reset by the broker, or the selector is closing with its sender: closed all the same
        }
    }
}
