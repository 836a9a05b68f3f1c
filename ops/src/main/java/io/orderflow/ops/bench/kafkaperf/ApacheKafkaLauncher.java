package io.orderflow.ops.bench.kafkaperf;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * Apache Kafka 4.4.0 from Maven Central, one node in KRaft combined mode (broker and controller in one JVM), set up
 * the way its quickstart does: a generated {@code server.properties}, the storage formatted by
 * {@code kafka.tools.StorageTool format --standalone} with a random cluster id, then {@code kafka.Kafka}. The JVM
 * options are those {@code bin/kafka-server-start.sh} and {@code bin/kafka-run-class.sh} use (1 GiB fixed heap,
 * G1 with 20 ms pauses), minus GC logging and JMX. Durability is Kafka's default: acks=all is answered once the
 * (single) in-sync replica has the records in the page cache; nothing is fsynced before acknowledging.
 *
 * <p>Its classpath is exactly kafka-anchor's {@code target/kafka-broker}: kafka_2.13 and its dependencies, plus
 * the Log4j SLF4J binding the binary distribution ships. Broker log lines go to stdout at INFO, as with
 * {@code kafka-server-start.sh}.
 */
public final class ApacheKafkaLauncher implements BrokerLauncher {
    static final List<String> JVM_OPTIONS = List.of(
            "-Xmx1G",
            "-Xms1G",
            "-server",
            "-XX:+UseG1GC",
            "-XX:MaxGCPauseMillis=20",
            "-XX:InitiatingHeapOccupancyPercent=35",
            "-XX:+ExplicitGCInvokesConcurrent",
            "-XX:MaxInlineLevel=15",
            "-Djava.awt.headless=true");

    private static final String LOG4J2 = """
            status = warn
            appender.stdout.type = Console
            appender.stdout.name = STDOUT
            appender.stdout.layout.type = PatternLayout
            appender.stdout.layout.pattern = [%d] %p %m (%c)%n
            rootLogger.level = INFO
            rootLogger.appenderRef.stdout.ref = STDOUT
            """;

    private final Path lib;
    private final List<String> extraSettings;

    /** {@code lib} holds kafka_2.13 4.4.0 and its runtime dependencies. */
    public ApacheKafkaLauncher(Path lib) {
        this(lib, List.of());
    }

    /**
     * @param extraSettings {@code KEY=VALUE} lines appended to the generated {@code server.properties}, e.g.
     *     {@code log.flush.interval.messages=1} to make Kafka fsync before acknowledging, as our broker does
     */
    public ApacheKafkaLauncher(Path lib, List<String> extraSettings) {
        this.lib = lib.toAbsolutePath().normalize();
        this.extraSettings = List.copyOf(extraSettings);
    }

    @Override
    public String name() {
        return "Apache Kafka 4.4.0";
    }

    @Override
    public String describe() {
        return "Apache Kafka 4.4.0 (" + lib + "), KRaft combined mode, JVM options of kafka-server-start.sh "
                + String.join(" ", JVM_OPTIONS)
                + (extraSettings.isEmpty()
                        ? ", no fsync before acknowledging (Kafka's default)"
                        : ", NOT at its defaults: " + String.join(" ", extraSettings));
    }

    @Override
    public RunningBroker start(Path runDir, Path logFile) throws IOException {
        if (!Files.isRegularFile(lib.resolve("kafka_2.13-4.4.0.jar"))) {
            throw new IOException("No Apache Kafka jars in " + lib + "; resolve them: "
                    + "./mvnw -f kafka-anchor/pom.xml -P kafka-broker package");
        }
        Files.createDirectories(runDir);
        Path dataDir = runDir.resolve("data").toAbsolutePath();
        List<Integer> ports = BrokerLauncher.freeLoopbackPorts(2);
        int port = ports.get(0);
        int controllerPort = ports.get(1);
        Path properties = runDir.resolve("server.properties");
        Files.writeString(
                properties, serverProperties(dataDir, port, controllerPort) + String.join("\n", extraSettings) + "\n");
        Path log4j = runDir.resolve("log4j2.properties");
        Files.writeString(log4j, LOG4J2);

        long t0 = System.nanoTime();
        format(
                properties,
                log4j,
                logFile.resolveSibling(logFile.getFileName().toString().replace(".log", "-format.log")));
        System.out.printf(
                Locale.ROOT, "  storage formatted in %.0f ms (not part of start-up)%n", (System.nanoTime() - t0) / 1e6);

        List<String> command = new ArrayList<>();
        command.add(ChildProcesses.java());
        command.addAll(JVM_OPTIONS);
        command.add("-Dlog4j2.configurationFile=" + log4j.toAbsolutePath());
        command.addAll(List.of(
                "-cp", lib + "/*", "kafka.Kafka", properties.toAbsolutePath().toString()));
        return RunningBroker.launch(name(), command, port, logFile);
    }

    /** Single-node combined mode, as Kafka's own config/server.properties, on the given loopback ports. */
    static String serverProperties(Path dataDir, int port, int controllerPort) {
        String host = RunningBroker.HOST;
        return """
                process.roles=broker,controller
                node.id=1
                controller.quorum.bootstrap.servers=%1$s:%3$d
                listeners=PLAINTEXT://%1$s:%2$d,CONTROLLER://%1$s:%3$d
                advertised.listeners=PLAINTEXT://%1$s:%2$d,CONTROLLER://%1$s:%3$d
                inter.broker.listener.name=PLAINTEXT
                controller.listener.names=CONTROLLER
                listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
                log.dirs=%4$s
                num.partitions=%5$d
                offsets.topic.replication.factor=1
                transaction.state.log.replication.factor=1
                transaction.state.log.min.isr=1
                share.coordinator.state.topic.replication.factor=1
                share.coordinator.state.topic.min.isr=1
                group.initial.rebalance.delay.ms=0
                """.formatted(host, port, controllerPort, dataDir, KafkaPerfBenchmark.PARTITIONS);
    }

    private void format(Path properties, Path log4j, Path formatLog) throws IOException {
        List<String> command = List.of(
                ChildProcesses.java(),
                "-Dlog4j2.configurationFile=" + log4j.toAbsolutePath(),
                "-cp",
                lib + "/*",
                "kafka.tools.StorageTool",
                "format",
                "--cluster-id",
                randomClusterId(),
                "--config",
                properties.toAbsolutePath().toString(),
                "--standalone");
        Process process = ChildProcesses.start(
                new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(formatLog.toFile()));
        try {
            if (!process.waitFor(2, TimeUnit.MINUTES)) {
                process.destroyForcibly();
                throw new IOException("kafka.tools.StorageTool format did not finish in 2 minutes; see " + formatLog);
            }
            if (process.exitValue() != 0) {
                throw new IOException(
                        "kafka.tools.StorageTool format exited with " + process.exitValue() + "; see " + formatLog);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException("Interrupted while formatting Kafka's storage", e);
        } finally {
            ChildProcesses.forget(process);
        }
    }

    /** A cluster id as {@code kafka-storage random-uuid} prints one: 16 random bytes, URL-safe Base64. */
    static String randomClusterId() {
        SecureRandom random = new SecureRandom();
        ByteBuffer bytes = ByteBuffer.allocate(16);
        bytes.putLong(random.nextLong() & Long.MAX_VALUE | 1L << 62); // never the reserved all-zero ids
        bytes.putLong(random.nextLong());
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes.array());
    }
}
