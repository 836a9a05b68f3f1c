package io.orderflow.ops.bench.orders;

import io.orderflow.ops.bench.kafkaperf.BrokerLauncher;
import io.orderflow.ops.bench.kafkaperf.ChildProcesses;
import io.orderflow.ops.bench.kafkaperf.RunningBroker;
import java.io.IOException;
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
 * A packaged Quarkus application ({@code quarkus-app/quarkus-run.jar}) running as a child JVM, as it runs in
 * production: {@code java -jar} with the JVM's default options, configured only through {@code -D} system properties,
 * listening on a free loopback port. Its output goes to a log file; it counts as started once
 * {@code /q/health/ready} answers 200.
 *
 * <p>Not thread-safe.
 */
final class QuarkusService implements AutoCloseable {
    private static final Duration READY_TIMEOUT = Duration.ofMinutes(2);
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(30);
    private static final HttpClient HTTP = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2))
            .build();

    private final String name;
    private final Process process;
    private final URI baseUri;
    private final Path logFile;
    private final double readyMillis;

    private QuarkusService(String name, Process process, URI baseUri, Path logFile, double readyMillis) {
        this.name = name;
        this.process = process;
        this.baseUri = baseUri;
        this.logFile = logFile;
        this.readyMillis = readyMillis;
    }

    /**
     * Starts {@code app/quarkus-run.jar} with {@code properties} (and {@code jvmOptions}, normally none) and waits
     * until it reports ready.
     */
    static QuarkusService start(
            String name, Path app, List<String> jvmOptions, Map<String, String> properties, Path logFile)
            throws IOException {
        Path jar = app.resolve("quarkus-run.jar").toAbsolutePath();
        if (!Files.isRegularFile(jar)) {
            throw new IOException("No packaged " + name + " at " + jar + "; build it: ./mvnw -pl " + name
                    + " -am package -DskipTests");
        }
        int port = BrokerLauncher.freeLoopbackPorts(1).getFirst();
        List<String> command = new ArrayList<>();
        command.add(ChildProcesses.java());
        command.addAll(jvmOptions);
        command.add("-Dquarkus.http.host=" + RunningBroker.HOST);
        command.add("-Dquarkus.http.port=" + port);
        properties.forEach((key, value) -> command.add("-D" + key + "=" + value));
        command.add("-jar");
        command.add(jar.toString());
        long t0 = System.nanoTime();
        Process process = ChildProcesses.start(new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(logFile.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile())));
        URI baseUri = URI.create("http://" + RunningBroker.HOST + ":" + port);
        QuarkusService service = new QuarkusService(name, process, baseUri, logFile, Double.NaN);
        long deadline = t0 + READY_TIMEOUT.toNanos();
        while (service.status("/q/health/ready") != 200) {
            if (!process.isAlive()) {
                ChildProcesses.forget(process);
                throw new IOException(
                        name + " exited with code " + process.exitValue() + " during start-up; see " + logFile);
            }
            if (System.nanoTime() > deadline) {
                service.close();
                throw new IOException(name + " was not ready within " + READY_TIMEOUT + "; see " + logFile);
            }
            sleep(100);
        }
        return new QuarkusService(name, process, baseUri, logFile, (System.nanoTime() - t0) / 1e6);
    }

    URI baseUri() {
        return baseUri;
    }

    long pid() {
        return process.pid();
    }

    /** From spawning the JVM to the first 200 from {@code /q/health/ready}. */
    double readyMillis() {
        return readyMillis;
    }

    boolean isAlive() {
        return process.isAlive();
    }

    Path logFile() {
        return logFile;
    }

    /** The Prometheus text of {@code /q/metrics}, or an empty string if it cannot be had. */
    String metrics() {
        try {
            HttpResponse<String> response = HTTP.send(request("/q/metrics"), HttpResponse.BodyHandlers.ofString());
            return response.statusCode() == 200 ? response.body() : "";
        } catch (IOException e) {
            return "";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "";
        }
    }

    private int status(String path) {
        try {
            return HTTP.send(request(path), HttpResponse.BodyHandlers.discarding())
                    .statusCode();
        } catch (IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while waiting for " + name, e);
        }
    }

    private HttpRequest request(String path) {
        return HttpRequest.newBuilder(baseUri.resolve(path))
                .timeout(Duration.ofSeconds(5))
                .build();
    }

    /** SIGTERM (Quarkus shuts down gracefully), then waits; kills it if it has not stopped after 30 s. */
    @Override
    public void close() {
        try {
            if (ChildProcesses.stop(process, STOP_TIMEOUT).isEmpty()) {
                System.out.printf("  %s did not stop within %s of SIGTERM; killed%n", name, STOP_TIMEOUT);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while waiting for a service to start", e);
        }
    }
}
