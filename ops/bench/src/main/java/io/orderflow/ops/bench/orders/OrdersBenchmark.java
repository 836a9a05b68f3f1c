package io.orderflow.ops.bench.orders;

import io.orderflow.ops.bench.BenchCommandLine;
import io.orderflow.ops.load.LatencySamples;
import io.orderflow.ops.load.OpenLoopLoad;
import io.orderflow.ops.load.PrometheusText;
import io.orderflow.postgres.PostgresDatabase;
import io.orderflow.process.ApacheKafkaLauncher;
import io.orderflow.process.BrokerLauncher;
import io.orderflow.process.ChildProcesses;
import io.orderflow.process.OrderflowBrokerLauncher;
import io.orderflow.process.RunningBroker;
import io.orderflow.process.ServiceProcess;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.function.DoubleSupplier;
import java.util.stream.Stream;

/**
 * The whole order path on this machine, with everything on it: an open-loop load of {@code POST /orders} against the
 * packaged order-service, its transactional outbox in PostgreSQL, the packaged outbox-relay publishing to a broker,
 * and a consumer reading the {@code orders} topic. Measured once with our broker and once with Apache Kafka 4.4.0
 * behind the same relay, in the same run.
 *
 * <p>Each start of the stack: a fresh, empty order-service database on the run's one PostgreSQL; a fresh broker
 * (ours at its defaults, fsync before acknowledging; Kafka as its quickstart runs it) with the topic {@code orders}
 * created; order-service and the relay started as {@code java -jar quarkus-run.jar} and waited for until
 * {@code /q/health/ready}; then the load at the fixed rate, a warm-up and the measured window, and the drain: until
 * every accepted order's OrderCreated has been read back. Everything is stopped and deleted before the next start,
 * and brokers alternate which goes first from run to run.
 *
 * <p>What is reported per start, and as medians with ratios ours / Kafka at the end: the accepted rate and HTTP
 * latency (open loop, from each request's due time), commit-to-readable latency (from the envelope's
 * {@code occurredAt}, an upper bound, and from the 201's arrival, a lower bound; see {@link OrderEventsReader}),
 * whether every accepted order's event arrived, the outbox backlog (read from the database every second), and the
 * CPU each process used in the window, which is where a bottleneck on two cores shows.
 */
public final class OrdersBenchmark {
    private static final Duration START_DELAY = Duration.ofMillis(200);

    private final OrdersBenchOptions options;
    private final BenchPostgres postgres;
    private final OrdersTable table;
    private final Path logDir;
    private final Path dataDir;

    private OrdersBenchmark(OrdersBenchOptions options, BenchPostgres postgres) throws IOException {
        this.options = options;
        this.postgres = postgres;
        this.table = OrdersTable.forRate(options.rate());
        this.logDir = Files.createDirectories(options.workDir().resolve("logs"));
        this.dataDir = options.workDir().resolve("data");
    }

    public static void main(String[] args) {
        OrdersBenchOptions options = new OrdersBenchOptions();
        System.exit(BenchCommandLine.of(options, () -> run(options)).execute(args));
    }

    /** Measures each broker's stack as {@code options} say; exit code 1 when a measurement failed. */
    private static int run(OrdersBenchOptions options) throws Exception {
        Runtime.getRuntime().addShutdownHook(new Thread(ChildProcesses::stopAll, "stop-services-and-brokers"));
        Map<String, BrokerLauncher> launchers = new LinkedHashMap<>();
        for (String broker : options.window().brokers()) {
            launchers.put(
                    broker,
                    broker.equals("ours")
                            ? new OrderflowBrokerLauncher(options.ourBroker(), List.of())
                            : new ApacheKafkaLauncher(options.kafkaLib()));
        }
        printHeader(options, launchers);
        OrdersTable table;
        try (BenchPostgres postgres =
                BenchPostgres.start(options.workDir().resolve("postgres"), options.synchronousCommit())) {
            OrdersBenchmark benchmark = new OrdersBenchmark(options, postgres);
            List<String> brokers = new ArrayList<>(launchers.keySet());
            for (int run = 1; run <= options.runs(); run++) {
                for (String broker : run % 2 == 1 ? brokers : brokers.reversed()) {
                    benchmark.measure(broker, launchers.get(broker), run);
                }
            }
            table = benchmark.table;
            benchmark.delete(benchmark.dataDir);
        }
        System.out.printf(
                "%nMedians of %d runs (range in brackets), finished %s, load average %s%n%n",
                options.runs(), Instant.now(), Machine.loadAverage());
        table.print(System.out, options.runs());
        System.out.println();
        System.out.println("command: " + options.command());
        return table.failures().isEmpty() ? 0 : 1;
    }

