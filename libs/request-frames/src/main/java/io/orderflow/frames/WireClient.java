package io.orderflow.frames;

import java.io.Closeable;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.RequestHeader;

/**
 * A Kafka client that is nothing but a socket: it writes exactly the bytes it is given, so a test can send what
 * no real client would (oversized, truncated, pipelined or corrupt frames) and then read the broker's answers
 * or see it hang up. Every read gives up after {@link #READ_TIMEOUT_MS} (or the timeout given), so a broker that
 * neither answers nor closes fails the test, or the probe, instead of hanging it. Not thread-safe.
 */
public final class WireClient implements Closeable {
    public static final int READ_TIMEOUT_MS = 15_000;

    private final Socket socket;
    private final DataInputStream in;
    private final OutputStream out;

    private WireClient(Socket socket) throws IOException {
        this.socket = socket;
        this.in = new DataInputStream(socket.getInputStream());
        this.out = socket.getOutputStream();
    }

    public static WireClient connect(int port) throws IOException {
        return connect(port, 0);
    }

    /** A client whose socket buffers at most about {@code receiveBufferBytes} of answers it has not read. */
    public static WireClient connect(int port, int receiveBufferBytes) throws IOException {
        return connect(new InetSocketAddress("127.0.0.1", port), receiveBufferBytes, READ_TIMEOUT_MS);
    }

    /** A client of {@code address} that gives up connecting, and then each read, after {@code timeoutMillis}. */
    public static WireClient connect(InetSocketAddress address, int timeoutMillis) throws IOException {
        return connect(address, 0, timeoutMillis);
    }

    private static WireClient connect(InetSocketAddress address, int receiveBufferBytes, int timeoutMillis)
            throws IOException {
        Socket socket = new Socket();
        try {
            if (receiveBufferBytes > 0) {
                socket.setReceiveBufferSize(receiveBufferBytes);
            }
            socket.setTcpNoDelay(true);
            socket.setSoTimeout(timeoutMillis);
            socket.connect(address, timeoutMillis);
            return new WireClient(socket);
        } catch (IOException e) {
            socket.close();
            throw e;
        }
    }

    /** A client over a socket already connected to the broker; reads give up after {@link #READ_TIMEOUT_MS}. */
    public static WireClient over(Socket connected) throws IOException {
        connected.setSoTimeout(READ_TIMEOUT_MS);
        return new WireClient(connected);
    }

    /** A client over TLS, trusting what {@code tls} trusts; the handshake is done when this returns. */
    public static WireClient connectTls(int port, javax.net.ssl.SSLSocketFactory tls) throws IOException {
        Socket plain = new Socket();
        plain.setTcpNoDelay(true);
        plain.setSoTimeout(READ_TIMEOUT_MS);
        plain.connect(new InetSocketAddress("127.0.0.1", port), READ_TIMEOUT_MS);
        javax.net.ssl.SSLSocket secured = (javax.net.ssl.SSLSocket) tls.createSocket(plain, "127.0.0.1", port, true);
        secured.startHandshake();
        return new WireClient(secured);
    }

    /** A request as a client frames it, without the 4-byte size: header then body. */
    public static byte[] frame(AbstractRequest request, RequestHeader header) {
        ByteBuffer buf = request.serializeWithHeader(header);
        byte[] bytes = new byte[buf.remaining()];
        buf.get(bytes);
        return bytes;
    }

    /** Frames and sends {@code request}; returns its header, to read the answer with. */
    public RequestHeader send(AbstractRequest request, int correlationId) throws IOException {
        RequestHeader header = new RequestHeader(request.apiKey(), request.version(), "wire-client", correlationId);
        sendFrame(frame(request, header));
        return header;
    }

    /** Sends {@code frame} behind a size prefix that matches it. */
    public void sendFrame(byte[] frame) throws IOException {
        sendRaw(withSize(frame));
    }

    /** Sends exactly {@code bytes}: no size prefix is added. */
    public void sendRaw(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
    }

    public static byte[] withSize(byte[] frame) {
        return ByteBuffer.allocate(4 + frame.length)
                .putInt(frame.length)
                .put(frame)
                .array();
    }

    /** One response frame, without its size prefix. */
    public ByteBuffer receiveFrame() throws IOException {
        int size = in.readInt();
        byte[] bytes = new byte[size];
        in.readFully(bytes);
        return ByteBuffer.wrap(bytes);
    }

    /** The answer to the request sent with {@code header}; fails if the correlation id is another's. */
    public AbstractResponse receive(RequestHeader header) throws IOException {
        ByteBuffer frame = receiveFrame();
        int correlationId = frame.getInt(0);
        if (correlationId != header.correlationId()) {
            throw new AssertionError("Expected the answer to " + header.apiKey() + " with correlation id "
                    + header.correlationId() + ", got correlation id " + correlationId);
        }
        return AbstractResponse.parseResponse(frame, header);
    }

    /**
     * Waits for the broker to close the connection; true when it did (end of stream or reset), false when it
     * answered something instead. A broker that does neither within the read timeout fails the caller.
     */
    public boolean closedByBroker() throws IOException {
        try {
            return in.read() < 0;
        } catch (EOFException | SocketException e) {
            return true;
        } catch (SocketTimeoutException e) {
            throw new AssertionError("The broker neither answered nor closed within " + READ_TIMEOUT_MS + " ms", e);
        }
    }

    /** Half-closes: the broker reads end of stream, while answers can still be read. */
    public void shutdownOutput() throws IOException {
        socket.shutdownOutput();
    }

    public void readTimeout(int millis) throws SocketException {
        socket.setSoTimeout(millis);
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
