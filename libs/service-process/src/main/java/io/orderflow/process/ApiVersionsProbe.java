package io.orderflow.process;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;

/**
 * Asks a broker for its ApiVersions (v0, the request every Kafka client sends first) over a raw socket and
 * reports whether a well-formed answer came back. This is what "start-up time to accepting connections" means
 * here: the broker answers a request, not merely has its port bound. (Apache Kafka binds its client listener
 * only when it enables request processing at the end of start-up, so the two coincide for it; the probe keeps
 * the definition the same for any broker.)
 *
 * <p>No Kafka classes: the benchmark JVM stays free of any client or server library.
 */
final class ApiVersionsProbe {
    private static final short API_VERSIONS = 18;
    private static final byte[] CLIENT_ID = "kafka-perf-probe".getBytes(StandardCharsets.UTF_8);

    private ApiVersionsProbe() {}

    /** True if {@code host:port} answered an ApiVersions v0 request within {@code timeoutMillis}. */
    static boolean answers(String host, int port, int timeoutMillis) {
        return answers(host, port, timeoutMillis, null);
    }

    /**
     * As above, over TLS when {@code tls} is not null (a TLS listener; ApiVersions is answered before any SASL
     * login, so the probe needs no credentials).
     */
    static boolean answers(String host, int port, int timeoutMillis, SSLSocketFactory tls) {
        int correlationId = 0x0bad_cafe;
        try (Socket plain = new Socket()) {
            plain.connect(new InetSocketAddress(host, port), timeoutMillis);
            plain.setSoTimeout(timeoutMillis);
            Socket socket = plain;
            if (tls != null) {
                SSLSocket secured = (SSLSocket) tls.createSocket(plain, host, port, true);
                secured.startHandshake();
                socket = secured;
            }
            DataOutputStream out = new DataOutputStream(socket.getOutputStream());
            out.writeInt(2 + 2 + 4 + 2 + CLIENT_ID.length); // request header v1, empty v0 body
            out.writeShort(API_VERSIONS);
            out.writeShort(0);
            out.writeInt(correlationId);
            out.writeShort(CLIENT_ID.length);
            out.write(CLIENT_ID);
            out.flush();
            DataInputStream in = new DataInputStream(socket.getInputStream());
            int size = in.readInt();
            return size >= 4 && in.readInt() == correlationId;
        } catch (IOException e) {
            return false;
        }
    }
}