    private static void printHeader(OrdersBenchOptions options, Map<String, BrokerLauncher> launchers) {
        System.out.println("command: " + options.command());
        System.out.printf(
                Locale.ROOT,
                "workload: POST /orders at %,d/s open loop, %d s warm-up + %d s measured, drain up to %d s, %d runs"
                        + " alternating brokers; topic %s with %d partitions; at most %d requests outstanding;"
                        + " Idempotency-Key %s%n",
                options.rate(),
                options.window().warmup().toSeconds(),
                options.window().duration().toSeconds(),
                options.drain().toSeconds(),
                options.runs(),
                OrdersTopic.NAME,
                options.window().partitions(),
                options.window().maxInFlight(),
                options.idempotencyKeys() ? "on every request" : "not sent");
        System.out.printf(
                "machine: %s; load average %s; started %s%n", Machine.describe(), Machine.loadAverage(), Instant.now());
        launchers.values().forEach(l -> System.out.println("broker: " + l.describe()));
        System.out.println("services: " + options.orderService().toAbsolutePath() + " and "
                + options.relay().toAbsolutePath() + ", java -jar with JVM defaults, configuration defaults"
                + " except datasource, bootstrap servers and HTTP port"
                + (options.orderServiceJvmOptions().isEmpty()
                        ? ""
                        : "; NOT the defaults: order-service runs with "
                                + String.join(" ", options.orderServiceJvmOptions())));
        System.out.println("driver: java "
                + String.join(" ", ManagementFactory.getRuntimeMXBean().getInputArguments())
                + " (load generator, topic reader, backlog sampler; its CPU is reported with the rest)");
        System.out.println("logs: " + options.workDir().resolve("logs").toAbsolutePath());
    }

    /** One start of the whole stack on one broker, and every measurement on it. */
    private void measure(String key, BrokerLauncher launcher, int run) {
        String label = "run" + run + "-" + key;
        String broker = key.equals("ours") ? OrdersTable.OURS : OrdersTable.KAFKA;
        System.out.printf("%nrun %d/%d: %s (load average %s)%n", run, options.runs(), broker, Machine.loadAverage());
        Path runDir = dataDir.resolve(label);
        delete(runDir);
        PostgresDatabase database = null;
        try {
            database = postgres.freshDatabase(label);
            System.out.println("  database " + database.databaseName() + ": " + postgres.describe(database));
            try (RunningBroker running = launcher.start(runDir, logDir.resolve(label + "-broker.log"))) {
                OrdersTopic.create(
                        running.bootstrapServers(),
                        options.window().partitions(),
                        List.of(OrdersTopic.NAME, OrdersTopic.INVENTORY));
                System.out.printf(
                        Locale.ROOT,
                        "  broker answered in %.0f ms; topics %s and %s created%n",
                        running.startupMillis(),
                        OrdersTopic.NAME,
                        OrdersTopic.INVENTORY);
                RunResult result = measureStack(broker, label, database, running);
                table.add(result);
                if (!running.isAlive()) {
                    throw new IOException("the broker exited during the run; see " + running.logFile());
                }
            }
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            String message = e.getClass().getSimpleName() + ": " + e.getMessage();
            table.fail(broker, run, message);
            System.out.println("  FAILED: " + message);
        } finally {
            if (database != null) {
                try {
                    postgres.drop(database);
                } catch (Exception e) {
                    System.out.println("  could not drop " + database.databaseName() + ": " + e.getMessage());
                }
            }
            delete(runDir);
        }
    }

