package io.orderflow.ops.drill;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Properties;

/**
 * How a drill crashes a service and brings it back: SIGKILL to its process, then a start with the same settings once it
 * has ended. Against {@code ./run-platform} that is the launcher's control port ({@link #launcher}); against {@code
 * docker compose up} it is {@code docker compose} itself ({@link #compose}).
 */
public interface ServiceControl {

    void kill(String service) throws IOException, InterruptedException;

    /** Starts the service again; returns once it is ready. */
    void start(String service) throws IOException, InterruptedException;

    /**
     * Ends the service's process with SIGKILL behind its supervisor's back, as a crash would end it on its own (an
     * OutOfMemoryError, an Error's exit): the supervisor, not the drill, is to start it again.
     */
    default void crash(String service) throws IOException, InterruptedException {
        throw new IOException("this control cannot crash " + service + " behind its supervisor's back");
    }

    /** The control port of the launcher whose state file is {@code stateFile} ({@code .orderflow/platform.state}). */
    static Optional<ServiceControl> fromStateFile(Path stateFile) throws IOException {
        if (!Files.isRegularFile(stateFile)) {
            return Optional.empty();
        }
        Properties state = new Properties();
        try (var reader = Files.newBufferedReader(stateFile, StandardCharsets.UTF_8)) {
            state.load(reader);
        }
        String url = state.getProperty("control.url");
        return url == null ? Optional.empty() : Optional.of(launcher(URI.create(url)));
    }

    /** {@code POST /services/{service}/kill} and {@code /start} on a launcher's control port. */
    static ServiceControl launcher(URI control) {
        HttpClient http =
                HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        return new ServiceControl() {
            @Override
            public void kill(String service) throws IOException, InterruptedException {
                post(service, "kill");
            }

            @Override
            public void start(String service) throws IOException, InterruptedException {
                post(service, "start");
            }

            @Override
            public void crash(String service) throws IOException, InterruptedException {
                post(service, "crash");
            }

            private void post(String service, String action) throws IOException, InterruptedException {
                HttpResponse<String> answer = http.send(
                        HttpRequest.newBuilder(control.resolve("/services/" + service + "/" + action))
                                .timeout(Duration.ofMinutes(3))
                                .POST(HttpRequest.BodyPublishers.noBody())
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
                if (answer.statusCode() != 200) {
                    throw new IOException(action + " " + service + ": " + answer.statusCode() + " " + answer.body());
                }
            }
        };
    }

    /**
     * {@code docker compose kill -s KILL SERVICE}, and {@code docker compose up -d --wait --no-deps SERVICE}, which
     * starts the killed container again and returns once its health check passes; run with {@code docker} (the
     * executable) in {@code projectDirectory}, where {@code docker-compose.yml} is.
     */
    static ServiceControl compose(String docker, Path projectDirectory) {
        return new ServiceControl() {
            @Override
            public void kill(String service) throws IOException, InterruptedException {
                run(List.of(docker, "compose", "kill", "-s", "KILL", service));
            }

            @Override
            public void start(String service) throws IOException, InterruptedException {
                run(List.of(docker, "compose", "up", "-d", "--wait", "--no-deps", service));
            }

            /**
             * Not offered: {@code docker compose kill} counts as stopped by hand, which {@code restart:
             * unless-stopped} leaves down, and the process is PID 1 of its container, which its own container cannot
             * SIGKILL; only the Docker host can, with its rights.
             */
            @Override
            public void crash(String service) throws IOException {
                throw new IOException("a crash behind compose's back needs the Docker host: kill -9 the process of "
                        + "docker inspect -f '{{.State.Pid}}' $(docker compose ps -q " + service + ") as root, and"
                        + " compose's restart: unless-stopped starts it again");
            }

            private void run(List<String> command) throws IOException, InterruptedException {
                Process process = new ProcessBuilder(command)
                        .directory(projectDirectory.toFile())
                        .redirectErrorStream(true)
                        .start();
                String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                if (!process.waitFor(5, java.util.concurrent.TimeUnit.MINUTES)) {
                    process.destroyForcibly();
                    throw new IOException(String.join(" ", command) + " did not end within 5 minutes");
                }
                if (process.exitValue() != 0) {
                    throw new IOException(
                            String.join(" ", command) + " exited with " + process.exitValue() + ": " + output.strip());
                }
            }
        };
    }
}
