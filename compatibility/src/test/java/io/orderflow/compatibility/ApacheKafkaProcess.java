package io.orderflow.compatibility;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Apache Kafka 4.4.0 itself (kafka_2.13, a test dependency of this module), one node in KRaft combined mode, as a
 * child process: the cluster our services must also run against with nothing changed but the bootstrap address.
 * Set up as Kafka's quickstart does it: storage formatted with a random cluster id ({@code kafka.tools.StorageTool
 * format --standalone}), then {@code kafka.Kafka server.properties}. The classpath is this test JVM's, which holds
 * kafka_2.13 and its dependencies. Output goes to {@code workDir/kafka.log}.
 *
 * <p>Not thread-safe; one per test class.
 */
public final class ApacheKafkaProcess implements AutoCloseable {

    private static final String HOST = "127.0.0.1";
    private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(90);

    private final Process process;
    private final int port;
    private final Path logFile;

    private ApacheKafkaProcess(Process process, int port, Path logFile) {
        this.process = process;
        this.port = port;
        this.logFile = logFile;
    }

    public static ApacheKafkaProcess start(Path workDir) {
        try {
            Files.createDirectories(workDir);
            int port = freePort();
            int controllerPort = freePort();
            Path properties = workDir.resolve("server.properties");
            Files.writeString(properties, """
                    process.roles=broker,controller
                    node.id=1
                    controller.quorum.bootstrap.servers=%1$s:%3$d
                    listeners=PLAINTEXT://%1$s:%2$d,CONTROLLER://%1$s:%3$d
                    advertised.listeners=PLAINTEXT://%1$s:%2$d,CONTROLLER://%1$s:%3$d
                    inter.broker.listener.name=PLAINTEXT
                    controller.listener.names=CONTROLLER
                    listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
                    log.dirs=%4$s
                    offsets.topic.replication.factor=1
                    transaction.state.log.replication.factor=1
                    transaction.state.log.min.isr=1
                    share.coordinator.state.topic.replication.factor=1
                    share.coordinator.state.topic.min.isr=1
                    group.initial.rebalance.delay.ms=0
                    """.formatted(
                            HOST, port, controllerPort, workDir.resolve("data").toAbsolutePath()));
            Path logFile = workDir.resolve("kafka.log");
            Process format = new ProcessBuilder(java(
                            "kafka.tools.StorageTool",
                            "format",
                            "--cluster-id",
                            randomClusterId(),
                            "--config",
                            properties.toString(),
                            "--standalone"))
                    .redirectErrorStream(true)
                    .redirectOutput(workDir.resolve("kafka-format.log").toFile())
                    .start();
            if (!format.waitFor(2, TimeUnit.MINUTES) || format.exitValue() != 0) {
                format.destroyForcibly();
                throw new IllegalStateException("formatting Kafka's storage failed: see " + workDir);
            }
            Process process = new ProcessBuilder(java("kafka.Kafka", properties.toString()))
                    .redirectErrorStream(true)
                    .redirectOutput(logFile.toFile())
                    .start();
            ApacheKafkaProcess kafka = new ApacheKafkaProcess(process, port, logFile);
            try {
                await("Apache Kafka accepting connections")
                        .atMost(STARTUP_TIMEOUT)
                        .pollInterval(Duration.ofMillis(200))
                        .until(kafka::acceptsConnections);
            } catch (RuntimeException | Error e) {
                process.destroyForcibly();
                throw new IllegalStateException("Apache Kafka did not start; its output:\n" + kafka.log(), e);
            }
            return kafka;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    public String bootstrapServers() {
        return HOST + ":" + port;
    }

    public String log() {
        try {
            return Files.readString(logFile, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "(cannot read " + logFile + ")";
        }
    }

    private boolean acceptsConnections() {
        if (!process.isAlive()) {
            throw new IllegalStateException("Apache Kafka exited with code " + process.exitValue());
        }
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(HOST, port), 200);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            process.waitFor();
        }
    }

    private static List<String> java(String mainClass, String... args) {
        List<String> command = new ArrayList<>(List.of(
                ProcessHandle.current().info().command().orElse("java"),
                "-Xmx512m",
                "-cp",
                System.getProperty("java.class.path"),
                mainClass));
        command.addAll(List.of(args));
        return command;
    }

    private static String randomClusterId() {
        SecureRandom random = new SecureRandom();
        ByteBuffer bytes = ByteBuffer.allocate(16);
        bytes.putLong(random.nextLong() & Long.MAX_VALUE | 1L << 62);
        bytes.putLong(random.nextLong());
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes.array());
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
