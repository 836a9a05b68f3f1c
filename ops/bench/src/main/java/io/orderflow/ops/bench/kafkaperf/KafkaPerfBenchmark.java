package io.orderflow.ops.bench.kafkaperf;

import io.orderflow.ops.bench.BenchCommandLine;
import io.orderflow.ops.bench.kafkaperf.Measure.AtLeastTimesKafka;
import io.orderflow.ops.bench.kafkaperf.Measure.AtMost;
import io.orderflow.ops.bench.kafkaperf.Measure.AtMostTimesKafka;
import io.orderflow.ops.bench.kafkaperf.PerfTools.ToolFailedException;
import io.orderflow.process.ApacheKafkaLauncher;
import io.orderflow.process.BrokerLauncher;
import io.orderflow.process.ChildProcesses;
import io.orderflow.process.OrderflowBrokerLauncher;
import io.orderflow.process.RunningBroker;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * Our broker against Apache Kafka 4.4.0 in the same run, measured with Apache Kafka's own perf tools
 * (ProducerPerformance, ConsumerPerformance, EndToEndLatency from kafka-tools 4.4.0) given identical arguments.
 *
 * <p>Each run starts each broker afresh (empty data directory), the order alternating from run to run so neither
 * always goes first on a warmer machine, and on each: start-up time to the first answered request, idle resident
 * memory, then per record size a 6-partition topic created with kafka-topics, ProducerPerformance writing
 * {@code records} records into it and ConsumerPerformance reading them back in a new consumer group, then
 * EndToEndLatency on its own 6-partition topic; finally the peak resident memory. The broker is stopped and its
 * data deleted before the other one starts, so they never compete for the machine.
 *
 * <p>Prints each figure as it is taken, then a table of medians with the ratio ours / Kafka and the issue's
 * targets. A step that fails (a tool error, an unsupported request) is reported with the tool's own message and
 * the run goes on.
 *
 * <p>{@code --security sasl_ssl} ({@link SaslSsl}) puts both brokers' client listener on SASL_SSL with the same TLS
 * certificate and SCRAM-SHA-512 user, and gives every tool the same client properties; the default is PLAINTEXT. The
 * header and the table's heading name the mode that ran.
 */
public final class KafkaPerfBenchmark {
    static final int PARTITIONS = BrokerLauncher.DEFAULT_PARTITIONS;

    private static final Measure STARTUP =
            new Measure("start-up to first answered request", "ms", new AtMost(1000, "ms"));
    private static final Measure RSS_IDLE = new Measure("resident memory, idle", "MiB", new AtMost(150, "MiB"));
    private static final Measure RSS_PEAK =
            new Measure("resident memory, peak under load (VmHWM)", "MiB", Measure.Target.NONE);

    private final KafkaPerfOptions options;
    private final PerfTools tools;
    private final ResultTable table;
    private final Path logDir;
    private final Path dataDir;

    private final SaslSsl saslSsl;

    private KafkaPerfBenchmark(
            KafkaPerfOptions options, ApacheKafkaLauncher kafka, OrderflowBrokerLauncher ours, SaslSsl saslSsl)
            throws IOException {
        this.options = options;
        this.saslSsl = saslSsl;
        this.logDir = Files.createDirectories(options.workDir().resolve("logs"));
        this.dataDir = options.workDir().resolve("data");
        this.tools = new PerfTools(options.toolsLib(), logDir, saslSsl == null ? null : saslSsl.clientConfig());
        this.table = new ResultTable(kafka.name(), ours.name(), options.runs());
    }

    public static void main(String[] args) {
        KafkaPerfOptions options = new KafkaPerfOptions();
        System.exit(BenchCommandLine.of(options, () -> run(options)).execute(args));
    }