    private RunResult measureStack(String broker, String label, PostgresDatabase database, RunningBroker running)
            throws Exception {
        Map<String, String> datasource = datasource(database);
        Map<String, String> relayConfig = new LinkedHashMap<>(datasource);
        relayConfig.put("kafka.bootstrap.servers", running.bootstrapServers());
        try (ServiceProcess orders = ServiceProcess.builder(
                                "order-service", options.orderService().resolve("quarkus-run.jar"))
                        .jvmOptions(options.orderServiceJvmOptions())
                        .properties(datasource)
                        // its saga consumer reads inventory's answers; none come here, as nothing reserves
                        .property("kafka.bootstrap.servers", running.bootstrapServers())
                        .logFile(logDir.resolve(label + "-order-service.log"))
                        .start();
                ServiceProcess relay = ServiceProcess.builder(
                                "outbox-relay", options.relay().resolve("quarkus-run.jar"))
                        .properties(relayConfig)
                        .logFile(logDir.resolve(label + "-outbox-relay.log"))
                        .start();
                OrderEventsReader reader = OrderEventsReader.start(running.bootstrapServers(), OrdersTopic.NAME);
                BacklogSampler backlog = BacklogSampler.start(database);
                // One generator per start, closed before the services (resources close in reverse): its event loop
                // and idle connections must not outlive the service they were talking to and cost CPU in the next run.
                OpenLoopLoad load = new OpenLoopLoad(
                        orders.baseUri(), options.rate(), options.window().maxInFlight(), options.idempotencyKeys())) {
            System.out.printf(
                    Locale.ROOT,
                    "  order-service ready in %.1f s, outbox-relay ready in %.1f s%n",
                    orders.readyMillis() / 1000,
                    relay.readyMillis() / 1000);
            Map<String, DoubleSupplier> processes = new LinkedHashMap<>();
            processes.put("order-service", () -> CpuTime.processSeconds(orders.pid()));
            processes.put("outbox-relay", () -> CpuTime.processSeconds(relay.pid()));
            OptionalLong postmaster = postgres.postmasterPid();
            if (postmaster.isEmpty()) {
                System.out.println(
                        "  PostgreSQL's postmaster is not a process on this machine: its CPU is not measured");
            }
            processes.put(
                    "postgres",
                    () -> postmaster.isPresent() ? CpuTime.treeSeconds(postmaster.getAsLong()) : Double.NaN);
            processes.put("broker", running::cpuSeconds);
            long self = ProcessHandle.current().pid();
            processes.put("driver", () -> CpuTime.processSeconds(self));

            long start = System.nanoTime() + START_DELAY.toNanos();
            long measureFrom = start + options.window().warmup().toNanos();
            long measureTo = measureFrom + options.window().duration().toNanos();
            long wallOffsetMillis = System.currentTimeMillis() - System.nanoTime() / 1_000_000;
            CompletableFuture<OpenLoopLoad.Result> loadDone = load.runInBackground(
                    start, options.window().warmup(), options.window().duration());
            OpenLoopLoad.sleepUntil(measureFrom);
            CpuTime.Reading cpuFrom = CpuTime.Reading.take(processes);
            OpenLoopLoad.sleepUntil(measureTo);
            CpuTime.Reading cpuTo = CpuTime.Reading.take(processes);
            String relayMetrics = relay.metrics();
            String ordersMetrics = orders.metrics();
            OpenLoopLoad.Result loaded;
            try {
                loaded = loadDone.get();
            } catch (ExecutionException e) {
                throw new IllegalStateException("The load generator failed: " + e.getCause(), e.getCause());
            }
            long allArrived = awaitArrivals(reader, loaded, measureTo);
            BacklogSampler.Sample afterDrain = backlog.stop();
            reader.checkHealthy();

            List<BacklogSampler.Sample> window = backlog.samples(
                    measureFrom / 1_000_000 + wallOffsetMillis, measureTo / 1_000_000 + wallOffsetMillis);
            double drainMillis = allArrived == Long.MAX_VALUE ? Double.NaN : (allArrived - measureTo) / 1e6;
            RunResult result =
                    result(broker, loaded, reader, window, afterDrain, drainMillis, cpuTo.coresSince(cpuFrom));
            print(result, loaded, reader, relayMetrics, ordersMetrics);
            if (!orders.isAlive() || !relay.isAlive()) {
                throw new IOException("order-service or outbox-relay exited during the run; see " + orders.logFile()
                        + " and " + relay.logFile());
            }
            return result;
        }
    }

    /**
     * Waits until the event of every accepted order of the window has been read, up to the drain period after the
     * window; returns when that was ({@link System#nanoTime()}), or {@code Long.MAX_VALUE} if it never was.
     */
    private long awaitArrivals(OrderEventsReader reader, OpenLoopLoad.Result loaded, long measureTo)
            throws InterruptedException {
        long deadline = measureTo + options.drain().toNanos();
        while (true) {
            long missing = missing(reader, loaded);
            long now = System.nanoTime();
            if (missing == 0) {
                return now;
            }
            if (now > deadline) {
                return Long.MAX_VALUE;
            }
            Thread.sleep(50);
        }
    }

