package io.orderflow.broker.network;

import io.orderflow.broker.handler.RequestDispatcher;
import java.io.Closeable;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One of the broker's Kafka listeners ({@link Listener}): one platform thread accepts, and every connection runs
 * on threads of its own ({@link Connection}; platform or virtual, see {@link ConnectionThreads}), so a slow client
 * delays nobody else. Closing stops accepting and closes every connection.
 *
 * <p>A new connection is counted in the broker's {@link ConnectionQuotas} and closed at once if it exceeds them; its
 * frames draw on the broker's {@link RequestMemory}. A second platform thread closes connections idle for longer
 * than {@code connections.max.idle.ms} (see {@link Connection#idleSinceNanos()}).
 */
public final class SocketServer implements Closeable {
    private static final Logger log = LoggerFactory.getLogger(SocketServer.class);
    /** How long the acceptor pauses after an accept failed (out of file descriptors, most likely). */
    private static final long ACCEPT_RETRY_MS = 50;

    private final ServerSocketChannel server;
    private final Listener listener;
    private volatile RequestDispatcher dispatcher;
    private final NetworkLimits limits;
    private final ConnectionThreads threads;
    private final NetworkStats stats;
    private final ConnectionQuotas quotas;
    private final RequestMemory memory;
    private final LongSupplier nanoTime;
    private final Map<String, Connection> open = new ConcurrentHashMap<>();
    private final AtomicLong ids = new AtomicLong();
    private final Thread acceptor;
    private final Thread idleReaper;
    /** Accepts that failed in a row (acceptor thread only). */
    private long failedAccepts;

    private SocketServer(
            ServerSocketChannel server,
            Listener listener,
            NetworkLimits limits,
            ConnectionThreads threads,
            NetworkStats stats,
            ConnectionQuotas quotas,
            RequestMemory memory,
            LongSupplier nanoTime) {
        this.server = server;
        this.stats = stats;
        this.listener = listener;
        this.limits = limits;
        this.threads = threads;
        this.quotas = quotas;
        this.memory = memory;
        this.nanoTime = nanoTime;
        this.acceptor = Thread.ofPlatform()
                .name("broker-acceptor-" + listener.name())
                .daemon(true)
                .unstarted(this::acceptLoop);
        this.idleReaper = Thread.ofPlatform()
                .name("broker-idle-connections-" + listener.name())
                .daemon(true)
                .unstarted(this::closeIdleConnections);
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
        return bind(
                listener,
                limits,
                threads,
                stats,
                new ConnectionQuotas(limits),
                RequestMemory.of(
                        limits.queuedMaxRequestBytes(), Runtime.getRuntime().maxMemory()),
                System::nanoTime);
    }

    /** As above, with the connection counts and the request memory the broker's listeners share. */
    public static SocketServer bind(
            Listener listener,
            NetworkLimits limits,
            ConnectionThreads threads,
            NetworkStats stats,
            ConnectionQuotas quotas,
            RequestMemory memory,
            LongSupplier nanoTime)
            throws IOException {
        ServerSocketChannel server = ServerSocketChannel.open();
        server.setOption(StandardSocketOptions.SO_REUSEADDR, true);
        server.bind(listener.address(), 1024);
        return new SocketServer(server, listener, limits, threads, stats, quotas, memory, nanoTime);
    }

    public Listener listener() {
        return listener;
    }

    /** Starts accepting connections and handing their requests to {@code requests}. */
    public void start(RequestDispatcher requests) {
        this.dispatcher = requests;
        acceptor.start();
        idleReaper.start();
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
                InetAddress address = address(socket);
                String exceeded = quotas.tryOpen(address);
                if (exceeded != null) {
                    log.atWarn()
                            .addKeyValue("remote", remote(socket))
                            .addKeyValue("listener", listener.name())
                            .addKeyValue("limit", exceeded)
                            .addKeyValue("maxConnections", limits.maxConnections())
                            .addKeyValue("maxConnectionsFromAddress", limits.maxConnections(address))
                            .log("Refusing a connection: " + exceeded + " reached");
                    stats.refused();
                    socket.close();
                    continue;
                }
                String id = "conn-" + ids.incrementAndGet();
                Connection connection = new Connection(
                        id, socket, listener, dispatcher, limits, stats, threads, memory, nanoTime, () -> {
                            open.remove(id);
                            quotas.closed(address);
                        });
                open.put(id, connection);
                stats.accepted();
                try {
                    socket.setOption(StandardSocketOptions.TCP_NODELAY, true);
                    threads.run(id, connection);
                } catch (IOException | RuntimeException e) {
                    connection.close();
                    throw e;
                }
            } catch (ClosedChannelException e) {
                return;
            } catch (IOException | RuntimeException e) {
                if (server.isOpen()) {
                    // Out of file descriptors (EMFILE) the connection stays queued and the next accept fails the same
                    // way at once: pause, so that the acceptor neither spins nor floods the log, and try again.
                    failedAccepts++;
                    if (failedAccepts == 1 || failedAccepts % 1_000 == 0) {
                        log.atWarn()
                                .addKeyValue("error", e.toString())
                                .addKeyValue("failedInARow", failedAccepts)
                                .addKeyValue("retryMs", ACCEPT_RETRY_MS)
                                .log("Accepting a connection failed");
                    }
                    try {
                        Thread.sleep(ACCEPT_RETRY_MS);
                    } catch (InterruptedException interrupted) {
                        return;
                    }
                }
                continue;
            }
            failedAccepts = 0;
        }
    }

    /**
     * Closes every connection that has been idle for longer than {@code connections.max.idle.ms}, looking a few
     * times per that period (at least once a second), until the listener closes.
     */
    private void closeIdleConnections() {
        long idleNanos = TimeUnit.MILLISECONDS.toNanos(limits.connectionsMaxIdleMs());
        long periodMs = Math.max(10, Math.min(1_000, limits.connectionsMaxIdleMs() / 4));
        while (server.isOpen()) {
            long now = nanoTime.getAsLong();
            for (Connection connection : open.values()) {
                if (now - connection.idleSinceNanos() > idleNanos) {
                    log.atInfo()
                            .addKeyValue("connection", connection.id())
                            .addKeyValue("listener", listener.name())
                            .addKeyValue("connectionsMaxIdleMs", limits.connectionsMaxIdleMs())
                            .log("Closing a connection: idle for longer than connections.max.idle.ms");
                    stats.closedIdle();
                    connection.close();
                }
            }
            try {
                Thread.sleep(periodMs);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private static InetAddress address(SocketChannel socket) throws IOException {
        return socket.getRemoteAddress() instanceof InetSocketAddress inet
                ? inet.getAddress()
                : InetAddress.getLoopbackAddress();
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
        idleReaper.interrupt();
        for (Connection connection : open.values()) {
            connection.close();
        }
        try {
            acceptor.join(5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
