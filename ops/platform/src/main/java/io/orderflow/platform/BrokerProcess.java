package io.orderflow.platform;

import io.orderflow.process.OrderflowBrokerLauncher;
import io.orderflow.process.RunningBroker;
import io.orderflow.process.ServiceStartException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Our log broker as a process of the platform: log-broker's {@code BrokerMain} on this JVM's class path, started by
 * service-process's {@link OrderflowBrokerLauncher} (the one launcher of the broker), so that it can be killed with
 * SIGKILL and started again like any service (the broker-failure drill, {@code ./run-platform kill log-broker}), and
 * its crash is not the launcher's.
 *
 * <p>The Kafka and metrics ports are fixed at the first start (0 picks free loopback ports then) and kept by {@link
 * #restart}, so that every client's {@code bootstrap.servers} stays valid across a crash. It listens on 127.0.0.1 and
 * advertises {@code localhost}, with every setting at the broker's default; it is ready when it answers ApiVersions
 * and its {@code /health} answers 200. Its pid file lets the next launcher stop an orphan left by a launcher killed
 * with {@code kill -9}.
 *
 * <p><b>Crash behaviour.</b> {@link #close} sends SIGTERM: the broker flushes and leaves each partition's clean-shutdown
 * marker. After {@link #killNine} the next start recovers the log (what {@code acks=all} acknowledged was on disk).
 *
 * <p>Thread-safe as {@link RunningBroker} is; the owner serialises kills and restarts.
 */
final class BrokerProcess implements AutoCloseable {

    static final String NAME = "log-broker";
    static final String MAIN_CLASS = OrderflowBrokerLauncher.MAIN_CLASS;
    private static final String LISTEN_HOST = "127.0.0.1";
    private static final String ADVERTISED_HOST = "localhost";
    private static final OrderflowBrokerLauncher LAUNCHER =
            OrderflowBrokerLauncher.onClasspath(System.getProperty("java.class.path"), List.of("-Xmx512m"), List.of());

    private final RunningBroker broker;
    private final OrderflowBrokerLauncher.Listener listener; // null: PLAINTEXT
    private final Path dataDirectory;
    private final Path logFile;
    private final Path pidFile;

    private BrokerProcess(
            RunningBroker broker,
            OrderflowBrokerLauncher.Listener listener,
            Path dataDirectory,
            Path logFile,
            Path pidFile) {
        this.broker = broker;
        this.listener = listener;
        this.dataDirectory = dataDirectory;
        this.logFile = logFile;
        this.pidFile = pidFile;
    }

    /**
     * Starts the broker on {@code port} and {@code metricsPort} (0: a free one) with its log in {@code dataDirectory},
     * its output in {@code logFile}, listening through {@code listener} ({@code null}: PLAINTEXT); returns once it is
     * ready.
     *
     * @throws ServiceStartException naming the ports and directory if it exits or is not ready in time
     */
    static BrokerProcess start(
            Path dataDirectory,
            int port,
            int metricsPort,
            Path logFile,
            Path pidFile,
            OrderflowBrokerLauncher.Listener listener) {
        OrderflowBrokerLauncher.Addresses addresses =
                new OrderflowBrokerLauncher.Addresses(LISTEN_HOST, port, ADVERTISED_HOST, metricsPort);
        try {
            OrderflowBrokerLauncher launcher = listener == null ? LAUNCHER : LAUNCHER.withListener(listener);
            return new BrokerProcess(
                    launcher.start(addresses, dataDirectory, logFile, pidFile),
                    listener,
                    dataDirectory,
                    logFile,
                    pidFile);
        } catch (ServiceStartException e) {
            throw new ServiceStartException(
                    "The log broker did not start on " + LISTEN_HOST + " (Kafka port " + describe(port)
                            + ", metrics port " + describe(metricsPort) + ", data in "
                            + dataDirectory.toAbsolutePath() + "). --broker-port and --metrics-port choose other"
                            + " ports (0 picks any free one). " + e.getMessage(),
                    e);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot start the log broker: " + e.getMessage(), e);
        }
    }

    /** The same broker started again on the same ports and log, once this process has ended. */
    BrokerProcess restart() {
        if (broker.isAlive()) {
            throw new IllegalStateException(NAME + " is running (pid " + broker.pid() + ")");
        }
        return start(dataDirectory, port(), metricsPort(), logFile, pidFile, listener);
    }

    int port() {
        return broker.addresses().port();
    }

    Path dataDirectory() {
        return dataDirectory;
    }

    int metricsPort() {
        return broker.addresses().metricsPort();
    }

    String bootstrapServers() {
        return broker.bootstrapServers();
    }

    URI http(String path) {
        return broker.http(path);
    }

    long pid() {
        return broker.pid();
    }

    Path logFile() {
        return logFile;
    }

    boolean isAlive() {
        return broker.isAlive();
    }

    CompletableFuture<Integer> onExit() {
        return broker.onExit();
    }

    String tail(int lines) {
        return broker.tail(lines);
    }

    /** SIGKILL, as a crash would; returns once the process is gone. */
    void killNine() {
        broker.kill();
    }

    @Override
    public void close() {
        broker.close();
    }

    private static String describe(int port) {
        return port == 0 ? "any free one" : Integer.toString(port);
    }
}