    /** Measures both brokers as {@code options} say; exit code 1 when a step failed. */
    private static int run(KafkaPerfOptions options) throws Exception {
        ApacheKafkaLauncher kafka = new ApacheKafkaLauncher(options.kafkaLib(), options.kafkaSettings());
        OrderflowBrokerLauncher ours = new OrderflowBrokerLauncher(options.ourBroker(), options.ourSettings());
        SaslSsl saslSsl = null;
        if (options.security() == Security.SASL_SSL) {
            saslSsl = SaslSsl.create(options.workDir());
            kafka = saslSsl.kafka(kafka);
            ours = saslSsl.ours(ours);
        }
        KafkaPerfBenchmark benchmark = new KafkaPerfBenchmark(options, kafka, ours, saslSsl);
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            ChildProcesses.stopAll();
                            benchmark.deleteData();
                        },
                        "stop-brokers-and-tools"));
        benchmark.printHeader(kafka, ours);
        for (int run = 1; run <= options.runs(); run++) {
            List<BrokerLauncher> order = run % 2 == 1 ? List.of(kafka, ours) : List.of(ours, kafka);
            for (BrokerLauncher launcher : order) {
                if (options.brokers().contains(launcher == kafka ? "kafka" : "ours")) {
                    benchmark.measure(launcher, run);
                }
            }
        }
        System.out.printf(
                "%nMedians of %d runs, security %s, finished %s, load average %s%n%n",
                options.runs(), options.security().option(), Instant.now(), loadAverage());
        benchmark.table.print(System.out);
        System.out.println();
        System.out.println("command: " + options.command());
        benchmark.deleteData();
        return benchmark.table.failures().isEmpty() ? 0 : 1;
    }

    private void printHeader(BrokerLauncher kafka, BrokerLauncher ours) {
        System.out.printf(
                Locale.ROOT,
                "kafka-perf: %,d records per throughput run, %,d messages per latency run, record sizes %s, %d runs"
                        + " alternating brokers%n",
                options.records(),
                options.latencyRecords(),
                options.recordSizes(),
                options.runs());
        System.out.printf(
                "workload: %d partitions, acks=%s %s, no compression; tools from kafka-tools %s%n",
                PARTITIONS, PerfTools.ACKS, String.join(" ", PerfTools.BATCHING), ApacheKafkaLauncher.VERSION);
        System.out.printf(
                "machine: %d cores, java %s, load average %s, started %s%n",
                Runtime.getRuntime().availableProcessors(),
                System.getProperty("java.version"),
                loadAverage(),
                Instant.now());
        System.out.println("security: "
                + (saslSsl == null
                        ? "plaintext: both brokers listen with PLAINTEXT, no TLS, no login"
                        : saslSsl.describe()));
        System.out.println("anchor: " + kafka.describe());
        System.out.println("ours:   " + ours.describe());
        System.out.println("logs:   " + logDir.toAbsolutePath());
    }

    /** One start of one broker and every measurement on it. */
    private void measure(BrokerLauncher launcher, int run) {
        String broker = launcher.name();
        String label = "run" + run + "-" + (launcher instanceof ApacheKafkaLauncher ? "kafka" : "ours");
        Path runDir = dataDir.resolve(label);
        Path brokerLog = logDir.resolve(label + ".log");
        System.out.printf("%nrun %d/%d: %s (load average %s)%n", run, options.runs(), broker, loadAverage());
        delete(runDir);
        try (RunningBroker running = launcher.start(runDir, brokerLog)) {
            record(STARTUP, broker, running.startupMillis());
            Thread.sleep(options.idleSettle().toMillis());
            record(RSS_IDLE, broker, running.rssMiB());
            for (int size : options.recordSizes()) {
                throughput(label, broker, running, run, size);
            }
            for (int size : options.recordSizes()) {
                latency(label, broker, running, run, size);
            }
            if (running.isAlive()) {
                record(RSS_PEAK, broker, running.peakRssMiB());
            }
            System.out.printf("  broker log: %s (%d WARN/ERROR lines)%n", brokerLog, problemLines(brokerLog));
        } catch (IOException e) {
            table.fail(broker, run, e.getMessage());
            System.out.println("  FAILED: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted", e);
        } finally {
            delete(runDir);
        }
    }

    /** ProducerPerformance into a fresh topic, then ConsumerPerformance reading it all back. */
    private void throughput(String label, String broker, RunningBroker running, int run, int size) throws IOException {
        String topic = "perf-" + size;
        String sz = Measure.size(size);
        Measure produceMb = new Measure("produce " + sz, "MB/s", new AtLeastTimesKafka(1.0));
        Measure produceRecords = new Measure("produce " + sz, "records/s", new AtLeastTimesKafka(1.0));
        Measure produceP99 = new Measure("produce " + sz + ", p99 send-to-ack", "ms", Measure.Target.NONE);
        Measure produceCpu = new Measure("produce " + sz + ", broker CPU time", "s", Measure.Target.NONE);
        Measure consumeMb = new Measure("consume " + sz, "MB/s", new AtLeastTimesKafka(1.0));
        Measure consumeRecords = new Measure("consume " + sz, "records/s", new AtLeastTimesKafka(1.0));
        Measure consumeJoin = new Measure("consume " + sz + ", joining the group", "ms", Measure.Target.NONE);
        Measure consumeCpu = new Measure("consume " + sz + ", broker CPU time", "s", Measure.Target.NONE);
        for (Measure m : List.of(
                produceMb,
                produceRecords,
                produceP99,
                produceCpu,
                consumeMb,
                consumeRecords,
                consumeJoin,
                consumeCpu)) {
            table.expect(m);
        }
        String bootstrap = running.bootstrapServers();
        try {
            tools.createTopic(label, bootstrap, topic);
            double cpu = running.cpuSeconds();
            ProducerPerfResult produced = tools.produce(label, bootstrap, topic, options.records(), size);
            record(produceCpu, broker, running.cpuSeconds() - cpu);
            record(produceMb, broker, produced.mbPerSecond());
            record(produceRecords, broker, produced.recordsPerSecond());
            record(produceP99, broker, produced.p99LatencyMs());
        } catch (ToolFailedException e) {
            failed(broker, run, e, running);
            return;
        }
        try {
            double cpu = running.cpuSeconds();
            ConsumerPerfResult consumed =
                    tools.consume(label, bootstrap, topic, options.records(), "perf-consumer-" + size);
            record(consumeCpu, broker, running.cpuSeconds() - cpu);
            record(consumeMb, broker, consumed.fetchMbPerSecond());
            record(consumeRecords, broker, consumed.fetchRecordsPerSecond());
            record(consumeJoin, broker, consumed.rebalanceMs());
        } catch (ToolFailedException e) {
            failed(broker, run, e, running);
        }
    }

    /** EndToEndLatency on a fresh 6-partition topic. */
    private void latency(String label, String broker, RunningBroker running, int run, int size) throws IOException {
        String topic = "e2e-" + size;
        String sz = Measure.size(size);
        Measure avg = new Measure("end-to-end " + sz + ", average", "ms", Measure.Target.NONE);
        Measure p50 = new Measure("end-to-end " + sz + ", p50", "ms", Measure.Target.NONE);
        Measure p99 = new Measure("end-to-end " + sz + ", p99", "ms", new AtMostTimesKafka(1.0));
        for (Measure m : List.of(avg, p50, p99)) {
            table.expect(m);
        }
        try {
            tools.createTopic(label, running.bootstrapServers(), topic);
            EndToEndLatencyResult result =
                    tools.endToEnd(label, running.bootstrapServers(), topic, options.latencyRecords(), size);
            record(avg, broker, result.avgMs());
            record(p50, broker, result.p50Ms());
            record(p99, broker, result.p99Ms());
        } catch (ToolFailedException e) {
            failed(broker, run, e, running);
        }
    }

    private void record(Measure measure, String broker, double value) {
        table.record(measure, broker, value);
        System.out.printf("  %s: %s %s%n", measure.name(), ResultTable.format(value), measure.unit());
    }

    private void failed(String broker, int run, ToolFailedException e, RunningBroker running) {
        String message =
                e.getMessage() + (running.isAlive() ? "" : "; the broker has exited, see " + running.logFile());
        table.fail(broker, run, message);
        System.out.println("  FAILED: " + message);
    }

    private static long problemLines(Path log) {
        try (Stream<String> lines = Files.lines(log)) {
            return lines.filter(l -> l.contains(" WARN ") || l.contains(" ERROR "))
                    .count();
        } catch (IOException | UncheckedIOException e) {
            return -1;
        }
    }

    private void deleteData() {
        delete(dataDir);
    }

    private static void delete(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException | UncheckedIOException e) {
            System.err.println("Cannot delete " + dir + ": " + e.getMessage());
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
