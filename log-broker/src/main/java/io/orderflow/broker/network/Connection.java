package io.orderflow.broker.network;

import io.orderflow.broker.handler.ClientInfo;
import io.orderflow.broker.handler.RequestDispatcher;
import io.orderflow.broker.protocol.MalformedRequestException;
import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import org.apache.kafka.common.network.Send;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client connection, run on its own virtual thread: read a size-prefixed frame, dispatch it, write the
 * reply, repeat. Requests of one connection are therefore answered strictly in order, one at a time, which is
 * what Kafka guarantees (its network layer mutes a connection while a request is in flight); pipelined
 * requests simply wait in the socket buffer. A slow or stuck client blocks only its own thread.
 *
 * <p>Closes the connection, and only it, on end of stream, an oversized or unreadable frame, or an I/O error.
 */
final class Connection implements Runnable {
    private static final Logger log = LoggerFactory.getLogger(Connection.class);
    private static final int INITIAL_FRAME_BYTES = 64 * 1024;

    private final String id;
    private final SocketChannel socket;
    private final RequestDispatcher dispatcher;
    private final NetworkLimits limits;
    private final NetworkStats stats;
    private final Runnable onClose;

    Connection(
            String id,
            SocketChannel socket,
            RequestDispatcher dispatcher,
            NetworkLimits limits,
            NetworkStats stats,
            Runnable onClose) {
        this.id = id;
        this.socket = socket;
        this.dispatcher = dispatcher;
        this.limits = limits;
        this.stats = stats;
        this.onClose = onClose;
    }

    @Override
    public void run() {
        String host = "unknown";
        try {
            host = socket.getRemoteAddress().toString();
            ClientInfo client = new ClientInfo(id, "", host);
            SocketOutput out = new SocketOutput(socket);
            ByteBuffer sizeBuf = ByteBuffer.allocate(4);
            while (true) {
                sizeBuf.clear();
                if (!readFully(sizeBuf, true)) {
                    return; // the client closed the connection between requests
                }
                int size = sizeBuf.getInt(0);
                if (size < 0 || size > limits.maxRequestBytes()) {
                    log.atWarn()
                            .addKeyValue("connection", id)
                            .addKeyValue("remote", host)
                            .addKeyValue("requestBytes", size)
                            .addKeyValue("socketRequestMaxBytes", limits.maxRequestBytes())
                            .log("Closing a connection: its request exceeds socket.request.max.bytes");
                    stats.rejected();
                    return;
                }
                ByteBuffer frame = readFrame(size);
                stats.received(4L + size);
                RequestDispatcher.Reply reply = dispatcher.dispatch(client, frame);
                Send send = reply.send();
                if (send != null) {
                    long before = out.bytesWritten();
                    while (!send.completed()) {
                        send.writeTo(out);
                    }
                    stats.sent(out.bytesWritten() - before);
                }
            }
        } catch (MalformedRequestException e) {
            stats.rejected();
            log.atWarn()
                    .addKeyValue("connection", id)
                    .addKeyValue("remote", host)
                    .addKeyValue("problem", e.getMessage())
                    .log("Closing a connection: malformed request");
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
        } catch (RuntimeException e) {
            log.atError()
                    .setCause(e)
                    .addKeyValue("connection", id)
                    .addKeyValue("remote", host)
                    .log("Closing a connection after an unexpected failure");
        } finally {
            close();
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
            int n = socket.read(buf);
            if (n < 0) {
                if (eofOk && buf.position() == 0) {
                    return false;
                }
                throw new EOFException("Stream ended with " + buf.remaining() + " bytes of a frame missing");
            }
        }
        return true;
    }

    void close() {
        try {
            socket.close();
        } catch (IOException e) {
            log.debug("Closing {}: {}", id, e.toString());
        }
        onClose.run();
    }
}
