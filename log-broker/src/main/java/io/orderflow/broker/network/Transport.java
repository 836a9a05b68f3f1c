package io.orderflow.broker.network;

import java.io.IOException;
import java.nio.channels.ReadableByteChannel;
import java.security.Principal;
import java.util.Optional;
import org.apache.kafka.common.network.TransferableChannel;

/**
 * A connection's byte stream as the connection reads frames from it and the response encoder writes answers to it:
 * the socket itself ({@link PlaintextTransport}) or TLS over it ({@link TlsTransport}). Reads and writes are
 * blocking; one thread reads and one writes at a time.
 */
sealed interface Transport extends ReadableByteChannel, TransferableChannel permits PlaintextTransport, TlsTransport {
    /** Completes what must happen before the first frame (the TLS handshake); a no-op for plain TCP. */
    void handshake() throws IOException;

    /** The client certificate's subject when TLS authenticated the client, else empty. */
    Optional<Principal> peerPrincipal();

    /** Application bytes written so far (the answers' bytes, before any encryption). */
    long bytesWritten();
}
