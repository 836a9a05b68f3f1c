package io.orderflow.compatibility;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Our broker as a separate child process, started from the packaged {@code log-broker.jar} and its
 * {@code lib/} directory exactly as {@code ./run-broker} starts it.
 *
 * <p>Why a process and not an in-process {@code Broker}: this module's classpath holds Apache Kafka's
 * server-side jars (kafka-tools brings kafka-server, kafka-storage, the group coordinator...). Running our
 * broker in a JVM of its own, on a classpath of exactly {@code log-broker.jar:lib/*}, proves that it needs none
 * of them, and that what the tools talk to is the artifact we ship.
 *
 * <p>Lifecycle: {@link #start} picks a free port, launches the broker with its data in {@code workDir/data}
 * and its stdout and stderr in {@code workDir/broker.log}, and returns once the port accepts connections.
 * {@link #close} sends SIGTERM ({@link Process#destroy()}) and waits for the broker's own clean shutdown,
 * failing if it does not report one. {@link #log()} is the broker's output so far, for failure messages.
 *
 * <p>Not thread-safe; one instance per test class.
 */
public final class BrokerProcess implements AutoCloseable {
    private static final String HOST = "127.0.0.1";
    private static final Path LOG_BROKER_TARGET = Path.of("..", "log-broker", "target");
    private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration SHUTDOWN_TIMEOUT = Duration.ofSeconds(30);

    private final Process process;
    private final int port;
    private final Path logFile;

    private BrokerProcess(Process process, int port, Path logFile) {
        this.process = process;
        this.port = port;
        this.logFile = logFile;
    }

    /**
     * Starts a broker on a free port with its data under {@code workDir}; {@code settings} are extra
     * {@code --KEY=VALUE} arguments (see {@code BrokerMain --help}).
     */
    public static BrokerProcess start(Path workDir, String... settings) {
        Path jar = LOG_BROKER_TARGET.resolve("log-broker.jar").toAbsolutePath().normalize();
        Path lib = LOG_BROKER_TARGET.resolve("lib").toAbsolutePath().normalize();
        if (!Files.isRegularFile(jar) || !Files.isDirectory(lib)) {
            throw new IllegalStateException("The packaged broker is missing (" + jar + ", " + lib
                    + "); build it first: ./mvnw -pl log-broker install -DskipTests");
        }
        int port = freePort();
        Path dataDir = workDir.resolve("data");
        Path logFile = workDir.resolve("broker.log");
        List<String> command = new ArrayList<>(List.of(
                javaExecutable(),
                "-Xmx256m",
                "-XX:+UseSerialGC",
                "-cp",
                jar + ":" + lib + "/*",
                "io.orderflow.broker.server.BrokerMain",
                "--listen.host=" + HOST,
                "--advertised.host=" + HOST,
                "--port=" + port,
                "--log.dirs=" + dataDir,
                "--metrics.port=-1",
                "--group.initial.rebalance.delay.ms=0"));
        command.addAll(List.of(settings));
        Process process;
        try {
            process = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(logFile.toFile())
                    .start();
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot start the broker: " + command, e);
        }
        BrokerProcess broker = new BrokerProcess(process, port, logFile);
        try {
            await("broker accepting connections on " + HOST + ":" + port)
                    .atMost(STARTUP_TIMEOUT)
                    .pollInterval(Duration.ofMillis(100))
                    .until(broker::acceptsConnections);
        } catch (RuntimeException | Error e) {
            process.destroyForcibly();
            throw new IllegalStateException("The broker did not start; its output:\n" + broker.log(), e);
        }
        return broker;
    }

    /** The {@code bootstrap.servers} value for clients and tools. */
    public String bootstrapServers() {
        return HOST + ":" + port;
    }

    public int port() {
        return port;
    }

    /** The broker's stdout and stderr so far. */
    public String log() {
        try {
            return Files.readString(logFile, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "(cannot read " + logFile + ": " + e.getMessage() + ")";
        }
    }

    private boolean acceptsConnections() {
        if (!process.isAlive()) {
            throw new IllegalStateException("The broker exited with code " + process.exitValue());
        }
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(HOST, port), 200);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** SIGTERM, then waits for the broker's clean shutdown; fails if it hangs or does not report one. */
    @Override
    public void close() {
        process.destroy();
        boolean exited;
        try {
            exited = process.waitFor(SHUTDOWN_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            exited = false;
        }
        if (!exited) {
            process.destroyForcibly();
            throw new IllegalStateException(
                    "The broker did not stop within " + SHUTDOWN_TIMEOUT + " of SIGTERM; its output:\n" + log());
        }
        if (!log().contains("stopped cleanly")) {
            throw new IllegalStateException("The broker exited with code " + process.exitValue()
                    + " without a clean shutdown; its output:\n" + log());
        }
    }

    /** The java of the running JVM, so the broker and the tools run on the JDK the build uses. */
    static String javaExecutable() {
        return ProcessHandle.current()
                .info()
                .command()
                .orElseThrow(() -> new IllegalStateException("Cannot tell which java runs this JVM"));
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getByName(HOST))) {
            socket.setReuseAddress(true);
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot find a free port", e);
        }
    }
}
