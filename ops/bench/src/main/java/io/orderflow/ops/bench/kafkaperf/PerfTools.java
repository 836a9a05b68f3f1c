package io.orderflow.ops.bench.kafkaperf;

import io.orderflow.process.ChildProcesses;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Apache Kafka's own tools from kafka-tools 4.4.0, each run as a child JVM the way its {@code bin/} script runs
 * it (same heap and GC options), with the same arguments whichever broker it talks to. Their stdout and stderr
 * are kept in the log directory, one file each per run, named after the run, broker and step.
 *
 * <p>The producer settings are the issue's: acks=all, linger.ms=5, batch.size=65536, no compression.
 * EndToEndLatency gets them through its properties file; it forces linger.ms=0 on its producer itself, since
 * it sends one message at a time.
 *
 * <p>With a client properties file ({@code --security sasl_ssl}) every tool gets it through its own option, the same
 * file whichever broker it talks to: {@code --command-config} for kafka-topics, ProducerPerformance and
 * ConsumerPerformance; EndToEndLatency, which takes one properties file only, gets a copy of it with the producer
 * settings added, kept beside it (owner-only) rather than in the log directory, since it holds the password.
 */
final class PerfTools {
    static final String ACKS = "all";
    static final List<String> BATCHING = List.of("linger.ms=5", "batch.size=65536");

    /** kafka-run-class.sh's KAFKA_JVM_PERFORMANCE_OPTS. */
    private static final List<String> JVM_OPTIONS = List.of(
            "-server",
            "-XX:+UseG1GC",
            "-XX:MaxGCPauseMillis=20",
            "-XX:InitiatingHeapOccupancyPercent=35",
            "-XX:+ExplicitGCInvokesConcurrent",
            "-XX:MaxInlineLevel=15",
            "-Djava.awt.headless=true",
            // the tools format numbers with the default locale; the parsers expect a decimal point
            "-Duser.language=en",
            "-Duser.country=US",
            "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn");

    private static final Duration TIMEOUT = Duration.ofMinutes(20);

    private final Path lib;
    private final Path logDir;
    private final Path clientConfig;

    /**
     * @param clientConfig client properties every tool connects with (security settings), or null for none
     */
    PerfTools(Path lib, Path logDir, Path clientConfig) {
        this.lib = lib.toAbsolutePath().normalize();
        this.logDir = logDir;
        this.clientConfig = clientConfig == null ? null : clientConfig.toAbsolutePath();
    }

    /** What a tool printed, and where it is kept. */
    record Output(int exitCode, String stdout, String stderr, Path stdoutFile) {
        /** The last lines of stderr (or stdout), to say why a tool failed. */
        String why() {
            String text = stderr.isBlank() ? stdout : stderr;
            List<String> lines = text.lines()
                    .filter(l -> !l.isBlank() && !l.startsWith("\tat ") && !l.startsWith("SLF4J"))
                    .toList();
            String tail = String.join(" | ", lines.subList(Math.max(0, lines.size() - 3), lines.size()));
            return "exit code " + exitCode + ": " + tail + " (" + stdoutFile + ")";
        }
    }

    /** Thrown when a tool exits badly or prints nothing this benchmark can read. */
    static final class ToolFailedException extends Exception {
        ToolFailedException(String tool, Output output) {
            super(tool + " failed, " + output.why());
        }
    }

    /** kafka-topics --create, the same way for both brokers. */
    void createTopic(String label, String bootstrap, String topic) throws IOException, ToolFailedException {
        List<String> args = new ArrayList<>(List.of(
                "--bootstrap-server",
                bootstrap,
                "--create",
                "--topic",
                topic,
                "--partitions",
                Integer.toString(KafkaPerfBenchmark.PARTITIONS),
                "--replication-factor",
                "1"));
        args.addAll(commandConfig());
        Output out = run(
                label + "-topics-" + topic,
                "-Xmx256M",
                "org.apache.kafka.tools.TopicCommand",
                args.toArray(String[]::new));
        if (out.exitCode() != 0) {
            throw new ToolFailedException("kafka-topics --create " + topic, out);
        }
    }

