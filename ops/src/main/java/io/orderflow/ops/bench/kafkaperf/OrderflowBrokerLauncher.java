package io.orderflow.ops.bench.kafkaperf;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Our broker, as {@code ./run-broker} starts it: {@code log-broker.jar} and {@code lib/*} on the classpath and no
 * JVM options, with its default durability ({@code flush.messages=1}: fsync before acknowledging). Only the
 * listener, the data directory and the settings Apache Kafka gets too (six partitions by default, no initial
 * rebalance delay) are set; the HTTP metrics endpoint is off because Apache Kafka serves none either.
 */
public final class OrderflowBrokerLauncher implements BrokerLauncher {
    static final String MAIN_CLASS = "io.orderflow.broker.server.BrokerMain";

    private final Path brokerDir;
    private final List<String> extraSettings;

    /**
     * {@code brokerDir} holds {@code log-broker.jar} and {@code lib/}; {@code extraSettings} are {@code KEY=VALUE}
     * settings beyond the defaults, for investigations only.
     */
    public OrderflowBrokerLauncher(Path brokerDir, List<String> extraSettings) {
        this.brokerDir = brokerDir.toAbsolutePath().normalize();
        this.extraSettings = List.copyOf(extraSettings);
    }

    @Override
    public String name() {
        return "orderflow log-broker";
    }

    @Override
    public String describe() {
        return "orderflow log-broker (" + brokerDir.resolve("log-broker.jar") + "), JVM defaults as ./run-broker, "
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
        List<String> command = new ArrayList<>(List.of(
                ChildProcesses.java(),
                "-cp",
                jar + ":" + brokerDir.resolve("lib") + "/*",
                MAIN_CLASS,
                "--listen.host=" + RunningBroker.HOST,
                "--advertised.host=" + RunningBroker.HOST,
                "--port=" + port,
                "--log.dirs=" + runDir.resolve("data").toAbsolutePath(),
                "--metrics.port=-1",
                "--num.partitions=" + KafkaPerfBenchmark.PARTITIONS,
                "--group.initial.rebalance.delay.ms=0"));
        extraSettings.forEach(setting -> command.add("--" + setting));
        return RunningBroker.launch(name(), command, port, logFile);
    }
}