    private static long missing(OrderEventsReader reader, OpenLoopLoad.Result loaded) {
        return loaded.acceptedAtMicros().keySet().stream()
                .filter(id -> reader.arrival(id) == null)
                .count();
    }

    private RunResult result(
            String broker,
            OpenLoopLoad.Result loaded,
            OrderEventsReader reader,
            List<BacklogSampler.Sample> window,
            BacklogSampler.Sample afterDrain,
            double drainMillis,
            Map<String, Double> cores) {
        LatencySamples upper = new LatencySamples();
        LatencySamples lower = new LatencySamples();
        loaded.acceptedAtMicros().forEach((orderId, answeredMicros) -> {
            OrderEventsReader.Arrival arrival = reader.arrival(orderId);
            if (arrival != null) {
                upper.add(arrival.readableMicros() - arrival.occurredMicros());
                lower.add(Math.max(0, arrival.readableMicros() - answeredMicros));
            }
        });
        LatencySamples.Summary readable = upper.summary();
        LatencySamples.Summary readableLower = lower.summary();
        double seconds = options.window().duration().toNanos() / 1e9;
        return new RunResult(
                broker,
                options.rate(),
                loaded.accepted() / seconds,
                loaded.scheduled() - loaded.accepted(),
                loaded.latency().percentileMillis(50),
                loaded.latency().percentileMillis(99),
                readable.percentileMillis(50),
                readable.percentileMillis(99),
                readable.maxMillis(),
                readableLower.percentileMillis(50),
                readableLower.percentileMillis(99),
                loaded.accepted() - readable.count(),
                window.stream().mapToLong(BacklogSampler.Sample::rows).max().orElse(-1),
                window.stream().mapToLong(BacklogSampler.Sample::rows).average().orElse(Double.NaN),
                window.stream()
                        .mapToDouble(BacklogSampler.Sample::oldestPendingMillis)
                        .max()
                        .orElse(Double.NaN),
                afterDrain.rows(),
                drainMillis,
                cores);
    }

