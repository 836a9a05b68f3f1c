package io.orderflow.platform;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Properties;

/**
 * What a running launcher tells {@code ./run-platform status}, {@code stop} and {@code logs}: its own pid and, once the
 * services are up, each service's name, pid, base URL and log file.
 *
 * <p><b>Format.</b> A Java properties file, {@code platform.state} beside the PostgreSQL directory
 * ({@code .orderflow/platform.state} by default): {@code launcher.pid}; once the services are up, {@code control.url}
 * ({@link PlatformControl}), {@code broker.bootstrap} (what Kafka clients put in {@code bootstrap.servers}),
 * {@code broker.metrics} (the broker's Prometheus endpoint), {@code broker.pid}, {@code broker.log}, {@code broker.restarts}, {@code broker.last.exit.code} and {@code service.N.name}, {@code .pid},
 * {@code .url} and {@code .log} for N = 0, 1, ... in start order. Written whole to a temporary file and renamed, so a
 * reader sees the old state or the new one, never half of one.
 *
 * <p><b>Crash behaviour.</b> The launcher deletes the file when it stops cleanly; after {@code kill -9} the file stays
 * and names a launcher pid that is no longer alive, which readers take as "not running". Immutable.
 */
record PlatformState(long launcherPid, URI control, Broker broker, List<Service> services) {

    /**
     * The broker: its Kafka listener and, for our broker's process, its metrics endpoint, pid and log (null, 0 and
     * null for a Kafka cluster the launcher did not start), how many times the launcher started it again after it died
     * by itself ({@link BrokerSupervisor}), and the exit code of the last such death (0 before any).
     */
    record Broker(String bootstrapServers, URI metrics, long pid, Path log, int restarts, int lastExitCode) {

        static Broker external(String bootstrapServers) {
            return new Broker(bootstrapServers, null, 0, null, 0, 0);
        }

        boolean ours() {
            return pid > 0;
        }
    }

    /** One service process of the platform. */
    record Service(String name, long pid, URI url, Path log) {}

    PlatformState {
        services = List.copyOf(services);
    }

    /** A launcher that is still starting: no control port, broker or service yet. */
    static PlatformState starting(long launcherPid) {
        return new PlatformState(launcherPid, null, null, List.of());
    }

    /** The state file for a launch whose PostgreSQL directory is {@code postgresDirectory}. */
    static Path file(Path postgresDirectory) {
        return postgresDirectory.toAbsolutePath().normalize().resolveSibling("platform.state");
    }

    /** Where the services' logs go for that launch. */
    static Path logs(Path postgresDirectory) {
        return postgresDirectory.toAbsolutePath().normalize().resolveSibling("logs");
    }

    /**
     * The broker's process (named {@code log-broker}, its URL the metrics port's root) and then the services: every
     * process of the platform.
     */
    List<Service> processes() {
        List<Service> all = new ArrayList<>();
        if (broker != null && broker.ours()) {
            all.add(new Service(
                    BrokerProcess.NAME, broker.pid(), broker.metrics().resolve("/"), broker.log()));
        }
        all.addAll(services);
        return all;
    }

    boolean launcherAlive() {
        return ProcessHandle.of(launcherPid).map(ProcessHandle::isAlive).orElse(false);
    }

    void write(Path file) {
        Properties properties = new Properties();
        properties.setProperty("launcher.pid", Long.toString(launcherPid));
        if (control != null) {
            properties.setProperty("control.url", control.toString());
        }
        if (broker != null) {
            properties.setProperty("broker.bootstrap", broker.bootstrapServers());
            if (broker.ours()) {
                properties.setProperty("broker.metrics", broker.metrics().toString());
                properties.setProperty("broker.pid", Long.toString(broker.pid()));
                properties.setProperty("broker.log", broker.log().toString());
                properties.setProperty("broker.restarts", Integer.toString(broker.restarts()));
                properties.setProperty("broker.last.exit.code", Integer.toString(broker.lastExitCode()));
            }
        }
        for (int i = 0; i < services.size(); i++) {
            Service service = services.get(i);
            properties.setProperty("service." + i + ".name", service.name());
            properties.setProperty("service." + i + ".pid", Long.toString(service.pid()));
            properties.setProperty("service." + i + ".url", service.url().toString());
            properties.setProperty("service." + i + ".log", service.log().toString());
        }
        try {
            Files.createDirectories(file.getParent());
            Path temporary = file.resolveSibling(file.getFileName() + ".tmp");
            try (Writer writer = Files.newBufferedWriter(temporary, StandardCharsets.UTF_8)) {
                properties.store(writer, "orderflow platform launcher: read by ./run-platform status, stop and logs");
            }
            Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot write " + file, e);
        }
    }

    /** The state in {@code file}, or empty when there is none (no launcher ran here, or it stopped cleanly). */
    static Optional<PlatformState> read(Path file) {
        if (!Files.isRegularFile(file)) {
            return Optional.empty();
        }
        Properties properties = new Properties();
        try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            properties.load(reader);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read " + file, e);
        }
        List<Service> services = new ArrayList<>();
        for (int i = 0; properties.containsKey("service." + i + ".name"); i++) {
            services.add(new Service(
                    properties.getProperty("service." + i + ".name"),
                    Long.parseLong(properties.getProperty("service." + i + ".pid")),
                    URI.create(properties.getProperty("service." + i + ".url")),
                    Path.of(properties.getProperty("service." + i + ".log"))));
        }
        String control = properties.getProperty("control.url");
        String bootstrap = properties.getProperty("broker.bootstrap");
        return Optional.of(new PlatformState(
                Long.parseLong(properties.getProperty("launcher.pid")),
                control == null ? null : URI.create(control),
                bootstrap == null
                        ? null
                        : properties.getProperty("broker.pid") == null
                                ? Broker.external(bootstrap)
                                : new Broker(
                                        bootstrap,
                                        URI.create(properties.getProperty("broker.metrics")),
                                        Long.parseLong(properties.getProperty("broker.pid")),
                                        Path.of(properties.getProperty("broker.log")),
                                        Integer.parseInt(properties.getProperty("broker.restarts", "0")),
                                        Integer.parseInt(properties.getProperty("broker.last.exit.code", "0"))),
                services));
    }

    static void delete(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot delete " + file, e);
        }
    }
}
