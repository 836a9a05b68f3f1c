package io.orderflow.process;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;

/**
 * A packaged Quarkus service ({@code <module>/target/quarkus-app/quarkus-run.jar}) as a child process, exactly as it
 * runs anywhere else: {@code java -jar} with its configuration as {@code -D} system properties. The one way the
 * platform launcher, the benchmarks and the tests run a service; a process, not a thread, because each Quarkus
 * application wants a JVM of its own, and because then stopping, crashing and restarting one is what it will be in
 * production.
 *
 * <p><b>Start.</b> {@link Builder#start()} returns once the readiness path ({@code /q/health/ready} unless set
 * otherwise) answers 200, and fails with {@link ServiceStartException}, carrying the tail of the service's log, if
 * the jar is missing, the process exits first, or it is not ready in time. Output goes to a log file (appended).
 *
 * <p><b>Stop and crash.</b> {@link #close()} sends SIGTERM (Quarkus shuts down gracefully) and SIGKILL after a grace
 * period; {@link #killNine()} is the crash a test inflicts. {@link #isAlive()} and {@link #exitCode()} tell whether it
 * died on its own, and {@link #tail} what it said last.
 *
 * <p><b>After {@code kill -9} of the owner</b> no shutdown hook runs and a service outlives it, holding its port.
 * With a pid file ({@link Builder#pidFile}) each start writes the child's pid there, and the next start first stops
 * a process the file names if it still runs that same jar.
 *
 * <p>Thread-safe: {@link #close()} is idempotent; the rest reads immutable state or the process.
 */
