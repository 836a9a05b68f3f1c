package io.orderflow.hostileframes;

import io.orderflow.process.ApacheKafkaLauncher;
import io.orderflow.process.BrokerLauncher;
import io.orderflow.process.ChildProcesses;
import io.orderflow.process.OrderflowBrokerLauncher;
import io.orderflow.process.RunningBroker;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.OptionalInt;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The hostile-frames benchmark: our broker, then Apache Kafka, each started afresh in a JVM of its own with the same
 * small heap ({@code --heap}, 128 MiB) and the same extra JVM options, each sent the same {@link HostileFramesRun}
 * (same seed, same frames per connection). Our broker runs packaged, as {@code ops/bin/run-broker} runs it, with
 * {@code -XX:+ExitOnOutOfMemoryError} like every launcher of it: an OutOfMemoryError stops it at once, which the
 * probes and the check that it is alive at the end show (nothing restarts it here). Kafka runs from kafka-anchor's jars with
 * {@code kafka-server-start.sh}'s JVM options, its heap replaced as {@code KAFKA_HEAP_OPTS} would, and its log cleaner's
 * buffer scaled down with the heap ({@link #dedupeBufferFor}), without which it cannot start with 128 MiB.
 *
 * <p>While the frames are sent, a {@link LogWatch} reads the broker's log for {@code OutOfMemoryError} and notes the
 * frame count at its first mention; a progress line every ten seconds carries the broker's resident memory. After
 * each run: whether the broker is still alive, its peak resident memory, then it is stopped (SIGTERM, killed after
 * 30 s) and its data deleted. Finally both verdicts side by side ({@link SideBySide}).
 *
 * <p>Exit code 0 once every broker asked for was measured, whatever the verdicts (they are the figures); 1 if one could
 * not be started; 2 for a bad command line.
 */
@Command(
        name = "ops/bin/bench/hostile-frames",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = "Mutated Kafka frames over many connections against our broker, then Apache Kafka, each with a"
                + " small heap: does the broker keep answering ApiVersions within a second, keep its records, log no"
                + " OutOfMemoryError, and serve a new produce and consume at the end?")
public final class HostileFramesBenchmark implements Callable<Integer> {
    private static final String OUT_OF_MEMORY = "OutOfMemoryError";
    private static final Duration STOP_GRACE = Duration.ofSeconds(30);

    @Mixin
    Workload workload = new Workload();

    @Option(names = "--only", paramLabel = "ours|kafka", description = "measure one broker only; both when not given")
    String only;

    @Option(names = "--heap", defaultValue = "128m", description = "both brokers' -Xmx (default: ${DEFAULT-VALUE})")
    String heap;

    @Option(
            names = "--broker-jvm-option",
            paramLabel = "OPTION",
            description = "an extra JVM option for both brokers, e.g. -XX:+HeapDumpOnOutOfMemoryError; repeatable")
    List<String> brokerJvmOptions = new ArrayList<>();

    @Option(
            names = "--our-setting",
            paramLabel = "KEY=VALUE",
            description = "a setting for our broker beyond its defaults, passed as --KEY=VALUE; repeatable")
    List<String> ourSettings = new ArrayList<>();

    @Option(
            names = "--kafka-setting",
            paramLabel = "KEY=VALUE",
            description = "a server.properties line for Apache Kafka beyond its defaults, e.g. queued.max.request.bytes"
                    + "=33554432 (which Kafka accepts only with socket.request.max.bytes=16777216 or less); repeatable")
    List<String> kafkaSettings = new ArrayList<>();

    @ArgGroup(exclusive = false, multiplicity = "1", heading = "%nSet by ops/bin/bench/hostile-frames:%n")
    Plumbing plumbing;

    @Spec
    CommandSpec spec;

    /** Where the script put what is measured and where the run writes. */
    static final class Plumbing {
        @Option(names = "--our-broker", required = true, description = "holds log-broker.jar and lib/")
        Path ourBroker;

        @Option(names = "--kafka-lib", required = true, description = "kafka-anchor's kafka-broker jars")
        Path kafkaLib;

        @Option(names = "--work-dir", required = true, description = "data and logs of the run")
        Path workDir;
    }

    public static void main(String[] args) {
        HostileFramesDriver.quietClients();
        System.exit(
                HostileFramesDriver.commandLine(new HostileFramesBenchmark()).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        workload.check(spec);
        if (only != null && !only.equals("ours") && !only.equals("kafka")) {
            throw new ParameterException(spec.commandLine(), "--only takes ours or kafka, got '" + only + "'");
        }
        if (!heap.matches("[0-9]+[kKmMgG]?")) {
            throw new ParameterException(
                    spec.commandLine(), "--heap takes a size as -Xmx does (128m, 1g), got '" + heap + "'");
        }
        List<String> jvmOptions = new ArrayList<>(List.of("-Xmx" + heap));
        jvmOptions.addAll(brokerJvmOptions);
        OrderflowBrokerLauncher ours = new OrderflowBrokerLauncher(
                plumbing.ourBroker, jvmOptions, BrokerLauncher.DEFAULT_PARTITIONS, ourSettings);
        List<String> kafkaServerSettings = new ArrayList<>(List.of(dedupeBufferFor(heap)));
        kafkaServerSettings.addAll(kafkaSettings);
        ApacheKafkaLauncher kafka = new ApacheKafkaLauncher(plumbing.kafkaLib, kafkaServerSettings)
                .withHeap(List.of("-Xmx" + heap), brokerJvmOptions);
        Path logs = Files.createDirectories(plumbing.workDir.resolve("logs"));
        Path data = plumbing.workDir.resolve("data");
        Runtime.getRuntime().addShutdownHook(new Thread(ChildProcesses::stopAll, "stop-brokers"));

        PrintStream out = System.out;
        out.println("hostile-frames: " + command());
        out.printf(
                "machine: %d cores, java %s, load average %s, started %s%n",
                Runtime.getRuntime().availableProcessors(),
                System.getProperty("java.version"),
                loadAverage(),
                Instant.now());
        out.println("ours:   " + ours.describe());
        out.println("anchor: " + kafka.describe());
        out.println("logs:   " + logs.toAbsolutePath());

        List<BrokerVerdict> verdicts = new ArrayList<>();
        if (only == null || only.equals("ours")) {
            verdicts.add(measure(ours, "ours", data, logs, out));
        }
        if (only == null || only.equals("kafka")) {
            verdicts.add(measure(kafka, "kafka", data, logs, out));
        }
        delete(data);

        out.printf("%nhostile frames, finished %s, load average %s%n%n", Instant.now(), loadAverage());
        SideBySide.print(verdicts, out);
        out.println();
        out.println("command: ops/bin/bench/hostile-frames " + command());
        return verdicts.stream().allMatch(v -> v.result() != null) ? 0 : 1;
    }

    /** One fresh start of one broker and one run against it. */
    private BrokerVerdict measure(BrokerLauncher launcher, String label, Path data, Path logs, PrintStream out) {
        Path runDir = data.resolve(label);
        Path log = logs.resolve(label + ".log");
        out.printf("%n%s: starting %s (load average %s)%n", label, launcher.name(), loadAverage());
        try {
            delete(runDir);
            try (RunningBroker broker = launcher.start(runDir, log)) {
                out.printf(
                        Locale.ROOT,
                        "%s: answering at %s after %.0f ms, resident %.0f MiB; its log: %s%n",
                        label,
                        broker.bootstrapServers(),
                        broker.startupMillis(),
                        broker.rssMiB(),
                        log);
                HostileFramesRun run =
                        new HostileFramesRun(workload, broker.bootstrapServers(), label, out, () -> memory(broker));
                HostileFramesResult result;
                LogWatch.Sighting outOfMemory;
                try (LogWatch watch = LogWatch.start(log, OUT_OF_MEMORY, run::framesSent)) {
                    result = run.execute();
                    outOfMemory = watch.stop();
                }
                boolean alive = broker.isAlive();
                double peak = alive ? broker.peakRssMiB() : Double.NaN;
                BrokerVerdict verdict = new BrokerVerdict(launcher.name(), result, outOfMemory, alive, peak, log, null);
                result.print(out);
                out.printf("  %-20s %s%n", "OutOfMemoryError", outOfMemory.describe());
                if (outOfMemory.firstLine() != null) {
                    out.printf("  %-20s %s%n", "  first mention", outOfMemory.firstLine());
                }
                out.printf(
                        Locale.ROOT,
                        "  %-20s %s, peak resident %.0f MiB%n",
                        "broker",
                        alive ? "alive at the end" : "EXITED",
                        peak);
                out.printf("  %-20s %s%n", "verdict", verdict.passed() ? "passed" : "FAILED: " + verdict.problems());
                stop(broker, label, out);
                return verdict;
            }
        } catch (Exception e) {
            out.printf("%s: FAILED: %s%n", label, e);
            return BrokerVerdict.failed(
                    launcher.name(), log, e.toString().lines().findFirst().orElse(""));
        } finally {
            try {
                delete(runDir);
            } catch (IOException e) {
                out.println("Cannot delete " + runDir + ": " + e.getMessage());
            }
        }
    }

    /** Every option that shapes the run, as typed: the same command measures the same again. */
    private String command() {
        StringBuilder command =
                new StringBuilder(workload.asOptions()).append(" --heap ").append(heap);
        brokerJvmOptions.forEach(
                option -> command.append(" --broker-jvm-option ").append(option));
        ourSettings.forEach(setting -> command.append(" --our-setting ").append(setting));
        kafkaSettings.forEach(setting -> command.append(" --kafka-setting ").append(setting));
        if (only != null) {
            command.append(" --only ").append(only);
        }
        return command.toString();
    }

    /**
     * Kafka's log cleaner allocates its whole dedupe buffer when it starts ({@code log.cleaner.dedupe.buffer.size},
     * 128 MiB by default): with a 128 MiB heap Kafka dies of an OutOfMemoryError before it serves anyone. It gets
     * an eighth of its heap instead, as the default is an eighth of {@code kafka-server-start.sh}'s 1 GiB.
     */
    static String dedupeBufferFor(String heap) {
        String size = heap.toLowerCase(Locale.ROOT);
        long unit = switch (size.charAt(size.length() - 1)) {
            case 'k' -> 1L << 10;
            case 'm' -> 1L << 20;
            case 'g' -> 1L << 30;
            default -> 1;
        };
        long bytes = Long.parseLong(unit == 1 ? size : size.substring(0, size.length() - 1)) * unit;
        return "log.cleaner.dedupe.buffer.size=" + bytes / 8;
    }

    /** SIGTERM, and how the broker took it: a zombie may need killing. */
    private static void stop(RunningBroker broker, String label, PrintStream out) throws InterruptedException {
        OptionalInt exit = broker.stop(STOP_GRACE);
        out.printf(
                "%s: stopped, %s%n",
                label,
                exit.isPresent()
                        ? "exit code " + exit.getAsInt()
                        : "killed: still running " + STOP_GRACE.toSeconds() + " s after SIGTERM");
    }

    private static String memory(RunningBroker broker) {
        if (!broker.isAlive()) {
            return "the broker has EXITED";
        }
        try {
            return String.format(Locale.ROOT, "broker resident %.0f MiB", broker.rssMiB());
        } catch (RuntimeException e) {
            return "broker memory unknown";
        }
    }

    private static void delete(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        }
    }

    private static String loadAverage() {
        try {
            String[] fields = Files.readString(Path.of("/proc/loadavg")).split(" ");
            return String.join(" ", fields[0], fields[1], fields[2]);
        } catch (IOException e) {
            return "unknown";
        }
    }
}
