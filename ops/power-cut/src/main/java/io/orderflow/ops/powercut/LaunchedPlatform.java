package io.orderflow.ops.powercut;

import io.orderflow.kafka.KafkaClientSettings;
import io.orderflow.ops.drill.DrillTarget;
import io.orderflow.ops.drill.ServiceControl;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;

/**
 * The whole platform as {@code ./run-platform} starts it (the launcher built in {@code ops/platform/target}, run from
 * the repository), with everything it keeps on one directory: PostgreSQL's data, the broker's log, the launcher's
 * state, secrets and the services' logs. Its ports are chosen once and kept across restarts, so that the traffic and
 * the checks reach the same URLs after every power cut; the services start without warm-ups and AOT caches (a cut
 * would leave a cache half-trained), and send their mails to {@code smtpServer}, a dead instance's claimed mails again
 * after 12 s ({@code ORDERFLOW_NOTIFICATION_SERVICE_SEND_LEASE}; the default is 2 minutes).
 *
 * <p>{@link #processes()} is everything a power cut kills: the launcher, what it started, and PostgreSQL's processes
 * (which {@code pg_ctl} detaches from the launcher). Not thread-safe.
 */
final class LaunchedPlatform {
    static final String READY = "orderflow platform is ready.";
    private static final String PRINCIPAL = DrillTarget.PRINCIPAL;
    static final String SEND_LEASE = "12s";

    private final Path repository;
    private final Path directory;
    private final Path output;
    private final String smtpServer;
    private final int brokerPort;
    private final int metricsPort;
    private final int orderServicePort;
    private final int relayPort;
    private final int consumerPortsFrom;
    private Process launcher;
    private Path log;
    private int starts;

    LaunchedPlatform(Path repository, Path directory, Path output, String smtpServer) throws IOException {
        this.repository = repository.toAbsolutePath().normalize();
        this.directory = directory.toAbsolutePath().normalize();
        this.output = output.toAbsolutePath().normalize();
        this.smtpServer = smtpServer;
        int first = freeRange(9);
        this.brokerPort = first;
        this.metricsPort = first + 1;
        this.orderServicePort = first + 2;
        this.relayPort = first + 3;
        this.consumerPortsFrom = first + 4;
    }

