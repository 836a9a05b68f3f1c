package io.orderflow.platform;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One of the platform's Quarkus services ({@code <module>/target/quarkus-app/quarkus-run.jar}) as a child process of
 * the launcher, exactly as it would run anywhere else: {@code java -jar} with its configuration as system
 * properties. A process, not a thread in the launcher, because each Quarkus application wants a JVM of its own, and
 * because then stopping, crashing and restarting one service is what it will be in production.
 *
 * <p>{@link #start} returns once the service answers {@code /q/health/ready} with 200, and fails with the tail of
 * the service's log if it exits or is not ready in time. Output goes to a log file. {@link #close} sends SIGTERM
 * (Quarkus shuts down gracefully), then SIGKILL after a grace period.
 *
 * <p><b>After {@code kill -9} of the launcher</b> no shutdown hook runs and the services outlive it, holding their
 * ports. So each start writes the child's pid next to its log ({@code <name>.pid}), and the next start first
 * stops a process that the pid file names if it is still running that same jar: the same reclaiming the embedded
 * PostgreSQL does for its orphaned postmaster.
 *
 * <p>Thread-safe: {@link #close} is idempotent.
 */
public final class ServiceProcess implements AutoCloseable {

    private static final Duration READY_TIMEOUT = Duration.ofMinutes(2);
    private static final Duration STOP_GRACE = Duration.ofSeconds(20);
    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private final String name;
    private final Process process;
    private final int httpPort;
    private final Path logFile;

    private ServiceProcess(String name, Process process, int httpPort, Path logFile) {
        this.name = name;
        this.process = process;
        this.httpPort = httpPort;
        this.logFile = logFile;
    }

    /** Starts {@code jar} with {@code properties} as {@code -D} options, on {@code httpPort}, logging to a file. */
    public static ServiceProcess start(
            String name, Path jar, int httpPort, Map<String, String> properties, Path logFile) {
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException("The " + name + " application is missing (" + jar.toAbsolutePath()
                    + "); build it: ./mvnw -pl " + name + " -am package -DskipTests");
        }
        Path pidFile = logFile.resolveSibling(name + ".pid");
        reclaimAbandoned(pidFile, jar);
        List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElse("java"));
        command.add("-Xmx256m");
        command.add("-Dquarkus.http.port=" + httpPort);
        properties.forEach((key, value) -> command.add("-D" + key + "=" + value));
        command.add("-jar");
        command.add(jar.toAbsolutePath().toString());
        Process process;
        try {
            Files.createDirectories(logFile.toAbsolutePath().getParent());
            process = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()))
                    .start();
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot start " + name + ": " + command, e);
        }
        ServiceProcess service = new ServiceProcess(name, process, httpPort, logFile);
        try {
            Files.writeString(pidFile, Long.toString(process.pid()));
            service.awaitReady();
        } catch (IOException e) {
            service.close();
            throw new UncheckedIOException("Cannot write " + pidFile, e);
        } catch (RuntimeException e) {
            service.close();
            throw e;
        }
        return service;
    }

    /** Stops the process a previous launcher left behind, if the pid file names one still running {@code jar}. */
    private static void reclaimAbandoned(Path pidFile, Path jar) {
        if (!Files.isRegularFile(pidFile)) {
            return;
        }
        try {
            long pid = Long.parseLong(Files.readString(pidFile).trim());
            String jarPath = jar.toAbsolutePath().toString();
            ProcessHandle.of(pid)
                    .filter(ProcessHandle::isAlive)
                    .filter(handle -> handle.info()
                            .commandLine()
                            .map(line -> line.contains(jarPath))
                            .orElse(false))
                    .ifPresent(orphan -> {
                        System.err.println("Stopping " + jarPath + " (pid " + pid + ") left by an earlier launcher");
                        orphan.destroyForcibly();
                        orphan.onExit().join();
                    });
            Files.delete(pidFile);
        } catch (IOException | NumberFormatException e) {
            // An unreadable pid file names nothing we could safely stop.
        }
    }

    private void awaitReady() {
        Instant deadline = Instant.now().plus(READY_TIMEOUT);
        while (Instant.now().isBefore(deadline)) {
            if (!process.isAlive()) {
                throw new IllegalStateException(name + " exited with code " + process.exitValue()
                        + " while starting; the end of " + logFile + ":\n" + tail());
            }
            if (status("/q/health/ready") == 200) {
                return;
            }
            try {
                process.waitFor(200, TimeUnit.MILLISECONDS); // polls readiness; returns early if it exits
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for " + name, e);
            }
        }
        throw new IllegalStateException(name + " was not ready within " + READY_TIMEOUT.toSeconds() + " s; the end of "
                + logFile + ":\n" + tail());
    }

    public String name() {
        return name;
    }

    /** {@code http://localhost:<port>}, the service's base address. */
    public URI baseUri() {
        return URI.create("http://localhost:" + httpPort);
    }

    public Path logFile() {
        return logFile;
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    int status(String path) {
        try {
            HttpRequest request = HttpRequest.newBuilder(baseUri().resolve(path))
                    .timeout(Duration.ofSeconds(5))
                    .build();
            return HTTP.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    private String tail() {
        try {
            List<String> lines = Files.readAllLines(logFile);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
        } catch (IOException e) {
            return "(cannot read " + logFile + ")";
        }
    }

    /** SIGTERM, then SIGKILL if it has not stopped after the grace period. */
    @Override
    public void close() {
        if (!process.isAlive()) {
            return;
        }
        process.destroy();
        try {
            if (!process.waitFor(STOP_GRACE.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly().waitFor();
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
