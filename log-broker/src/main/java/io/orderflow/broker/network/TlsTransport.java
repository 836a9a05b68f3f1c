package io.orderflow.broker.network;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.SocketChannel;
import java.security.Principal;
import java.util.Optional;
import java.util.concurrent.locks.ReentrantLock;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLPeerUnverifiedException;

/**
 * TLS over a blocking socket through the JDK's {@link SSLEngine}: the engine does every cryptographic step; this
 * class only moves bytes between it and the socket.
 *
 * <p><b>Buffers.</b> {@code netIn} holds bytes read from the socket and not yet decrypted, {@code appIn} decrypted
 * bytes not yet handed to the reader; both are kept in read mode (the data lies between position and limit).
 * {@code netOut} collects encrypted records on their way out, up to {@link #RECORDS_PER_WRITE} of them per
 * socket write, so a 64 KiB chunk of a segment file leaves in one system call rather than four.
 *
 * <p><b>Threads.</b> The connection's reading thread calls {@link #read}, its writing thread {@link #write} and
 * {@link #transferFrom}; the engine allows {@code wrap} and {@code unwrap} to run concurrently. Everything that
 * wraps takes {@code writeLock}, so records leave the socket whole and in order, including the ones the reader
 * must send itself (a TLS 1.3 key update's answer, a close_notify).
 *
 * <p><b>Zero copy.</b> There is none: record batches stored in segment files are read into a buffer and encrypted
 * (sendfile cannot encrypt), which is the cost {@code ops/bench/kafka-perf --security} measures.
 */
final class TlsTransport implements Transport {
    private static final int FILE_CHUNK = 64 * 1024;
    static final int RECORDS_PER_WRITE = 4;

    private final SocketChannel socket;
    private final SSLEngine engine;
    private final ReentrantLock writeLock = new ReentrantLock();
    private ByteBuffer netIn;
    private ByteBuffer appIn;
    private ByteBuffer netOut;
    private ByteBuffer fileChunk;
    private long written;
    private boolean inboundClosed;

    TlsTransport(SocketChannel socket, SSLEngine engine) {
        this.socket = socket;
        this.engine = engine;
        int packet = engine.getSession().getPacketBufferSize();
        this.netIn = ByteBuffer.allocate(packet).flip();
        this.appIn = ByteBuffer.allocate(engine.getSession().getApplicationBufferSize())
                .flip();
        this.netOut = ByteBuffer.allocate(packet);
    }

    @Override
    public void handshake() throws IOException {
        engine.beginHandshake();
        while (true) {
            switch (engine.getHandshakeStatus()) {
                case NEED_UNWRAP, NEED_UNWRAP_AGAIN -> {
                    if (!unwrapOnce()) {
                        throw new EOFException("The client closed the connection during the TLS handshake");
                    }
                }
                case NEED_WRAP -> wrapHandshake();
                case NEED_TASK -> runTasks();
                case FINISHED, NOT_HANDSHAKING -> {
                    return;
                }
            }
        }
    }

    @Override
    public Optional<Principal> peerPrincipal() {
        try {
            return Optional.of(engine.getSession().getPeerPrincipal());
        } catch (SSLPeerUnverifiedException e) {
            return Optional.empty();
        }
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
        while (!appIn.hasRemaining()) {
            if (inboundClosed || !unwrapOnce()) {
                return -1;
            }
        }
        int n = Math.min(dst.remaining(), appIn.remaining());
        ByteBuffer slice = appIn.slice(appIn.position(), n);
        dst.put(slice);
        appIn.position(appIn.position() + n);
        return n;
    }

    /**
     * Decrypts one record into {@code appIn}, reading from the socket as needed, and does what the engine asks
     * for afterwards (a task, an answer to send).
     *
     * @return false at the end of the stream or after the client's close_notify
     */
    private boolean unwrapOnce() throws IOException {
        while (true) {
            appIn.compact();
            SSLEngineResult result;
            try {
                result = engine.unwrap(netIn, appIn);
            } finally {
                appIn.flip();
            }
            switch (result.getStatus()) {
                case OK -> {
                    afterUnwrap(result);
                    return true;
                }
                case BUFFER_UNDERFLOW -> {
                    if (!fillNetIn()) {
                        return false;
                    }
                }
                case BUFFER_OVERFLOW -> appIn = grow(appIn, engine.getSession().getApplicationBufferSize());
                case CLOSED -> {
                    inboundClosed = true;
                    afterUnwrap(result);
                    return false;
                }
            }
        }
    }

    private void afterUnwrap(SSLEngineResult result) throws IOException {
        SSLEngineResult.HandshakeStatus status = result.getHandshakeStatus();
        while (status == SSLEngineResult.HandshakeStatus.NEED_TASK
                || status == SSLEngineResult.HandshakeStatus.NEED_WRAP) {
            if (status == SSLEngineResult.HandshakeStatus.NEED_TASK) {
                runTasks();
            } else {
                wrapHandshake();
            }
            status = engine.getHandshakeStatus();
        }
    }

    /** Reads more encrypted bytes; false at the end of the stream. */
    private boolean fillNetIn() throws IOException {
        netIn.compact();
        try {
            if (!netIn.hasRemaining()) {
                netIn = grow(netIn.flip(), engine.getSession().getPacketBufferSize())
                        .compact();
            }
            return socket.read(netIn) >= 0;
        } finally {
            netIn.flip();
        }
    }

