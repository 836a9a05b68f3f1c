package io.orderflow.process;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalInt;

/**
 * A packaged Quarkus service ({@code <module>/target/quarkus-app/quarkus-run.jar}) as a child process, exactly as it
 * runs anywhere else: {@code java -jar} with its configuration as {@code -D} system properties. The one way the
 * platform launcher, the benchmarks and the tests run a service; a process, not a thread, because each Quarkus
 * application wants a JVM of its own, and because then stopping, crashing and restarting one is what it will be in
 * production.
 *
 * <p><b>Start.</b> {@link Builder#start()} returns once the readiness path ({@code /q/health/ready} unless set
 * otherwise) answers 200, and fails with {@link ServiceStartException}, carrying the tail of the service's log, if
 * the jar is missing, the process exits first, or it is not ready in time. Output goes to a log file (appended). The
 * process itself (start, readiness polling, log, stop, crash) is a {@link ChildProcess}; this class adds the command
 * line of a Quarkus jar and the HTTP side.
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

    private final ChildProcess process;
    private final URI baseUri;

    private ServiceProcess(ChildProcess process, URI baseUri) {
        this.process = process;
        this.baseUri = baseUri;
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
                ChildProcesses.reclaimOrphan(pidFile, jar.toString());
            }
            int httpPort = port == 0 ? ChildProcesses.freeLoopbackPort() : port;
            List<String> command = new ArrayList<>();
            command.add(ChildProcesses.java());
            command.addAll(jvmOptions);
            command.add("-Dquarkus.http.host=" + host);
            command.add("-Dquarkus.http.port=" + httpPort);
            properties.forEach((key, value) -> command.add("-D" + key + "=" + value));
            command.add("-jar");
            command.add(jar.toString());
            String shownHost = host.equals("0.0.0.0") ? LOOPBACK : host;
            URI baseUri = URI.create("http://" + shownHost + ":" + httpPort);
            ChildProcess process = ChildProcess.start(
                    new ChildProcess.Spec(name, command, logFile, pidFile, STOP_GRACE),
                    () -> status(baseUri, readinessPath) == 200,
                    readinessPath + " answering 200",
                    readyTimeout);
            return new ServiceProcess(process, baseUri);
        }
    }

    public String name() {
        return process.name();
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
        return process.readyMillis();
    }

    public Path logFile() {
        return process.logFile();
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** The exit code once the process has ended; empty while it runs. */
    public OptionalInt exitCode() {
        return process.exitCode();
    }

    /** Completes with the exit code when the service's process ends, however it ends. */
    public java.util.concurrent.CompletableFuture<Integer> onExit() {
        return process.onExit();
    }

    /** Everything the service wrote to its log so far. */
    public String log() {
        return process.log();
    }

    /** The last {@code lines} lines of its log. */
    public String tail(int lines) {
        return process.tail(lines);
    }

    /** The HTTP status of {@code GET path}, or -1 when the service does not answer. */
    public int status(String path) {
        return status(baseUri, path);
    }

    private static int status(URI baseUri, String path) {
        try {
            return HTTP.send(request(baseUri, path), HttpResponse.BodyHandlers.discarding())
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
        return request(baseUri, path);
    }

    private static HttpRequest request(URI baseUri, String path) {
        return HttpRequest.newBuilder(baseUri.resolve(path))
                .timeout(Duration.ofSeconds(10))
                .build();
    }

    /** SIGKILL: no shutdown hook, no flush, no goodbye to the database or the broker. */
    public void killNine() {
        process.killNine();
    }

    /** SIGTERM, then SIGKILL if it has not stopped after the grace period. Idempotent. */
    @Override
    public void close() {
        process.close();
    }
}
