package io.orderflow.broker.network;

import io.orderflow.broker.handler.ClientInfo;
import io.orderflow.broker.handler.RequestDispatcher;
import io.orderflow.broker.handler.RequestFrame;
import io.orderflow.broker.handler.UnauthenticatedRequestException;
import io.orderflow.broker.protocol.MalformedRequestException;
import io.orderflow.broker.security.ConnectionSession;
import io.orderflow.broker.security.KafkaPrincipal;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;
import javax.net.ssl.SSLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client connection, run on a thread of its own ({@link ConnectionThreads}): read a size-prefixed frame,
 * dispatch it, answer it, repeat. Requests of one connection are handled one at a time in the order they arrive
 * and answered in that order, which is what Kafka guarantees. Kafka mutes a connection until its request is
 * answered; we do the same for every request except a Produce, which is appended at once and whose answer
 * (waiting for its fsync) is left to the connection's {@link ReplyWriter}, so the next pipelined Produce is
 * appended meanwhile and one group commit covers both. Nothing a client can observe differs: a request of any
 * other API first waits until every earlier answer is written, and is then answered on this thread. A slow or
 * stuck client blocks only its own threads.
 *
 * <p>On a TLS listener the handshake comes first, on this thread; on a SASL listener the {@link ConnectionSession}
 * keeps everything but the login requests out until the client has logged in (see {@link RequestDispatcher}).
 *
 * <p>A request that puts the client over one of its quotas is answered at once with {@code throttle_time_ms}, and
 * the connection is then not read for that long ({@link RequestDispatcher.Reply#throttleMs()}): Kafka's channel
 * muting (KIP-219), which holds back a client that ignores the throttle time.
 *
 * <p>Each frame's bytes are reserved in the broker's {@link RequestMemory} before its body is read, and given back
 * once they are decoded (a Produce's once it is answered, see {@link RequestFrame}); a large frame may wait there for
 * room, and the connection is not read meanwhile.
 *
 * <p>Closes the connection, and only it, on end of stream, a frame over {@code socket.request.max.bytes} or over the
 * whole {@code queued.max.request.bytes}, an unreadable frame, a failed TLS handshake, a request before the login,
 * an answer after which the protocol closes (a failed login), an I/O error, or when {@link SocketServer} finds it
 * idle ({@link #idleSinceNanos()}).
 */
final class Connection implements Runnable {
    private static final Logger log = LoggerFactory.getLogger(Connection.class);
    private static final int INITIAL_FRAME_BYTES = 64 * 1024;
    /** Answers a connection may have outstanding before it stops being read (a producer keeps 5 in flight). */
    private static final int MAX_OUTSTANDING_REPLIES = 16;

    private final String id;
    private final SocketChannel socket;
    private final Listener listener;
    private final Transport transport;
    private final RequestDispatcher dispatcher;
    private final NetworkLimits limits;
    private final NetworkStats stats;
    private final ConnectionThreads threads;
    private final RequestMemory memory;
    private final LongSupplier nanoTime;
    private final Runnable onClose;
    private final AtomicBoolean closed = new AtomicBoolean();
    /** The {@link ReplyWriter}'s thread, started by the first request whose answer may overlap the next one. */
    private Thread writerThread;

    private volatile long lastActivityNanos;
    /** Until when, on {@code nanoTime}'s scale, the connection is not read because its client is throttled. */
    private long mutedUntilNanos;

    private volatile boolean handling;

    Connection(
            String id,
            SocketChannel socket,
            RequestDispatcher dispatcher,
            NetworkLimits limits,
            NetworkStats stats,
            ConnectionThreads threads,
            Runnable onClose) {
        this(
                id,
                socket,
                Listener.plaintext(new InetSocketAddress("127.0.0.1", 0)),
                dispatcher,
                limits,
                stats,
                threads,
                new RequestMemory(Long.MAX_VALUE),
                System::nanoTime,
                onClose);
    }

    Connection(
            String id,
            SocketChannel socket,
            Listener listener,
            RequestDispatcher dispatcher,
            NetworkLimits limits,
            NetworkStats stats,
            ConnectionThreads threads,
            RequestMemory memory,
            LongSupplier nanoTime,
            Runnable onClose) {
        this.id = id;
        this.socket = socket;
        this.listener = listener;
        this.transport = listener.protocol().usesTls()
                ? new TlsTransport(socket, listener.tlsEngines().get())
                : new PlaintextTransport(socket);
        this.dispatcher = dispatcher;
        this.limits = limits;
        this.stats = stats;
        this.threads = threads;
        this.memory = memory;
        this.nanoTime = nanoTime;
        this.onClose = onClose;
        this.lastActivityNanos = nanoTime.getAsLong();
    }

    String id() {
        return id;
    }

    /**
     * When this connection last completed a request or was opened, on {@code nanoTime}'s scale; now while it handles
     * one. A frame still arriving, however slowly, is not activity: a client that sends a byte a second is idle.
     */
    long idleSinceNanos() {
        return handling ? nanoTime.getAsLong() : lastActivityNanos;
    }

    @Override
    public void run() {
        String host = "unknown";
        ReplyWriter writer = new ReplyWriter(id, transport, stats, MAX_OUTSTANDING_REPLIES);
        boolean answerPending = false;
        try {
            SocketAddress remote = socket.getRemoteAddress();
            host = remote.toString();
            try {
                transport.handshake();
            } catch (SSLException e) {
                log.atInfo()
                        .addKeyValue("connection", id)
                        .addKeyValue("remote", host)
                        .addKeyValue("listener", listener.name())
                        .addKeyValue("error", e.getMessage())
                        .log("Closing a connection: TLS handshake failed");
                return;
            }
            KafkaPrincipal certificate = transport
                    .peerPrincipal()
                    .map(p -> KafkaPrincipal.user(p.getName()))
                    .orElse(null);
            ConnectionSession session = ConnectionSession.open(
                    listener.name(),
                    listener.protocol(),
                    remote instanceof InetSocketAddress inet ? inet.getAddress().getHostAddress() : host,
                    listener.saslMechanisms(),
                    certificate);
            answerPending = serve(new ClientInfo(id, "", host, session), writer);
        } catch (EOFException e) {
            log.atDebug()
                    .addKeyValue("connection", id)
                    .addKeyValue("remote", host)
                    .log("Connection closed by the client mid-request");
        } catch (IOException e) {
            log.atDebug()
                    .addKeyValue("connection", id)
                    .addKeyValue("remote", host)
                    .addKeyValue("error", e.toString())
                    .log("Connection failed");
        } catch (InterruptedException e) {
            log.atDebug().addKeyValue("connection", id).log("Connection interrupted");
        } catch (RuntimeException e) {
            log.atError()
                    .setCause(e)
                    .addKeyValue("connection", id)
                    .addKeyValue("remote", host)
                    .log("Closing a connection after an unexpected failure");
        } finally {
            if (answerPending && writerThread != null) {
                finishAnswering(writer, writerThread);
            }
            close();
            if (writerThread != null) {
                writerThread.interrupt();
            }
        }
    }

    /**
     * Reads and dispatches requests until the connection must close.
     *
     * @return true when it closes for a reason of its own (end of stream between requests, an oversized or
     *     malformed frame) and the earlier requests' answers should still be sent first
     */
    private boolean serve(ClientInfo client, ReplyWriter writer) throws IOException, InterruptedException {
        ByteBuffer sizeBuf = ByteBuffer.allocate(4);
        while (true) {
            awaitUnmuted();
            sizeBuf.clear();
            if (!readFully(sizeBuf, true)) {
                return true; // the client closed its side between requests
            }
            int size = sizeBuf.getInt(0);
            if (size < 0 || size > limits.maxRequestBytes()) {
                log.atWarn()
                        .addKeyValue("connection", id)
                        .addKeyValue("remote", client.host())
                        .addKeyValue("requestBytes", size)
                        .addKeyValue("socketRequestMaxBytes", limits.maxRequestBytes())
                        .log("Closing a connection: its request exceeds socket.request.max.bytes");
                stats.rejected();
                return true;
            }
            if (!memory.fits(size)) {
                log.atWarn()
                        .addKeyValue("connection", id)
                        .addKeyValue("remote", client.host())
                        .addKeyValue("requestBytes", size)
                        .addKeyValue("queuedMaxRequestBytes", memory.budget())
                        .log("Closing a connection: its request exceeds queued.max.request.bytes");
                stats.rejected();
                return true;
            }
            long waitUntil = nanoTime.getAsLong() + RequestMemory.MAX_WAIT.toNanos();
            if (!memory.reserve(size, () -> transport.isOpen() && nanoTime.getAsLong() < waitUntil)) {
                if (transport.isOpen()) {
                    log.atWarn()
                            .addKeyValue("connection", id)
                            .addKeyValue("remote", client.host())
                            .addKeyValue("requestBytes", size)
                            .addKeyValue("waitedMs", RequestMemory.MAX_WAIT.toMillis())
                            .log("Closing a connection: its request found no room in queued.max.request.bytes");
                    stats.rejected();
                }
                return false;
            }
            RequestFrame frame = null;
            try {
                frame = new RequestFrame(readFrame(size), () -> memory.release(size));
                stats.received(4L + size);
                handling = true;
                if (!handle(client, writer, frame)) {
                    return !client.session().mustClose();
                }
            } finally {
                lastActivityNanos = nanoTime.getAsLong();
                handling = false;
                if (frame == null) {
                    memory.release(size);
                } else {
                    frame.release();
                }
            }
        }
    }

    /**
     * Answers one request, or hands its answer to the writer.
     *
     * @return false when the connection must close after it
     */
    private boolean handle(ClientInfo client, ReplyWriter writer, RequestFrame frame)
            throws IOException, InterruptedException {
        try {
            if (client.session().expectsRawToken()) {
                writer.awaitAllWritten();
                writer.writeNow(dispatcher.rawSaslToken(client, frame));
                return true;
            }
            if (dispatcher.mayOverlap(frame)) {
                if (writerThread == null) {
                    writerThread = threads.start(id + "-writer", writer);
                }
                writer.submit(muteFor(dispatcher.dispatch(client, frame)));
            } else {
                writer.awaitAllWritten();
                writer.writeNow(muteFor(dispatcher.dispatch(client, frame)));
                if (client.session().mustClose()) {
                    return false;
                }
            }
            return true;
        } catch (UnauthenticatedRequestException e) {
            stats.rejected();
            log.atInfo()
                    .addKeyValue("connection", id)
                    .addKeyValue("remote", client.host())
                    .addKeyValue("listener", listener.name())
                    .addKeyValue("problem", e.getMessage())
                    .log("Closing a connection: request before the SASL login");
            return false;
        } catch (MalformedRequestException e) {
            stats.rejected();
            log.atWarn()
                    .addKeyValue("connection", id)
                    .addKeyValue("remote", client.host())
                    .addKeyValue("problem", e.getMessage())
                    .log("Closing a connection: malformed request");
            return false;
        }
    }

    /** Notes the reply's throttle time: the connection is not read again before it has passed. */
    private RequestDispatcher.Reply muteFor(RequestDispatcher.Reply reply) {
        if (reply.throttleMs() > 0) {
            mutedUntilNanos =
                    Math.max(mutedUntilNanos, nanoTime.getAsLong() + TimeUnit.MILLISECONDS.toNanos(reply.throttleMs()));
        }
        return reply;
    }

    /** Waits out a throttle before reading the next request. */
    private void awaitUnmuted() throws InterruptedException {
        long wait;
        while ((wait = mutedUntilNanos - nanoTime.getAsLong()) > 0) {
            TimeUnit.NANOSECONDS.sleep(wait);
        }
    }

    /** Lets the writer send what is queued; its waits are bounded by the requests' own timeouts. */
    private void finishAnswering(ReplyWriter writer, Thread writerThread) {
        writer.finish();
        try {
            writerThread.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Reads a frame of {@code size} bytes. The buffer grows as the bytes arrive instead of being sized by the
     * size field alone: otherwise four bytes claiming {@code socket.request.max.bytes} would reserve that much
     * heap per connection, and a few hundred idle connections could exhaust it.
     */
    private ByteBuffer readFrame(int size) throws IOException {
        ByteBuffer frame = ByteBuffer.allocate(Math.min(size, INITIAL_FRAME_BYTES));
        readFully(frame, false);
        while (frame.capacity() < size) {
            ByteBuffer larger = ByteBuffer.allocate((int) Math.min(size, 2L * frame.capacity()));
            larger.put(frame.flip());
            readFully(larger, false);
            frame = larger;
        }
        return frame.flip();
    }

    /** Fills the buffer; false if the stream ended before any byte was read and {@code eofOk}. */
    private boolean readFully(ByteBuffer buf, boolean eofOk) throws IOException {
        while (buf.hasRemaining()) {
            int n = transport.read(buf);
            if (n < 0) {
                if (eofOk && buf.position() == 0) {
                    return false;
                }
                throw new EOFException("Stream ended with " + buf.remaining() + " bytes of a frame missing");
            }
        }
        return true;
    }

    /** Closes the socket and uncounts the connection, once; any thread may call it. */
    void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        try {
            transport.close();
        } catch (IOException e) {
            log.debug("Closing {}: {}", id, e.toString());
        }
        onClose.run();
    }
}