public final class ServiceProcess implements AutoCloseable {
    public static final String LOOPBACK = "127.0.0.1";
    private static final Duration STOP_GRACE = Duration.ofSeconds(20);
    private static final HttpClient HTTP = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2))
            .build();

    private final String name;
    private final Process process;
    private final URI baseUri;
    private final Path logFile;
    private final double readyMillis;

    private ServiceProcess(String name, Process process, URI baseUri, Path logFile, double readyMillis) {
        this.name = name;
        this.process = process;
        this.baseUri = baseUri;
        this.logFile = logFile;
        this.readyMillis = readyMillis;
    }

    /** A service called {@code name} (its module's name, for messages) packaged as {@code jar}. */
    public static Builder builder(String name, Path jar) {
        return new Builder(name, jar);
    }

    /** What to start, and how to tell it is up; see {@link ServiceProcess}. Not thread-safe. */
    public static final class Builder {
        private final String name;
        private final Path jar;
        private final List<String> jvmOptions = new ArrayList<>();
        private final Map<String, String> properties = new LinkedHashMap<>();
        private String host = LOOPBACK;
        private int port;
        private Path logFile;
        private Path pidFile;
        private String readinessPath = "/q/health/ready";
        private Duration readyTimeout = Duration.ofMinutes(2);

        private Builder(String name, Path jar) {
            this.name = Objects.requireNonNull(name);
            this.jar = jar.toAbsolutePath().normalize();
            this.logFile = Path.of("target", name + ".log");
        }

        /** JVM options before {@code -jar} (none by default: the JVM's own defaults, as in production). */
        public Builder jvmOptions(List<String> options) {
            jvmOptions.addAll(options);
            return this;
        }

        /** Configuration, passed as {@code -Dkey=value}. */
        public Builder properties(Map<String, String> values) {
            properties.putAll(values);
            return this;
        }

        public Builder property(String key, String value) {
            properties.put(key, value);
            return this;
        }

        /** The HTTP host and port; port 0 (the default) picks a free loopback port. */
        public Builder http(String host, int port) {
            this.host = host;
            this.port = port;
            return this;
        }

        public Builder logFile(Path file) {
            this.logFile = file;
            return this;
        }

        /** Where to record the child's pid, so that a later start can stop an orphan of this one. */
        public Builder pidFile(Path file) {
            this.pidFile = file;
            return this;
        }

        /** The path that answers 200 once the service is up (default {@code /q/health/ready}). */
        public Builder readinessPath(String path, Duration timeout) {
            this.readinessPath = path;
            this.readyTimeout = timeout;
            return this;
        }

        /** Starts the service and waits until it is ready; see {@link ServiceProcess}. */
        public ServiceProcess start() {
            if (!Files.isRegularFile(jar)) {
                throw new ServiceStartException("The " + name + " application is missing (" + jar + "); build it: "
                        + "./mvnw -pl " + name + " -am package -DskipTests");
            }
            if (pidFile != null) {
                reclaimOrphan(pidFile, jar);
            }
            int httpPort = port == 0 ? freePort() : port;
            List<String> command = new ArrayList<>();
            command.add(ChildProcesses.java());
            command.addAll(jvmOptions);
            command.add("-Dquarkus.http.host=" + host);
            command.add("-Dquarkus.http.port=" + httpPort);
            properties.forEach((key, value) -> command.add("-D" + key + "=" + value));
            command.add("-jar");
            command.add(jar.toString());
            long startedAt = System.nanoTime();
            Process process;
            try {
                Path parent = logFile.toAbsolutePath().getParent();
                Files.createDirectories(parent);
                process = ChildProcesses.start(new ProcessBuilder(command)
                        .redirectErrorStream(true)
                        .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()))
                        .redirectInput(ProcessBuilder.Redirect.from(
                                Path.of("/dev/null").toFile())));
                if (pidFile != null) {
                    Files.writeString(pidFile, Long.toString(process.pid()));
                }
            } catch (IOException e) {
                throw new ServiceStartException("Cannot start " + name + ": " + String.join(" ", command), e);
            }
            String shownHost = host.equals("0.0.0.0") ? LOOPBACK : host;
            URI baseUri = URI.create("http://" + shownHost + ":" + httpPort);
            ServiceProcess starting = new ServiceProcess(name, process, baseUri, logFile, Double.NaN);
            awaitReady(starting, startedAt);
            return new ServiceProcess(name, process, baseUri, logFile, (System.nanoTime() - startedAt) / 1e6);
        }

        private void awaitReady(ServiceProcess service, long startedAt) {
            long deadline = startedAt + readyTimeout.toNanos();
            while (service.status(readinessPath) != 200) {
                if (!service.process.isAlive()) {
                    ChildProcesses.forget(service.process);
                    throw new ServiceStartException(name + " exited with code " + service.process.exitValue()
                            + " while starting; the end of " + logFile + ":\n" + service.tail(30));
                }
                if (System.nanoTime() > deadline) {
                    service.close();
                    throw new ServiceStartException(name + " was not ready (" + readinessPath + ") within "
                            + readyTimeout.toSeconds() + " s; the end of " + logFile + ":\n" + service.tail(30));
                }
                try {
                    service.process.waitFor(100, TimeUnit.MILLISECONDS); // returns early if it exits
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    service.close();
                    throw new ServiceStartException("Interrupted while waiting for " + name, e);
                }
            }
        }
    }

    /** Stops a process that {@code pidFile} names if it still runs {@code jar}: an orphan of an earlier owner. */
    private static void reclaimOrphan(Path pidFile, Path jar) {
        if (!Files.isRegularFile(pidFile)) {
            return;
        }
        try {
            long pid = Long.parseLong(Files.readString(pidFile).trim());
            String jarPath = jar.toString();
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
            // An unreadable pid file names nothing that could safely be stopped.
        }
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket()) {
            socket.bind(new InetSocketAddress(LOOPBACK, 0));
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("No free loopback port", e);
        }
    }

    public String name() {
        return name;
    }

    /** {@code http://<host>:<port>}, the service's base address. */
    public URI baseUri() {
        return baseUri;
    }

    public int port() {
        return baseUri.getPort();
    }

    public long pid() {
        return process.pid();
    }

    /** From spawning the JVM to the first 200 from the readiness path. */
    public double readyMillis() {
        return readyMillis;
    }

    public Path logFile() {
        return logFile;
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** The exit code once the process has ended; empty while it runs. */
    public OptionalInt exitCode() {
        return process.isAlive() ? OptionalInt.empty() : OptionalInt.of(process.exitValue());
    }

    /** Everything the service wrote to its log so far. */
    public String log() {
        try {
            return Files.readString(logFile, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "(cannot read " + logFile + ": " + e.getMessage() + ")";
        }
    }

    /** The last {@code lines} lines of its log. */
    public String tail(int lines) {
        List<String> all = log().lines().toList();
        return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    }

    /** The HTTP status of {@code GET path}, or -1 when the service does not answer. */
    public int status(String path) {
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

    /** The body of {@code GET path}. */
    public String get(String path) throws IOException, InterruptedException {
        return HTTP.send(request(path), HttpResponse.BodyHandlers.ofString()).body();
    }

    /** The Prometheus text of {@code /q/metrics}, or an empty string if it cannot be had. */
    public String metrics() {
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

    private HttpRequest request(String path) {
        return HttpRequest.newBuilder(baseUri.resolve(path))
                .timeout(Duration.ofSeconds(10))
                .build();
    }

    /** SIGKILL: no shutdown hook, no flush, no goodbye to the database or the broker. */
    public void killNine() {
        process.destroyForcibly();
        try {
            process.waitFor();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            ChildProcesses.forget(process);
        }
    }

    /** SIGTERM, then SIGKILL if it has not stopped after the grace period. Idempotent. */
    @Override
    public void close() {
        if (!process.isAlive()) {
            ChildProcesses.forget(process);
            return;
        }
        try {
            if (ChildProcesses.stop(process, STOP_GRACE).isEmpty()) {
                System.err.printf("%s did not stop within %s of SIGTERM; killed%n", name, STOP_GRACE);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
