package io.orderflow.process;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;

/**
 * A broker JVM started by a {@link BrokerLauncher} (for the platform, the benchmarks and the compatibility tests),
 * and what they read from it: its addresses, its pid and output, how long it took to answer its first request, its
 * resident memory ({@code VmRSS}, and the kernel's peak {@code VmHWM}, from {@code /proc/<pid>/status}) and the CPU
 * time it has used. Its stdout and stderr go to {@link #logFile()}.
 *
 * <p>Thread-safe as {@link ChildProcess} is: its own fields are final.
 */
public final class RunningBroker implements AutoCloseable {
    public static final String HOST = "127.0.0.1";
    private static final Duration STARTUP_TIMEOUT = Duration.ofMinutes(2);
    private static final Duration SHUTDOWN_TIMEOUT = Duration.ofSeconds(60);

    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private final ChildProcess process;
    private final OrderflowBrokerLauncher.Addresses addresses;

    private RunningBroker(ChildProcess process, OrderflowBrokerLauncher.Addresses addresses) {
        this.process = process;
        this.addresses = addresses;
    }

    /**
     * Starts {@code command} and returns once the broker answers an ApiVersions request on {@code port} of
     * {@link #HOST}; the start-up time runs from just before the JVM is spawned to that answer. {@code logFile} starts
     * empty: it holds this broker's output only, which the benchmarks search for warnings.
     *
     * @throws ServiceStartException if it exits first or does not answer within two minutes
     */
    public static RunningBroker launch(String name, List<String> command, int port, Path logFile) throws IOException {
        return launch(name, command, new OrderflowBrokerLauncher.Addresses(HOST, port, HOST, -1), logFile, null);
    }

    /**
     * Starts {@code command} and returns once the broker answers an ApiVersions request at {@code addresses} and, when
     * it has a metrics port, once its {@code /health} answers 200.
     *
     * @throws ServiceStartException if it exits first or is not ready within two minutes
     */
    static RunningBroker launch(
            String name, List<String> command, OrderflowBrokerLauncher.Addresses addresses, Path logFile, Path pidFile)
            throws IOException {
        return launch(name, command, addresses, logFile, pidFile, null);
    }

    /** As above, probing over TLS with {@code tls} when the listener is a TLS one. */
    static RunningBroker launch(
            String name,
            List<String> command,
            OrderflowBrokerLauncher.Addresses addresses,
            Path logFile,
            Path pidFile,
            javax.net.ssl.SSLSocketFactory tls)
            throws IOException {
        Files.deleteIfExists(logFile);
        String probeHost =
                addresses.listenHost().isEmpty() || addresses.listenHost().equals("0.0.0.0")
                        ? HOST
                        : addresses.listenHost();
        URI health = addresses.metricsPort() > 0
                ? URI.create("http://" + probeHost + ":" + addresses.metricsPort() + "/health")
                : null;
        ChildProcess process = ChildProcess.start(
                new ChildProcess.Spec(name, command, logFile, pidFile, SHUTDOWN_TIMEOUT),
                () -> ApiVersionsProbe.answers(probeHost, addresses.port(), 200, tls)
                        && (health == null || healthy(health)),
                "answering ApiVersions on " + probeHost + ":" + addresses.port()
                        + (health == null ? "" : " and " + health + " with 200"),
                STARTUP_TIMEOUT);
        return new RunningBroker(process, addresses);
    }

    /** {@code bootstrap.servers} for clients: the advertised host and the port. */
    public String bootstrapServers() {
        return addresses.advertisedHost() + ":" + addresses.port();
    }

    /** Where it listens and what it advertises, with the ports it was given (free ones resolved). */
    public OrderflowBrokerLauncher.Addresses addresses() {
        return addresses;
    }

    /** A path on its metrics endpoint, e.g. {@code /metrics}; only for a broker started with a metrics port. */
    public URI http(String path) {
        if (addresses.metricsPort() <= 0) {
            throw new IllegalStateException(process.name() + " runs without a metrics endpoint");
        }
        return URI.create("http://" + addresses.advertisedHost() + ":" + addresses.metricsPort() + path);
    }

    public long pid() {
        return process.pid();
    }

    public CompletableFuture<Integer> onExit() {
        return process.onExit();
    }

    /** The last {@code lines} lines of its output. */
    public String tail(int lines) {
        return process.tail(lines);
    }

    public double startupMillis() {
        return process.readyMillis();
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    public Path logFile() {
        return process.logFile();
    }

    /** Resident memory now ({@code VmRSS}), in MiB. */
    public double rssMiB() {
        return statusKiB("VmRSS:") / 1024.0;
    }

    /** The highest resident memory since the broker started ({@code VmHWM}), in MiB. */
    public double peakRssMiB() {
        return statusKiB("VmHWM:") / 1024.0;
    }

    /** User plus system CPU time used so far, in seconds. */
    public double cpuSeconds() {
        return process.cpuSeconds();
    }

    private long statusKiB(String field) {
        Path status = Path.of("/proc", Long.toString(process.pid()), "status");
        try {
            for (String line : Files.readAllLines(status)) {
                if (line.startsWith(field)) {
                    return Long.parseLong(
                            line.substring(field.length()).replace("kB", "").trim());
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read " + status + " of " + process.name(), e);
        }
        throw new IllegalStateException("No " + field + " in " + status + " of " + process.name());
    }

    private static boolean healthy(URI health) {
        try {
            return HTTP.send(
                                    HttpRequest.newBuilder(health)
                                            .timeout(Duration.ofSeconds(2))
                                            .build(),
                                    HttpResponse.BodyHandlers.discarding())
                            .statusCode()
                    == 200;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** SIGKILL: no shutdown, no flush; returns once the process is gone (or at once if this thread is interrupted). */
    public void kill() {
        process.killNine();
    }

    /** SIGTERM, then waits for the broker to exit; kills it if it has not after a minute. */
    @Override
    public void close() {
        process.close();
    }

    /**
     * SIGTERM, then waits up to {@code grace} for the broker to exit; if it has not, kills it: see
     * {@link ChildProcess#stop}.
     *
     * @return the broker's exit code if it exited within {@code grace} of SIGTERM (or had already exited), empty
     *     if it had to be killed
     * @throws InterruptedException if interrupted while waiting; the broker has then been killed
     */
    public OptionalInt stop(Duration grace) throws InterruptedException {
        return process.stop(grace);
    }
}
