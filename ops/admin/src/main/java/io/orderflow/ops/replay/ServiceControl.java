package io.orderflow.ops.replay;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * How a replay takes the service whose group it resets out of the group and brings it back. A clean stop (SIGTERM):
 * the service commits what it has processed and its consumers leave the group at once, where a kill would leave them
 * members until their sessions time out, and could cut a side effect short (a mail half sent).
 *
 * <ul>
 *   <li>{@link #launcher}: {@code ./run-platform}'s control port, {@code POST /services/SERVICE/stop} and {@code
 *       /start} (what {@code ./run-platform stop SERVICE} and {@code start SERVICE} send); the start returns once
 *       the service is ready.
 *   <li>{@link #compose}: {@code docker compose stop SERVICE}, then {@code docker compose up -d --wait --no-deps
 *       SERVICE}, which returns once the container's health check passes. Not exercised by the build (no Docker
 *       there): it is these two commands and nothing else.
 *   <li>{@link #none}: the operator stops and starts the service; the replay only checks that the group is empty.
 * </ul>
 *
 * Each method returns a line for the report. Implementations are stateless.
 */
public interface ServiceControl {

    /** Stops {@code service}; returns once its process has ended. */
    String stop(String service) throws ReplayException, InterruptedException;

    /** Starts {@code service} again; returns once it is ready, where the implementation can tell. */
    String start(String service) throws ReplayException, InterruptedException;

    /** The launcher's control port at {@code control} ({@code control.url} in {@code .orderflow/platform.state}). */
    static ServiceControl launcher(URI control) {
        HttpClient http =
                HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        return new ServiceControl() {
            @Override
            public String stop(String service) throws ReplayException, InterruptedException {
                return post(service, "stop");
            }

            @Override
            public String start(String service) throws ReplayException, InterruptedException {
                return post(service, "start");
            }

            private String post(String service, String action) throws ReplayException, InterruptedException {
                URI uri = control.resolve("/services/" + service + "/" + action);
                try {
                    HttpResponse<String> answer = http.send(
                            HttpRequest.newBuilder(uri)
                                    .timeout(Duration.ofMinutes(3))
                                    .POST(HttpRequest.BodyPublishers.noBody())
                                    .build(),
                            HttpResponse.BodyHandlers.ofString());
                    if (answer.statusCode() != 200) {
                        throw new ReplayException("the launcher refused to " + action + " " + service + " ("
                                + answer.statusCode() + "): " + answer.body().strip());
                    }
                    return answer.body().strip() + " (through the launcher)";
                } catch (IOException e) {
                    throw new ReplayException(
                            "the launcher's control port " + uri + " did not answer: " + e.getMessage()
                                    + ". Is ./run-platform running here?",
                            e);
                }
            }
        };
    }

    /** {@code docker compose}, run with {@code docker} (the executable) in {@code projectDirectory}. */
    static ServiceControl compose(String docker, Path projectDirectory) {
        return new ServiceControl() {
            @Override
            public String stop(String service) throws ReplayException, InterruptedException {
                return run(List.of(docker, "compose", "stop", service));
            }

            @Override
            public String start(String service) throws ReplayException, InterruptedException {
                return run(List.of(docker, "compose", "up", "-d", "--wait", "--no-deps", service));
            }

            private String run(List<String> command) throws ReplayException, InterruptedException {
                String line = String.join(" ", command);
                try {
                    Process process = new ProcessBuilder(command)
                            .directory(projectDirectory.toFile())
                            .redirectErrorStream(true)
                            .start();
                    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                    if (!process.waitFor(5, TimeUnit.MINUTES)) {
                        process.destroyForcibly();
                        throw new ReplayException(line + " did not end within 5 minutes");
                    }
                    if (process.exitValue() != 0) {
                        throw new ReplayException(line + " exited with " + process.exitValue() + ": " + output.strip());
                    }
                    return "ran " + line;
                } catch (IOException e) {
                    throw new ReplayException("cannot run " + line + ": " + e.getMessage(), e);
                }
            }
        };
    }

    /** The operator's own hands: the service is stopped already, and started again by them. */
    static ServiceControl none() {
        return new ServiceControl() {
            @Override
            public String stop(String service) {
                return "not stopping " + service + " (--service-control none: stopped by the operator)";
            }

            @Override
            public String start(String service) {
                return "not starting " + service + " (--service-control none): start it again yourself";
            }
        };
    }
}
