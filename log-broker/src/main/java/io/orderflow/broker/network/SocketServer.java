package io.orderflow.broker.network;

import io.orderflow.broker.handler.RequestDispatcher;
import java.io.Closeable;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One of the broker's Kafka listeners ({@link Listener}): one platform thread accepts, and every connection runs
 * on threads of its own ({@link Connection}; platform or virtual, see {@link ConnectionThreads}), so a slow client
 * delays nobody else. Closing stops accepting and closes every connection. {@code max.connections} counts this
 * listener's connections.
 */
public final class SocketServer implements Closeable {
    private static final Logger log = LoggerFactory.getLogger(SocketServer.class);

    private final ServerSocketChannel server;
    private final Listener listener;
    private volatile RequestDispatcher dispatcher;
    private final NetworkLimits limits;
    private final ConnectionThreads threads;
    private final NetworkStats stats;
    private final Map<String, SocketChannel> open = new ConcurrentHashMap<>();
    private final AtomicLong ids = new AtomicLong();
    private final Thread acceptor;

    private SocketServer(
            ServerSocketChannel server,
            Listener listener,
            NetworkLimits limits,
            ConnectionThreads threads,
            NetworkStats stats) {
        this.server = server;
        this.stats = stats;
        this.listener = listener;
        this.limits = limits;
        this.threads = threads;
        this.acceptor = Thread.ofPlatform()
                .name("broker-acceptor-" + listener.name())
                .daemon(true)
                .unstarted(this::acceptLoop);
    }

    /**
     * Binds {@code address} (port 0 picks a free one) without accepting yet, so the broker can advertise the
     * real port before it serves anyone.
     */
    public static SocketServer bind(InetSocketAddress address, NetworkLimits limits, ConnectionThreads threads)
            throws IOException {
        return bind(Listener.plaintext(address), limits, threads);
    }

    /** Binds {@code listener}'s address (port 0 picks a free one) without accepting yet. */
    public static SocketServer bind(Listener listener, NetworkLimits limits, ConnectionThreads threads)
            throws IOException {
        return bind(listener, limits, threads, new NetworkStats());
    }

    /** As above, counting into {@code stats}, which several listeners may share. */
    public static SocketServer bind(
            Listener listener, NetworkLimits limits, ConnectionThreads threads, NetworkStats stats) throws IOException {
        ServerSocketChannel server = ServerSocketChannel.open();
        server.setOption(StandardSocketOptions.SO_REUSEADDR, true);
        server.bind(listener.address(), 1024);
        return new SocketServer(server, listener, limits, threads, stats);
    }

    public Listener listener() {
        return listener;
    }

    /** Starts accepting connections and handing their requests to {@code requests}. */
    public void start(RequestDispatcher requests) {
        this.dispatcher = requests;
        acceptor.start();
    }

    public int port() {
        try {
            return ((InetSocketAddress) server.getLocalAddress()).getPort();
        } catch (IOException e) {
            throw new IllegalStateException("Listener is closed", e);
        }
    }

    public NetworkStats stats() {
        return stats;
    }

    public int connectionCount() {
        return open.size();
    }

    private void acceptLoop() {
        while (server.isOpen()) {
            try {
                SocketChannel socket = server.accept();
                if (open.size() >= limits.maxConnections()) {
                    log.atWarn()
                            .addKeyValue("remote", remote(socket))
                            .addKeyValue("maxConnections", limits.maxConnections())
                            .log("Refusing a connection: max.connections reached");
                    socket.close();
                    continue;
                }
                socket.setOption(StandardSocketOptions.TCP_NODELAY, true);
                String id = "conn-" + ids.incrementAndGet();
                open.put(id, socket);
                stats.accepted();
                Connection connection =
                        new Connection(id, socket, listener, dispatcher, limits, stats, threads, () -> open.remove(id));
                threads.start(id, connection);
            } catch (ClosedChannelException e) {
                return;
            } catch (IOException e) {
                if (server.isOpen()) {
                    log.atWarn().addKeyValue("error", e.toString()).log("Accepting a connection failed");
                }
            }
        }
    }

    private static String remote(SocketChannel socket) {
        try {
            return String.valueOf(socket.getRemoteAddress());
        } catch (IOException e) {
            return "unknown";
        }
    }

    @Override
    public void close() {
        try {
            server.close();
        } catch (IOException e) {
            log.debug("Closing the listener: {}", e.toString());
        }
        for (SocketChannel socket : open.values()) {
            try {
                socket.close();
            } catch (IOException e) {
                log.debug("Closing a connection: {}", e.toString());
            }
        }
        try {
            acceptor.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