    /** kafka-producer-perf-test: {@code records} records of {@code size} bytes as fast as they are acknowledged. */
    ProducerPerfResult produce(String label, String bootstrap, String topic, long records, int size)
            throws IOException, ToolFailedException {
        List<String> args = new ArrayList<>(List.of(
                "--bootstrap-server",
                bootstrap,
                "--topic",
                topic,
                "--num-records",
                Long.toString(records),
                "--record-size",
                Integer.toString(size),
                "--throughput",
                "-1"));
        args.addAll(commandConfig());
        args.addAll(List.of("--command-property", "acks=" + ACKS));
        args.addAll(BATCHING);
        Output out = run(
                label + "-produce-" + size,
                "-Xmx512M",
                "org.apache.kafka.tools.ProducerPerformance",
                args.toArray(String[]::new));
        ProducerPerfResult result = ProducerPerfResult.parse(out.stdout()).orElse(null);
        if (out.exitCode() != 0 || result == null || result.records() != records) {
            throw new ToolFailedException("ProducerPerformance", out);
        }
        return result;
    }

    /** kafka-consumer-perf-test: reads {@code records} records from the start of {@code topic} in a new group. */
    ConsumerPerfResult consume(String label, String bootstrap, String topic, long records, String group)
            throws IOException, ToolFailedException {
        List<String> args = new ArrayList<>(List.of(
                "--bootstrap-server",
                bootstrap,
                "--topic",
                topic,
                "--num-records",
                Long.toString(records),
                "--group",
                group,
                "--timeout",
                "30000"));
        args.addAll(commandConfig());
        Output out = run(
                label + "-consume-" + topic,
                "-Xmx512M",
                "org.apache.kafka.tools.ConsumerPerformance",
                args.toArray(String[]::new));
        ConsumerPerfResult result = ConsumerPerfResult.parse(out.stdout()).orElse(null);
        if (out.exitCode() != 0 || result == null || ConsumerPerfResult.exitedEarly(out.stdout())) {
            throw new ToolFailedException("ConsumerPerformance", out);
        }
        return result;
    }

    /**
     * kafka-e2e-latency: {@code messages} messages of {@code size} bytes, one at a time. A non-zero exit after the
     * results were printed still counts, with a note: the tool calls {@code consumer.commitSync()} after printing
     * them, which needs a group coordinator although the measured loop never does (its consumer uses
     * {@code assign()}).
     */
    EndToEndLatencyResult endToEnd(String label, String bootstrap, String topic, int messages, int size)
            throws IOException, ToolFailedException {
        Path properties;
        if (clientConfig == null) {
            properties = logDir.resolve(label + "-e2e.properties");
            Files.write(properties, BATCHING);
        } else {
            properties = clientConfig.resolveSibling(label + "-e2e.properties");
            List<String> lines = new ArrayList<>(Files.readAllLines(clientConfig));
            lines.addAll(BATCHING);
            SaslSsl.writeOwnerOnly(properties, lines);
        }
        Output out = run(
                label + "-e2e-" + size,
                "-Xmx256M",
                "org.apache.kafka.tools.EndToEndLatency",
                "--bootstrap-server",
                bootstrap,
                "--topic",
                topic,
                "--num-records",
                Integer.toString(messages),
                "--producer-acks",
                ACKS,
                "--record-size",
                Integer.toString(size),
                "--command-config",
                properties.toAbsolutePath().toString());
        EndToEndLatencyResult result = EndToEndLatencyResult.parse(out.stdout()).orElse(null);
        if (result == null) {
            throw new ToolFailedException("EndToEndLatency", out);
        }
        if (out.exitCode() != 0) {
            System.out.println("  note: EndToEndLatency printed its results, then failed: " + out.why());
        }
        return result;
    }

    /** {@code --command-config FILE} with the client properties file, if there is one. */
    private List<String> commandConfig() {
        return clientConfig == null ? List.of() : List.of("--command-config", clientConfig.toString());
    }

    private Output run(String name, String heap, String mainClass, String... args) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(ChildProcesses.java());
        command.add(heap);
        command.addAll(JVM_OPTIONS);
        command.addAll(List.of("-cp", lib + "/*", mainClass));
        command.addAll(List.of(args));
        Path stdout = logDir.resolve(name + ".out");
        Path stderr = logDir.resolve(name + ".err");
        Process process = ChildProcesses.start(new ProcessBuilder(command)
                .redirectOutput(stdout.toFile())
                .redirectError(stderr.toFile())
                .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile())));
        try {
            if (!process.waitFor(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException("Interrupted while running " + mainClass, e);
        } finally {
            ChildProcesses.forget(process);
        }
        int exit = process.isAlive() ? -1 : process.exitValue();
        return new Output(
                exit,
                Files.readString(stdout, StandardCharsets.UTF_8),
                Files.readString(stderr, StandardCharsets.UTF_8),
                stdout);
    }
}
