package io.orderflow.broker.server;

import static org.awaitility.Awaitility.await;

import io.orderflow.frames.WireClient;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.requests.ApiVersionsRequest;

/**
 * {@link BrokerMain} in a JVM of its own, as its launchers start it ({@code -XX:+ExitOnOutOfMemoryError}), with the
 * JVM options and settings a test gives (a later setting wins: no metrics endpoint unless one is set), its output in a
 * file beside the data directory. For what an in-process
 * broker cannot show: a heap of its own, its exit code, more file descriptors than one JVM may hold for both ends.
 */
final class ChildBroker implements AutoCloseable {
    private final Process process;
    private final Path output;
    private final int port;

    private ChildBroker(Process process, Path output, int port) {
        this.process = process;
        this.output = output;
        this.port = port;
    }

    /** Starts the broker on a free port with {@code jvmOptions} and {@code settings}; returns once it answers. */
    static ChildBroker start(Path dataDir, List<String> jvmOptions, List<String> settings) throws IOException {
        return start(dataDir, jvmOptions, BrokerMain.class.getName(), settings);
    }

    /** Starts the broker as above; returns once it answers. */
    static ChildBroker start(Path dataDir, List<String> jvmOptions, String mainClass, List<String> settings)
            throws IOException {
        ChildBroker broker = launch(dataDir, jvmOptions, mainClass, settings);
        await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(broker::answersApiVersions);
        return broker;
    }

    /** Starts {@code mainClass} (BrokerMain or a test's wrapper of it) and returns at once. */
    static ChildBroker launch(Path dataDir, List<String> jvmOptions, String mainClass, List<String> settings)
            throws IOException {
        int port = freePort();
        List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElse("java"));
        command.add("-XX:+ExitOnOutOfMemoryError");
        command.addAll(jvmOptions);
        command.addAll(List.of(
                "-cp",
                System.getProperty("java.class.path"),
                mainClass,
                "--log-format=text",
                "--log.dirs=" + dataDir,
                "--listen.host=127.0.0.1",
                "--advertised.host=127.0.0.1",
                "--metrics.port=-1",
                "--port=" + port));
        command.addAll(settings);
        Path output = dataDir.resolveSibling(dataDir.getFileName() + ".log");
        Process process = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(output.toFile())
                .start();
        return new ChildBroker(process, output, port);
    }

    int port() {
        return port;
    }

    Process process() {
        return process;
    }

    /** What the broker has written to stdout and stderr so far. */
    String output() throws IOException {
        return Files.readString(output, StandardCharsets.UTF_8);
    }

    /** Whether a new connection gets an answer to ApiVersions (within the client's read timeout). */
    boolean answersApiVersions() throws IOException {
        try (WireClient client = WireClient.connect(port)) {
            return client.receive(client.send(new ApiVersionsRequest.Builder().build((short) 3), 1)) != null;
        }
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor();
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