    private void print(
            RunResult r,
            OpenLoopLoad.Result loaded,
            OrderEventsReader reader,
            String relayMetrics,
            String ordersMetrics) {
        double seconds = options.window().duration().toSeconds();
        System.out.printf(
                Locale.ROOT,
                "  load: %,d requests due in the %d s window, %,d accepted (%.1f/s), %,d failed %s, %,d not sent"
                        + " (%d outstanding), %,d unanswered; warm-up: %,d accepted%n",
                loaded.scheduled(),
                (long) seconds,
                loaded.accepted(),
                r.acceptedPerSecond(),
                loaded.failed(),
                loaded.failures(),
                loaded.notSent(),
                options.window().maxInFlight(),
                loaded.unanswered(),
                loaded.warmupAccepted());
        loaded.failureDetails().forEach((kind, detail) -> System.out.printf("    first %s: %s%n", kind, detail));
        System.out.printf(
                Locale.ROOT,
                "  HTTP latency from due time: p50 %s, p99 %s, max %s ms; service time (sent to answered) p50 %s,"
                        + " p99 %s ms; generator lag p99 %s ms%n",
                OrdersTable.format(r.httpP50()),
                OrdersTable.format(r.httpP99()),
                OrdersTable.format(loaded.latency().maxMillis()),
                OrdersTable.format(loaded.serviceTime().percentileMillis(50)),
                OrdersTable.format(loaded.serviceTime().percentileMillis(99)),
                OrdersTable.format(loaded.sendLag().percentileMillis(99)));
        System.out.printf(
                Locale.ROOT,
                "  events: %,d of %,d accepted orders read back (%,d missing), all %s; %,d records read in all"
                        + " (%,d polls), %,d duplicates, %,d undecodable%n",
                loaded.accepted() - (long) r.missing(),
                loaded.accepted(),
                (long) r.missing(),
                Double.isNaN(r.drainMillis())
                        ? "NOT within the drain period"
                        : "within " + OrdersTable.format(r.drainMillis()) + " ms of the last request",
                reader.records(),
                reader.polls(),
                reader.duplicates(),
                reader.undecodable());
        System.out.printf(
                Locale.ROOT,
                "  commit-to-readable from occurredAt (upper bound): p50 %s, p99 %s, max %s ms; from the 201"
                        + " (lower bound): p50 %s, p99 %s ms%n",
                OrdersTable.format(r.readableP50()),
                OrdersTable.format(r.readableP99()),
                OrdersTable.format(r.readableMax()),
                OrdersTable.format(r.readableLowerP50()),
                OrdersTable.format(r.readableLowerP99()));
        System.out.printf(
                Locale.ROOT,
                "  relay's own commit-to-ack (its /q/metrics, a decaying ~2 min window): p50 %s, p99 %s ms%n",
                OrdersTable.format(relayQuantile(relayMetrics, "0.5")),
                OrdersTable.format(relayQuantile(relayMetrics, "0.99")));
        double batches = PrometheusText.value(ordersMetrics, "orders_placement_batch_size_count", "")
                .orElse(Double.NaN);
        System.out.printf(
                Locale.ROOT,
                "  order-service's placement batches since it started (its /q/metrics): %s, mean %s orders; p50 %s,"
                        + " p99 %s in a decaying ~2 min window%n",
                OrdersTable.format(batches),
                OrdersTable.format(PrometheusText.value(ordersMetrics, "orders_placement_batch_size_sum", "")
                                .orElse(Double.NaN)
                        / batches),
                OrdersTable.format(
                        PrometheusText.value(ordersMetrics, "orders_placement_batch_size", "quantile=\"0.5\"")
                                .orElse(Double.NaN)),
                OrdersTable.format(
                        PrometheusText.value(ordersMetrics, "orders_placement_batch_size", "quantile=\"0.99\"")
                                .orElse(Double.NaN)));
        System.out.printf(
                Locale.ROOT,
                "  outbox backlog (1 s readings in the window): max %s, mean %s rows; oldest unpublished row max %s ms;"
                        + " after the drain %s rows%n",
                OrdersTable.format(r.backlogMax()),
                OrdersTable.format(r.backlogMean()),
                OrdersTable.format(r.oldestPendingMax()),
                OrdersTable.format(r.backlogAfterDrain()));
        StringBuilder cpu = new StringBuilder(
                "  CPU in the window (cores of " + Runtime.getRuntime().availableProcessors() + "):");
        r.cores()
                .forEach((name, cores) -> cpu.append(' ')
                        .append(name)
                        .append(' ')
                        .append(OrdersTable.format(cores))
                        .append(','));
        cpu.setLength(cpu.length() - 1);
        System.out.println(cpu);
        if (r.cores().values().stream().anyMatch(v -> Double.isNaN(v))) {
            System.out.println("    n/a: " + CpuTime.lastFailure());
        }
        if (loaded.accepted() > 0) {
            StringBuilder perOrder = new StringBuilder("  CPU per accepted order (ms):");
            double stack = 0;
            for (String process : List.of("order-service", "outbox-relay", "postgres", "broker", "driver")) {
                double ms = r.cores(process) * seconds * 1000 / loaded.accepted();
                perOrder.append(' ')
                        .append(process)
                        .append(' ')
                        .append(OrdersTable.format(ms))
                        .append(',');
                stack += process.equals("driver") || Double.isNaN(ms) ? 0 : ms;
            }
            System.out.printf(
                    Locale.ROOT,
                    "%s services, database and broker together %s, so %d cores given to them alone would serve"
                            + " at most ~%,.0f orders/s%n",
                    perOrder,
                    OrdersTable.format(stack),
                    Runtime.getRuntime().availableProcessors(),
                    Runtime.getRuntime().availableProcessors() * 1000 / stack);
        }
    }

    private static double relayQuantile(String metrics, String quantile) {
        return PrometheusText.value(metrics, "outbox_relay_commit_to_ack_seconds", "quantile=\"" + quantile + "\"")
                        .orElse(Double.NaN)
                * 1000;
    }

    private static Map<String, String> datasource(PostgresDatabase database) {
        Map<String, String> properties = new LinkedHashMap<>();
        properties.put("quarkus.datasource.jdbc.url", database.jdbcUrl());
        properties.put("quarkus.datasource.username", database.user());
        if (!database.password().isEmpty()) {
            properties.put("quarkus.datasource.password", database.password());
        }
        return properties;
    }

    private void delete(Path dir) {
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
}