    /** Starts the launcher and returns once it says the platform is ready, or throws after {@code within}. */
    void start(Duration within) throws IOException, InterruptedException, TimeoutException {
        Path jar = repository.resolve("ops/platform/target/platform.jar");
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException(jar + " is missing: build the launcher first (./mvnw install -pl"
                    + " ops/platform -am -DskipTests; ops/bin/drill power-cut does)");
        }
        starts++;
        log = output.resolve("launcher-" + starts + ".log");
        List<String> command = new ArrayList<>(List.of(
                ProcessHandle.current().info().command().orElse("java"),
                "-XX:TieredStopAtLevel=1",
                "-cp",
                jar + ":" + repository.resolve("ops/platform/target/lib") + "/*",
                "io.orderflow.platform.PlatformLauncher",
                "--postgres-dir",
                directory.resolve("postgres").toString(),
                "--broker-dir",
                directory.resolve("broker").toString(),
                "--broker-port",
                Integer.toString(brokerPort),
                "--metrics-port",
                Integer.toString(metricsPort),
                "--order-service-port",
                Integer.toString(orderServicePort),
                "--relay-port",
                Integer.toString(relayPort),
                "--consumer-ports-from",
                Integer.toString(consumerPortsFrom),
                "--smtp-server",
                smtpServer,
                "--no-aot-cache",
                "--no-warm-up"));
        ProcessBuilder builder = new ProcessBuilder(command)
                .directory(repository.toFile())
                .redirectErrorStream(true)
                .redirectOutput(log.toFile());
        // The mails a killed notification-service had claimed wait for their lease to pass before they are sent
        // again: 12 s instead of the default 2 minutes (as notification-service's own process tests), so that a
        // check after a cut need not wait minutes.
        builder.environment().put("ORDERFLOW_NOTIFICATION_SERVICE_SEND_LEASE", SEND_LEASE);
        launcher = builder.start();
        long deadline = System.nanoTime() + within.toNanos();
        while (!Files.readString(log, StandardCharsets.UTF_8).contains(READY)) {
            if (!launcher.isAlive()) {
                throw new IllegalStateException(
                        "the launcher exited with " + launcher.exitValue() + "; its log: " + log + "\n" + tail(log));
            }
            if (System.nanoTime() > deadline) {
                throw new TimeoutException("the platform was not ready within " + within.toSeconds() + " s; the"
                        + " launcher's log: " + log + "\n" + tail(log));
            }
            launcher.waitFor(100, TimeUnit.MILLISECONDS);
        }
    }

    /** Every process of the platform: the launcher, its descendants, and PostgreSQL's processes on this directory. */
    List<ProcessHandle> processes() {
        List<ProcessHandle> all = new ArrayList<>();
        if (launcher != null) {
            all.add(launcher.toHandle());
            launcher.descendants().forEach(all::add);
        }
        String data = directory.toString();
        try (Stream<ProcessHandle> every = ProcessHandle.allProcesses()) {
            every.filter(handle -> handle.pid() != ProcessHandle.current().pid())
                    .filter(handle -> handle.info()
                            .commandLine()
                            .map(line -> line.contains(data) && line.contains("postgres"))
                            .orElse(false))
                    .filter(handle -> !all.contains(handle))
                    .forEach(all::add);
        }
        return all;
    }

    /** The launcher's control port: kill and start of each service, the broker and PostgreSQL. */
    ServiceControl control() throws IOException {
        return ServiceControl.fromStateFile(directory.resolve("platform.state"))
                .orElseThrow(() -> new IllegalStateException("the launcher has not written its control port yet"));
    }

    /**
     * The processes of one part of the platform as they run now: a service's or the broker's (pids from the launcher's
     * state, which follows restarts), or for {@code postgres} its postmaster and every process it started.
     */
    List<ProcessHandle> processesOf(String part) throws IOException {
        long pid;
        if (part.equals("postgres")) {
            Path pidFile = directory.resolve("postgres").resolve("cluster").resolve("postmaster.pid");
            pid = Long.parseLong(Files.readAllLines(pidFile).getFirst().strip());
        } else {
            Properties state = new Properties();
            try (InputStream in = Files.newInputStream(directory.resolve("platform.state"))) {
                state.load(in);
            }
            String key = part.equals("log-broker") ? "broker.pid" : null;
            for (int i = 0; key == null && state.getProperty("service." + i + ".name") != null; i++) {
                if (state.getProperty("service." + i + ".name").equals(part)) {
                    key = "service." + i + ".pid";
                }
            }
            if (key == null || state.getProperty(key) == null) {
                throw new IllegalArgumentException("the platform has no process '" + part + "'");
            }
            pid = Long.parseLong(state.getProperty(key));
        }
        ProcessHandle process = ProcessHandle.of(pid)
                .orElseThrow(() -> new IllegalStateException(part + "'s process " + pid + " is not running"));
        List<ProcessHandle> all = new ArrayList<>(List.of(process));
        process.descendants().forEach(all::add);
        return all;
    }

    /** Sends {@code signal} ({@code STOP}, {@code CONT}) to every process of {@code processes}, with kill(1). */
    static void signal(String signal, List<ProcessHandle> processes) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("kill", "-" + signal));
        processes.forEach(process -> command.add(Long.toString(process.pid())));
        Process kill = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (kill.waitFor() != 0) {
            throw new IOException(String.join(" ", command) + " failed: " + output.strip());
        }
    }

    /** Stops the platform as Ctrl-C does, or kills what is left after 60 s. */
    void stop() throws InterruptedException {
        if (launcher == null) {
            return;
        }
        launcher.destroy();
        if (!launcher.waitFor(60, TimeUnit.SECONDS)) {
            processes().forEach(ProcessHandle::destroyForcibly);
        }
    }

    /** The launcher's output of its latest start. */
    Path log() {
        return log;
    }

    /** Where the drill's clients find the platform: its fixed ports, and the drills' principal's secrets. */
    DrillTarget target() throws IOException {
        Properties state = new Properties();
        try (InputStream in = Files.newInputStream(directory.resolve("platform.state"))) {
            state.load(in);
        }
        String bootstrap = state.getProperty("broker.bootstrap");
        Path secrets = directory.resolve("secrets");
        Path clientProperties = secrets.resolve("clients").resolve(PRINCIPAL + ".properties");
        Path adminToken = secrets.resolve("admin-token");
        return new DrillTarget(
                local(orderServicePort),
                local(consumerPortsFrom),
                local(consumerPortsFrom + 1),
                local(consumerPortsFrom + 2),
                local(consumerPortsFrom + 4),
                Files.isRegularFile(clientProperties)
                        ? KafkaClientSettings.fromFile(bootstrap, clientProperties)
                        : KafkaClientSettings.plaintext(bootstrap),
                Files.isRegularFile(adminToken) ? Files.readString(adminToken).trim() : null);
    }

    private static URI local(int port) {
        return URI.create("http://127.0.0.1:" + port);
    }

    private static String tail(Path log) throws IOException {
        List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
    }

    /**
     * The first of {@code count} consecutive ports that were all free a moment ago, below the range the kernel hands
     * out to outgoing connections ({@code ip_local_port_range}): the platform listens on them again after every cut,
     * and a port in that range may meanwhile be the local end of some connection.
     */
    private static int freeRange(int count) throws IOException {
        int ephemeralFloor = 32_768;
        Path range = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
        if (Files.isReadable(range)) {
            ephemeralFloor =
                    Integer.parseInt(Files.readAllLines(range).getFirst().trim().split("\\s+")[0]);
        }
        int lowest = Math.min(10_000, ephemeralFloor / 2);
        for (int attempt = 0; attempt < 100; attempt++) {
            int first = ThreadLocalRandom.current().nextInt(lowest, ephemeralFloor - count);
            List<ServerSocket> held = new ArrayList<>();
            try {
                for (int port = first; port < first + count; port++) {
                    held.add(new ServerSocket(port, 1, InetAddress.getLoopbackAddress()));
                }
                return first;
            } catch (IOException taken) {
                // try another range
            } finally {
                for (ServerSocket socket : held) {
                    socket.close();
                }
            }
        }
        throw new IOException("no " + count + " consecutive free ports found");
    }
}