    /** A larger buffer holding what {@code buffer} (in read mode) holds, in read mode. */
    private static ByteBuffer grow(ByteBuffer buffer, int atLeast) {
        ByteBuffer larger = ByteBuffer.allocate(Math.max(atLeast, 2 * buffer.capacity()));
        larger.put(buffer);
        return larger.flip();
    }

    private void runTasks() {
        Runnable task;
        while ((task = engine.getDelegatedTask()) != null) {
            task.run();
        }
    }

    /** Sends what the engine wants to send of its own (handshake messages, alerts). */
    private void wrapHandshake() throws IOException {
        writeLock.lock();
        try {
            wrapAndSend(new ByteBuffer[] {ByteBuffer.allocate(0)}, 0, 1);
        } finally {
            writeLock.unlock();
        }
    }

    @Override
    public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
        writeLock.lock();
        try {
            long total = 0;
            int packet = engine.getSession().getPacketBufferSize();
            netOut.clear();
            while (hasRemaining(srcs, offset, length)) {
                if (netOut.remaining() < packet) {
                    flushNetOut();
                }
                SSLEngineResult result = engine.wrap(srcs, offset, length, netOut);
                switch (result.getStatus()) {
                    case OK -> {
                        total += result.bytesConsumed();
                        if (result.getHandshakeStatus() == SSLEngineResult.HandshakeStatus.NEED_TASK) {
                            runTasks();
                        }
                    }
                    case BUFFER_OVERFLOW -> {
                        if (netOut.position() > 0) {
                            flushNetOut();
                        } else {
                            netOut = ByteBuffer.allocate(Math.max(packet, 2 * netOut.capacity()));
                        }
                    }
                    case CLOSED -> throw new SSLException("The TLS session is closed");
                    case BUFFER_UNDERFLOW -> throw new SSLException("Unexpected underflow while encrypting");
                }
            }
            flushNetOut();
            written += total;
            return total;
        } finally {
            writeLock.unlock();
        }
    }

    /** Writes what {@code netOut} holds, whole, and empties it. */
    private void flushNetOut() throws IOException {
        netOut.flip();
        while (netOut.hasRemaining()) {
            socket.write(netOut);
        }
        netOut.clear();
    }

    private static boolean hasRemaining(ByteBuffer[] srcs, int offset, int length) {
        for (int i = offset; i < offset + length; i++) {
            if (srcs[i].hasRemaining()) {
                return true;
            }
        }
        return false;
    }

    /**
     * Encrypts one record of {@code srcs} (a handshake message or an alert when they are empty) and writes it whole;
     * returns the plaintext bytes it consumed.
     */
    private int wrapAndSend(ByteBuffer[] srcs, int offset, int length) throws IOException {
        while (true) {
            netOut.clear();
            SSLEngineResult result = engine.wrap(srcs, offset, length, netOut);
            switch (result.getStatus()) {
                case OK, CLOSED -> {
                    netOut.flip();
                    while (netOut.hasRemaining()) {
                        socket.write(netOut);
                    }
                    if (result.getStatus() == SSLEngineResult.Status.CLOSED && result.bytesConsumed() == 0) {
                        if (hasRemaining(srcs, offset, length)) {
                            throw new SSLException("The TLS session is closed");
                        }
                    }
                    if (result.getHandshakeStatus() == SSLEngineResult.HandshakeStatus.NEED_TASK) {
                        runTasks();
                    }
                    return result.bytesConsumed();
                }
                case BUFFER_OVERFLOW ->
                    netOut = ByteBuffer.allocate(
                            Math.max(engine.getSession().getPacketBufferSize(), 2 * netOut.capacity()));
                case BUFFER_UNDERFLOW -> throw new SSLException("Unexpected underflow while encrypting");
            }
        }
    }

    @Override
    public long write(ByteBuffer[] srcs) throws IOException {
        return write(srcs, 0, srcs.length);
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
        return (int) write(new ByteBuffer[] {src}, 0, 1);
    }

    @Override
    public long transferFrom(FileChannel file, long position, long count) throws IOException {
        if (fileChunk == null) {
            fileChunk = ByteBuffer.allocateDirect(FILE_CHUNK);
        }
        fileChunk.clear().limit((int) Math.min(FILE_CHUNK, count));
        int read = file.read(fileChunk, position);
        if (read <= 0) {
            throw new IOException("Segment file ended at " + position + " with " + count + " bytes to send");
        }
        fileChunk.flip();
        return write(fileChunk);
    }

    @Override
    public boolean hasPendingWrites() {
        return false;
    }

    @Override
    public long bytesWritten() {
        return written;
    }

    @Override
    public boolean isOpen() {
        return socket.isOpen();
    }

    /** Sends close_notify when the socket still takes it, then closes the socket. */
    @Override
    public void close() throws IOException {
        try {
            if (socket.isOpen() && writeLock.tryLock()) {
                try {
                    engine.closeOutbound();
                    wrapAndSend(new ByteBuffer[] {ByteBuffer.allocate(0)}, 0, 1);
                } finally {
                    writeLock.unlock();
                }
            }
        } catch (IOException e) {
            // the peer is gone; closing the socket is all that is left
        } finally {
            socket.close();
        }
    }
}
