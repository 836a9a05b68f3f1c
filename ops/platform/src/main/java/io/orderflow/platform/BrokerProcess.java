package io.orderflow.platform;

import io.orderflow.process.ChildProcess;
import io.orderflow.process.ChildProcesses;
import io.orderflow.process.ServiceStartException;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Our log broker as a process of its own: log-broker's {@code BrokerMain} on this JVM's class path, so that it can be
 * killed with SIGKILL and started again like any service (the broker-failure drill, {@code ./run-platform kill
 * log-broker}), and its crash is not the launcher's.
 *
 * <p>The Kafka and metrics ports are fixed at the first start (0 picks free loopback ports then) and kept by {@link
 * #restart}, so that every client's {@code bootstrap.servers} stays valid across a crash. It listens on 127.0.0.1 and
 * advertises {@code localhost}; it is ready when its {@code /health} answers 200. Its pid file lets the next launcher
 * stop an orphan left by a launcher killed with {@code kill -9}.
 *
 * <p><b>Crash behaviour.</b> {@link #close} sends SIGTERM: the broker flushes and leaves each partition's clean-shutdown
 * marker. After {@link #killNine} the next start recovers the log (what {@code acks=all} acknowledged was on disk).
 *
 * <p>Thread-safe as {@link ChildProcess} is; the owner serialises kills and restarts.
 */
final class BrokerProcess implements AutoCloseable {

    static final String NAME = "log-broker";
    static final String MAIN_CLASS = "io.orderflow.broker.server.BrokerMain";
    private static final String LISTEN_HOST = "127.0.0.1";
    private static final String ADVERTISED_HOST = "localhost";
    private static final Duration STOP_GRACE = Duration.ofSeconds(30);
    private static final Duration READY_TIMEOUT = Duration.ofMinutes(2);
    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private final ChildProcess process;
    private final Path dataDirectory;
    private final int port;
    private final int metricsPort;
    private final Path logFile;
    private final Path pidFile;

    private BrokerProcess(
            ChildProcess process, Path dataDirectory, int port, int metricsPort, Path logFile, Path pidFile) {
        this.process = process;
        this.dataDirectory = dataDirectory;
        this.port = port;
        this.metricsPort = metricsPort;
        this.logFile = logFile;
        this.pidFile = pidFile;
    }

    /**
     * Starts the broker on {@code port} and {@code metricsPort} (0: a free one) with its log in {@code dataDirectory},
     * its output in {@code logFile}; returns once it is ready.
     *
     * @throws ServiceStartException naming the ports and directory if it exits or is not ready in time
     */
    static BrokerProcess start(Path dataDirectory, int port, int metricsPort, Path logFile, Path pidFile) {
        ChildProcesses.reclaimOrphan(pidFile, MAIN_CLASS);
        int kafka = port == 0 ? ChildProcesses.freeLoopbackPort() : port;
        int metrics = metricsPort == 0 ? ChildProcesses.freeLoopbackPort() : metricsPort;
        List<String> command = List.of(
                ChildProcesses.java(),
                "-Xmx512m",
                "-cp",
                System.getProperty("java.class.path"),
                MAIN_CLASS,
                "--listen.host=" + LISTEN_HOST,
                "--port=" + kafka,
                "--advertised.host=" + ADVERTISED_HOST,
                "--log.dirs=" + dataDirectory.toAbsolutePath(),
                "--metrics.port=" + metrics);
        URI health = URI.create("http://" + LISTEN_HOST + ":" + metrics + "/health");
        try {
            ChildProcess process = ChildProcess.start(
                    new ChildProcess.Spec(NAME, command, logFile, pidFile, STOP_GRACE),
                    () -> healthy(health),
                    "/health answering 200",
                    READY_TIMEOUT);
            return new BrokerProcess(process, dataDirectory, kafka, metrics, logFile, pidFile);
        } catch (ServiceStartException e) {
            throw new ServiceStartException(
                    "The log broker did not start on " + LISTEN_HOST + " (Kafka port " + kafka + ", metrics port "
                            + metrics + ", data in " + dataDirectory.toAbsolutePath() + "). --broker-port and"
                            + " --metrics-port choose other ports (0 picks any free one). " + e.getMessage(),
                    e);
        }
    }

    /** The same broker started again on the same ports and log, once this process has ended. */
    BrokerProcess restart() {
        if (process.isAlive()) {
            throw new IllegalStateException(NAME + " is running (pid " + process.pid() + ")");
        }
        return start(dataDirectory, port, metricsPort, logFile, pidFile);
    }

    int port() {
        return port;
    }

    Path dataDirectory() {
        return dataDirectory;
    }

    int metricsPort() {
        return metricsPort;
    }

    String bootstrapServers() {
        return ADVERTISED_HOST + ":" + port;
    }

    URI http(String path) {
        return URI.create("http://" + ADVERTISED_HOST + ":" + metricsPort + path);
    }

    long pid() {
        return process.pid();
    }

    Path logFile() {
        return logFile;
    }

    boolean isAlive() {
        return process.isAlive();
    }

    CompletableFuture<Integer> onExit() {
        return process.onExit();
    }

    String tail(int lines) {
        return process.tail(lines);
    }

    /** SIGKILL, as a crash would; returns once the process is gone. */
    void killNine() {
        process.killNine();
    }

    @Override
    public void close() {
        process.close();
    }

    private static boolean healthy(URI health) {
        try {
            return HTTP.send(
                                    HttpRequest.newBuilder(health)
                                            .timeout(Duration.ofSeconds(2))
                                            .build(),
                                    HttpResponse.BodyHandlers.discarding())
                            .statusCode()
                    == 200;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
