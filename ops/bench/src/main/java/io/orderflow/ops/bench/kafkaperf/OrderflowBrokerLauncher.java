package io.orderflow.ops.bench.kafkaperf;

import io.orderflow.process.ChildProcesses;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Our broker, as {@code ops/bin/run-broker} starts it: {@code log-broker.jar} and {@code lib/*} on the classpath, with its
 * default durability ({@code flush.messages=1}: fsync before acknowledging) and, for the benchmarks, no JVM options.
 * Only the listener, the data directory and the settings Apache Kafka gets too (the number of partitions of topics
 * created without a count, no initial rebalance delay) are set; the HTTP metrics endpoint is off because Apache
 * Kafka serves none either. {@link #start} returns once the broker answers an ApiVersions request. The benchmarks
 * use this launcher, and so do the compatibility module's tests.
 */
public final class OrderflowBrokerLauncher implements BrokerLauncher {
    static final String MAIN_CLASS = "io.orderflow.broker.server.BrokerMain";

    private final Path brokerDir;
    private final List<String> jvmOptions;
    private final int partitions;
    private final List<String> extraSettings;

    /**
     * The benchmarks' broker: no JVM options, six partitions by default (as Apache Kafka gets there).
     * {@code brokerDir} holds {@code log-broker.jar} and {@code lib/}; {@code extraSettings} are {@code KEY=VALUE}
     * settings beyond the defaults, for investigations only.
     */
    public OrderflowBrokerLauncher(Path brokerDir, List<String> extraSettings) {
        this(brokerDir, List.of(), KafkaPerfBenchmark.PARTITIONS, extraSettings);
    }

    /**
     * @param brokerDir holds {@code log-broker.jar} and {@code lib/}
     * @param jvmOptions options for the broker's JVM, before its classpath
     * @param partitions {@code num.partitions}, the partitions of auto-created topics and of CreateTopics without a
     *     count (the broker's default is 1)
     * @param extraSettings {@code KEY=VALUE} settings beyond the defaults, passed as {@code --KEY=VALUE}
     */
    public OrderflowBrokerLauncher(
            Path brokerDir, List<String> jvmOptions, int partitions, List<String> extraSettings) {
        this.brokerDir = brokerDir.toAbsolutePath().normalize();
        this.jvmOptions = List.copyOf(jvmOptions);
        this.partitions = partitions;
        this.extraSettings = List.copyOf(extraSettings);
    }

    @Override
    public String name() {
        return "orderflow log-broker";
    }

    @Override
    public String describe() {
        return "orderflow log-broker (" + brokerDir.resolve("log-broker.jar") + "), "
                + (jvmOptions.isEmpty()
                        ? "JVM defaults as ops/bin/run-broker, "
                        : "JVM options " + String.join(" ", jvmOptions) + ", ")
                + (extraSettings.isEmpty()
                        ? "fsync before acknowledging (flush.messages=1, the default)"
                        : "NOT the defaults: " + String.join(" ", extraSettings));
    }

    @Override
    public RunningBroker start(Path runDir, Path logFile) throws IOException {
        Path jar = brokerDir.resolve("log-broker.jar");
        if (!Files.isRegularFile(jar) || !Files.isDirectory(brokerDir.resolve("lib"))) {
            throw new IOException("No packaged broker in " + brokerDir + " (log-broker.jar and lib/); build it: "
                    + "./mvnw -pl log-broker -am install -DskipTests");
        }
        int port = BrokerLauncher.freeLoopbackPorts(1).getFirst();
        List<String> command = new ArrayList<>();
        command.add(ChildProcesses.java());
        command.addAll(jvmOptions);
        command.addAll(List.of(
                "-cp",
                jar + ":" + brokerDir.resolve("lib") + "/*",
                MAIN_CLASS,
                "--listen.host=" + RunningBroker.HOST,
                "--advertised.host=" + RunningBroker.HOST,
                "--port=" + port,
                "--log.dirs=" + runDir.resolve("data").toAbsolutePath(),
                "--metrics.port=-1",
                "--num.partitions=" + partitions,
                "--group.initial.rebalance.delay.ms=0"));
        extraSettings.forEach(setting -> command.add("--" + setting));
        return RunningBroker.launch(name(), command, port, logFile);
    }
}
