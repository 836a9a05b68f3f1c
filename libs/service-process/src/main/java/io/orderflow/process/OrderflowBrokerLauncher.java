package io.orderflow.process;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.SSLSocketFactory;

/**
 * Our broker as a child JVM: {@code BrokerMain} on a classpath of {@code log-broker.jar} and its {@code lib/*} (as
 * {@code ops/bin/run-broker} starts it) or on a given classpath (the platform launcher's own, which holds log-broker),
 * with its default durability ({@code flush.messages=1}: fsync before acknowledging). The one launcher of our broker:
 * the platform, the benchmarks, the compatibility and foreign-client tests all start it through this class.
 *
 * <p>{@link #start(Path, Path)} is the benchmarks' and tests' start: a free loopback port, data under a fresh run
 * directory, no HTTP metrics endpoint (Apache Kafka serves none either). {@link #start(Addresses, Path, Path, Path)}
 * is the platform's: fixed ports kept across restarts, a metrics endpoint, an advertised host, a pid file. Either
 * returns once the broker answers an ApiVersions request (and, with a metrics port, once {@code /health} answers
 * 200).
 *
 * <p>Immutable and thread-safe.
 */
public final class OrderflowBrokerLauncher implements BrokerLauncher {
    public static final String MAIN_CLASS = "io.orderflow.broker.server.BrokerMain";

    /** Where a broker listens and what it tells clients; port 0 picks a free loopback port, metrics -1 turns it off. */
    public record Addresses(String listenHost, int port, String advertisedHost, int metricsPort) {}

    /**
     * The broker's one listener when it is not PLAINTEXT: its security protocol ({@code SASL_SSL}, {@code SSL},
     * {@code SASL_PLAINTEXT}), the broker settings it needs ({@code ssl.keystore.*}, {@code
     * scram.bootstrap.credentials}, ...) and, for a TLS listener, how the start-up probe trusts the broker's
     * certificate.
     */
    public record Listener(String protocol, List<String> settings, SSLSocketFactory probeTls) {
        public Listener {
            settings = List.copyOf(settings);
        }
    }

    private final String classpath;
    private final Path packagedIn;
    private final List<String> jvmOptions;
    private final List<String> settings;
    private final Listener listener;

    private OrderflowBrokerLauncher(
            String classpath, Path packagedIn, List<String> jvmOptions, List<String> settings, Listener listener) {
        this.classpath = classpath;
        this.packagedIn = packagedIn;
        this.jvmOptions = List.copyOf(jvmOptions);
        this.settings = List.copyOf(settings);
        this.listener = listener;
    }

    /** This launcher with its broker listening through {@code listener} instead of PLAINTEXT. */
    public OrderflowBrokerLauncher withListener(Listener listener) {
        return new OrderflowBrokerLauncher(classpath, packagedIn, jvmOptions, settings, listener);
    }

    /**
     * The benchmarks' broker: no JVM options, {@link BrokerLauncher#DEFAULT_PARTITIONS} partitions by default (as
     * Apache Kafka gets there). {@code brokerDir} holds {@code log-broker.jar} and {@code lib/}; {@code extraSettings}
     * are {@code KEY=VALUE} settings beyond the defaults, for investigations only.
     */
    public OrderflowBrokerLauncher(Path brokerDir, List<String> extraSettings) {
        this(brokerDir, List.of(), BrokerLauncher.DEFAULT_PARTITIONS, extraSettings);
    }

    /**
     * The packaged broker for benchmarks and tests: no initial rebalance delay, as Apache Kafka gets there.
     *
     * @param brokerDir holds {@code log-broker.jar} and {@code lib/}
     * @param jvmOptions options for the broker's JVM, before its classpath
     * @param partitions {@code num.partitions}, the partitions of auto-created topics and of CreateTopics without a
     *     count (the broker's default is 1)
     * @param extraSettings {@code KEY=VALUE} settings beyond the defaults, passed as {@code --KEY=VALUE}
     */
    public OrderflowBrokerLauncher(
            Path brokerDir, List<String> jvmOptions, int partitions, List<String> extraSettings) {
        this(
                packagedClasspath(brokerDir.toAbsolutePath().normalize()),
                brokerDir.toAbsolutePath().normalize(),
                jvmOptions,
                concat(List.of("num.partitions=" + partitions, "group.initial.rebalance.delay.ms=0"), extraSettings),
                null);
    }

    /**
     * The broker from an explicit classpath that holds log-broker and its dependencies (e.g. this JVM's own
     * {@code java.class.path}), with every setting at the broker's default but those given.
     */
    public static OrderflowBrokerLauncher onClasspath(
            String classpath, List<String> jvmOptions, List<String> settings) {
        return new OrderflowBrokerLauncher(classpath, null, jvmOptions, settings, null);
    }

