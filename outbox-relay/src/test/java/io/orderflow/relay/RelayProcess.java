package io.orderflow.relay;

import static org.awaitility.Awaitility.await;

import io.orderflow.postgres.PostgresDatabase;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The packaged relay ({@code target/quarkus-app/quarkus-run.jar}) running as its own process, as in production,
 * so a test can {@code kill -9} it. Output goes to {@code target/relay-<name>.log}.
 */
public final class RelayProcess implements AutoCloseable {

    public static final Path JAR = Path.of("target", "quarkus-app", "quarkus-run.jar");
    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private final Process process;
    private final int httpPort;
    private final Path logFile;

    private RelayProcess(Process process, int httpPort, Path logFile) {
        this.process = process;
        this.httpPort = httpPort;
        this.logFile = logFile;
    }

    /** Everything the relay wrote so far. */
    public String log() throws IOException {
        return Files.readString(logFile);
    }

    public static RelayProcess start(
            String name, PostgresDatabase database, String bootstrapServers, Map<String, String> settings) {
        return start(JAR, name, database, bootstrapServers, settings);
    }

    /** Starts the relay packaged at {@code jar} (another module's tests: {@code ../outbox-relay/target/...}). */
    public static RelayProcess start(
            Path jar, String name, PostgresDatabase database, String bootstrapServers, Map<String, String> settings) {
        if (!Files.exists(jar)) {
            throw new IllegalStateException(
                    jar.toAbsolutePath() + " is missing: build outbox-relay with `mvnw package`");
        }
        int port = freePort();
        List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElse("java"));
        command.add("-Xmx128m");
        command.add("-Dquarkus.datasource.jdbc.url=" + database.jdbcUrl());
        command.add("-Dquarkus.datasource.username=" + database.user());
        if (database.password() != null && !database.password().isEmpty()) {
            command.add("-Dquarkus.datasource.password=" + database.password());
        }
        command.add("-Dkafka.bootstrap.servers=" + bootstrapServers);
        command.add("-Dquarkus.http.port=" + port);
        settings.forEach((key, value) -> command.add("-D" + key + "=" + value));
        command.add("-jar");
        command.add(jar.toString());
        try {
            Path log = Path.of("target", "relay-" + name + ".log");
            Process process = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                    .start();
            RelayProcess relay = new RelayProcess(process, port, log);
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> !process.isAlive() || relay.httpStatus("/q/health/live") == 200);
            if (!process.isAlive()) {
                throw new IllegalStateException(
                        "relay " + name + " exited with " + process.exitValue() + ", see " + log);
            }
            return relay;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** SIGKILL: no shutdown hook, no flush, no goodbye to the database or the broker. */
    public void killNine() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor();
    }

    public int httpStatus(String path) {
        try {
            return HTTP.send(request(path), HttpResponse.BodyHandlers.discarding())
                    .statusCode();
        } catch (IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    public String get(String path) throws IOException, InterruptedException {
        return HTTP.send(request(path), HttpResponse.BodyHandlers.ofString()).body();
    }

    private HttpRequest request(String path) {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + path))
                .timeout(Duration.ofSeconds(10))
                .build();
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(15, java.util.concurrent.TimeUnit.SECONDS)) {
            killNine();
        }
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