    @Override
    public String name() {
        return "orderflow log-broker";
    }

    @Override
    public String describe() {
        return "orderflow log-broker ("
                + (packagedIn == null ? "classpath " + classpath : packagedIn.resolve("log-broker.jar")) + "), "
                + (jvmOptions.isEmpty()
                        ? "JVM defaults as ops/bin/run-broker, "
                        : "JVM options " + String.join(" ", jvmOptions) + ", ")
                + "settings " + String.join(" ", settings)
                + (listener == null ? "" : ", a " + listener.protocol() + " listener")
                + " (fsync before acknowledging unless a flush setting says otherwise)";
    }

    @Override
    public RunningBroker start(Path runDir, Path logFile) throws IOException {
        return start(
                new Addresses(RunningBroker.HOST, 0, RunningBroker.HOST, -1), runDir.resolve("data"), logFile, null);
    }

    /**
     * Starts the broker at {@code addresses} with its log in {@code dataDir} and its output in {@code logFile}
     * (emptied first); {@code pidFile}, if not null, names its pid while it runs, so that a later launcher can stop an
     * orphan of a launcher killed with {@code kill -9}.
     *
     * @throws ServiceStartException if it exits first or is not ready within two minutes
     */
    public RunningBroker start(Addresses addresses, Path dataDir, Path logFile, Path pidFile) throws IOException {
        if (packagedIn != null
                && (!Files.isRegularFile(packagedIn.resolve("log-broker.jar"))
                        || !Files.isDirectory(packagedIn.resolve("lib")))) {
            throw new IOException("No packaged broker in " + packagedIn + " (log-broker.jar and lib/); build it: "
                    + "./mvnw -pl log-broker -am install -DskipTests");
        }
        if (pidFile != null) {
            ChildProcesses.reclaimOrphan(pidFile, MAIN_CLASS);
        }
        List<Integer> free = ChildProcesses.freeLoopbackPorts(2);
        int port = addresses.port() == 0 ? free.get(0) : addresses.port();
        int metricsPort = addresses.metricsPort() == 0 ? free.get(1) : addresses.metricsPort();
        List<String> command = new ArrayList<>();
        command.add(ChildProcesses.java());
        // An OutOfMemoryError anywhere stops the broker (exit code 3) instead of leaving it alive and unanswering.
        command.add("-XX:+ExitOnOutOfMemoryError");
        command.addAll(jvmOptions);
        command.addAll(List.of(
                "-cp",
                classpath,
                MAIN_CLASS,
                "--listen.host=" + addresses.listenHost(),
                "--advertised.host=" + addresses.advertisedHost(),
                "--port=" + port,
                "--log.dirs=" + dataDir.toAbsolutePath(),
                "--metrics.port=" + metricsPort));
        settings.forEach(setting -> command.add("--" + setting));
        if (listener != null) {
            String host = addresses.listenHost().equals("0.0.0.0") ? "" : addresses.listenHost();
            command.add("--listeners=" + listener.protocol() + "://" + host + ":" + port);
            command.add("--config=" + listenerSettingsFile(dataDir));
        }
        return RunningBroker.launch(
                name(),
                command,
                new Addresses(addresses.listenHost(), port, addresses.advertisedHost(), metricsPort),
                logFile,
                pidFile,
                listener == null ? null : listener.probeTls());
    }

    /**
     * The listener's settings (passwords among them) in a file only its owner can read, beside the data directory,
     * rather than on the command line, where anyone on the machine could read them with {@code ps}.
     */
    private Path listenerSettingsFile(Path dataDir) throws IOException {
        Path absolute = dataDir.toAbsolutePath();
        Files.createDirectories(absolute.getParent());
        Path file = absolute.resolveSibling(absolute.getFileName() + "-listener.properties");
        Files.deleteIfExists(file);
        Files.createFile(file);
        try {
            Files.setPosixFilePermissions(file, java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
        } catch (UnsupportedOperationException e) {
            // not a POSIX file system: the directory's own permissions apply
        }
        StringBuilder text = new StringBuilder();
        for (String setting : listener.settings()) {
            int eq = setting.indexOf('=');
            // Properties syntax: escape what load() would otherwise read as syntax.
            text.append(setting, 0, eq)
                    .append('=')
                    .append(setting.substring(eq + 1).replace("\\", "\\\\"))
                    .append('\n');
        }
        Files.writeString(file, text);
        return file;
    }

    private static String packagedClasspath(Path brokerDir) {
        return brokerDir.resolve("log-broker.jar") + ":" + brokerDir.resolve("lib") + "/*";
    }

    private static List<String> concat(List<String> first, List<String> second) {
        List<String> all = new ArrayList<>(first);
        all.addAll(second);
        return all;
    }
}
