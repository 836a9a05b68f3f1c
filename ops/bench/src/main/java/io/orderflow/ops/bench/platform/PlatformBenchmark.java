package io.orderflow.ops.bench.platform;

import io.orderflow.consumer.ProcessedEvents;
import io.orderflow.ops.bench.BenchCommandLine;
import io.orderflow.ops.bench.Directories;
import io.orderflow.ops.bench.SmtpSink;
import io.orderflow.ops.bench.orders.BenchPostgres;
import io.orderflow.ops.bench.orders.CpuTime;
import io.orderflow.ops.bench.orders.Machine;
import io.orderflow.ops.bench.orders.OrderEventsReader;
import io.orderflow.ops.bench.orders.OrdersTopic;
import io.orderflow.ops.load.LatencySamples;
import io.orderflow.ops.load.OpenLoopLoad;
import io.orderflow.ops.load.PrometheusText;
import io.orderflow.ops.load.WallClock;
import io.orderflow.outbox.OutboxPublication;
import io.orderflow.outbox.OutboxTable;
import io.orderflow.postgres.PostgresDatabase;
import io.orderflow.process.ApacheKafkaLauncher;
import io.orderflow.process.BrokerLauncher;
import io.orderflow.process.ChildProcesses;
import io.orderflow.process.OrderflowBrokerLauncher;
import io.orderflow.process.RunningBroker;
import io.orderflow.process.ServiceProcess;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.function.DoubleSupplier;

/**
 * The whole platform on this machine, under an open-loop load of {@code POST /orders}: order-service and its outbox,
 * outbox-relay, a broker, and the three consumer services (inventory, notification with a real SMTP server,
 * analytics), each in its own process with its own database on one durable PostgreSQL. The same packaged services run
 * once on our broker and once on Apache Kafka 4.4 ({@code --brokers}), nothing changed but {@code bootstrap.servers},
 * at each offered rate of a ladder ({@code --rates}). The question is the highest rate at which every consumer group
 * keeps up, on each broker, and how long an accepted order takes to be processed by all three.
 *
 * <p>A settling measurement, not reported, comes first ({@link #settle}). Each measurement starts everything fresh (new databases, new broker data, the {@code orders} topic created with
 * the platform's partitions), waits for health and for the three groups to be stable, then takes the load: a warm-up,
 * the measured window, and the drain (until every order's {@code OrderCreated} written to the outbox has been processed
 * by all three services). Which broker goes first alternates from one measurement to the next. What is reported:
 *
 * <ul>
 *   <li>the accepted rate and HTTP latency (from each request's due time, as {@code ops/bin/bench/orders});
 *   <li>per group, the lag in records read once a second over the Kafka protocol ({@link GroupLagSampler}), its maximum
 *       and mean in the window, and its growth (least-squares slope, records/s), as an operator reads it;
 *   <li>per group, whether it kept up: its accepted -> processed delay did not grow over the window ({@link
 *       DelayTrend}), and it processed every order within the drain;
 *   <li>accepted -> processed: from the 201's arrival at the load generator to when each service applied the order's
 *       {@code OrderCreated}, as event-consumer's own reader of its processed events tells it (written in the
 *       transaction that applied it; same machine, same clock), per service and for all three (the last of the three),
 *       p50 / p99 / max;
 *   <li>where accepted -> processed went ({@link #STAGES}), and each consumer's batches in the window ({@link
 *       ConsumerBatches}): records per batch, time per batch and the share of the window it was busy;
 *   <li>the CPU each process used in the window, and per accepted order; the broker's resident memory at the end of
 *       the window and its peak.
 * </ul>
 *
 * <p>Then {@link PlatformTable}: per rate, each broker's medians side by side with the ratio ours / Kafka, and the
 * highest rate each broker sustained.
 */
public final class PlatformBenchmark {
    static final List<String> CONSUMERS = List.of("inventory-service", "notification-service", "analytics-service");
    private static final Duration START_DELAY = Duration.ofMillis(200);
    private static final String CREATED = "OrderCreated";

    private final PlatformBenchOptions options;
    private final Path services;
    private final Path work;
    private final BenchPostgres postgres;
    private final SmtpSink smtp;

    private PlatformBenchmark(PlatformBenchOptions options, BenchPostgres postgres, SmtpSink smtp) {
        this.options = options;
        this.services = options.services().toAbsolutePath();
        this.work = options.workDir().toAbsolutePath();
        this.postgres = postgres;
        this.smtp = smtp;
    }

    public static void main(String[] args) {
        PlatformBenchOptions options = new PlatformBenchOptions();
        System.exit(BenchCommandLine.of(options, () -> run(options)).execute(args));
    }

    /** Measures every rate on each broker as {@code options} say; exit code 1 when a measurement failed. */
    private static int run(PlatformBenchOptions options) throws Exception {
        Files.createDirectories(options.workDir().resolve("logs"));
        Map<String, BrokerLauncher> launchers = new LinkedHashMap<>();
        for (String broker : options.window().brokers()) {
            launchers.put(
                    broker,
                    broker.equals("ours")
                            ? new OrderflowBrokerLauncher(
                                    options.services().resolve("log-broker"), options.ourSettings())
                            : new ApacheKafkaLauncher(options.kafkaLib(), options.kafkaSettings()));
        }
        Runtime.getRuntime().addShutdownHook(new Thread(ChildProcesses::stopAll, "stop-services-and-broker"));
        SmtpSink smtp = SmtpSink.start("127.0.0.1");
        PlatformTable table =
                new PlatformTable(options.rates(), options.window().brokers(), options.runs());
        try (BenchPostgres postgres = BenchPostgres.start(options.workDir().resolve("postgres"), "on")) {
            PlatformBenchmark benchmark = new PlatformBenchmark(options, postgres, smtp);
            benchmark.printHeader(launchers);
            List<String> brokers = new ArrayList<>(launchers.keySet());
            benchmark.settle(brokers.getFirst(), launchers.get(brokers.getFirst()));
            for (int run = 1; run <= options.runs(); run++) {
                for (int i = 0; i < options.rates().size(); i++) {
                    int rate = options.rates().get(i);
                    // which broker goes first alternates from run to run at each rate, and from rate to rate
                    for (String broker : (run - 1 + i) % 2 == 0 ? brokers : brokers.reversed()) {
                        try {
                            table.add(benchmark.measure(broker, launchers.get(broker), rate, run));
                        } catch (InterruptedException e) {
                            throw e;
                        } catch (Exception e) {
                            System.out.println("  FAILED:");
                            e.printStackTrace(System.out);
                            table.fail(broker, rate, run, e.toString());
                        }
                    }
                }
            }
        } finally {
            smtp.close();
        }
        System.out.printf(
                "%nMedians of %d runs, finished %s, load average %s%n%n",
                options.runs(), Instant.now(), Machine.loadAverage());
        table.print(System.out);
        System.out.println();
        System.out.println("command: " + options.command());
        return table.failures().isEmpty() ? 0 : 1;
    }

    /**
     * One measurement whose figures are thrown away, before the first reported one. The first measurement of a run
     * paid for a fresh PostgreSQL cluster creating its WAL files, a cold page cache and the driver's compilation: its
     * HTTP p50 was 26-39 ms where every later one's was 17-21 ms (2026-12-02), whichever broker it measured, and so
     * whichever broker went first was handicapped.
     */
    private void settle(String broker, BrokerLauncher launcher) throws InterruptedException {
        System.out.printf("%nSettling measurement, not reported:");
        try {
            measure(broker, launcher, options.rates().getFirst(), 0);
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception e) {
            System.out.println("  the settling measurement failed (the reported ones follow): " + e);
        }
    }

    private void printHeader(Map<String, BrokerLauncher> launchers) {
        System.out.println("command: " + options.command());
        System.out.printf(
                Locale.ROOT,
                "workload: POST /orders open loop at %s/s (at most %d outstanding), %d s warm-up + %d s measured, drain"
                        + " up to %d s, %d runs of each rate on each broker; topic %s with %d partitions; consumer"
                        + " groups %s%n",
                options.rates(),
                options.window().maxInFlight(),
                options.window().warmup().toSeconds(),
                options.window().duration().toSeconds(),
                options.drain().toSeconds(),
                options.runs(),
                OrdersTopic.NAME,
                options.window().partitions(),
                CONSUMERS);
        System.out.printf(
                "machine: %s; load average %s; started %s%n", Machine.describe(), Machine.loadAverage(), Instant.now());
        launchers.values().forEach(launcher -> System.out.println("broker: " + launcher.describe()));
        System.out.println("services: " + services + "/<service>/quarkus-run.jar, java -jar with JVM defaults,"
                + " configuration defaults except datasource, bootstrap servers, SMTP server and HTTP port; the same"
                + " jars on every broker; PostgreSQL durable (fsync on, synchronous_commit on); SMTP: a sink in the"
                + " driver that accepts and discards every mail (SmtpSink)");
        System.out.println("driver: java "
                + String.join(" ", ManagementFactory.getRuntimeMXBean().getInputArguments())
                + " (load generator, lag sampler, SMTP sink; its CPU is reported with the rest)");
    }

    private RunFigures measure(String broker, BrokerLauncher launcher, int rate, int run) throws Exception {
        String label = broker + "-" + rate + "-run" + run;
        System.out.printf(
                Locale.ROOT,
                "%n%s at %,d orders/s, run %d/%d (load average %s)%n",
                launcher.name(),
                rate,
                run,
                options.runs(),
                Machine.loadAverage());
        Path logs = work.resolve("logs");
        Path brokerDir = work.resolve("data").resolve(label);
        Directories.deleteRecursively(brokerDir);
        Map<String, PostgresDatabase> databases = new LinkedHashMap<>();
        for (String service :
                List.of("order-service", "inventory-service", "notification-service", "analytics-service")) {
            databases.put(service, postgres.freshDatabase(service + "-" + label));
        }
        System.out.println("  databases: " + postgres.describe(databases.get("order-service")));
        try (RunningBroker running = launcher.start(brokerDir, logs.resolve(label + "-broker.log"))) {
            OrdersTopic.create(running.bootstrapServers(), options.window().partitions());
            Map<String, ServiceProcess> started = new LinkedHashMap<>();
            try {
                started.put("order-service", service("order-service", label, databases.get("order-service"), null));
                started.put("outbox-relay", service("outbox-relay", label, databases.get("order-service"), running));
                for (String consumer : CONSUMERS) {
                    started.put(consumer, service(consumer, label, databases.get(consumer), running));
                }
                StringBuilder ready = new StringBuilder(
                        String.format(Locale.ROOT, "  ready: broker %.1f s,", running.startupMillis() / 1000));
                started.forEach((name, process) ->
                        ready.append(String.format(Locale.ROOT, " %s %.1f s,", name, process.readyMillis() / 1000)));
                System.out.println(ready.substring(0, ready.length() - 1));
                return measure(broker, rate, started, databases, running);
            } finally {
                for (ServiceProcess process : started.values().stream().toList().reversed()) {
                    process.close();
                }
            }
        } finally {
            for (PostgresDatabase database : databases.values()) {
                try {
                    postgres.drop(database);
                } catch (SQLException e) {
                    System.out.println("  could not drop " + database.databaseName() + ": " + e.getMessage());
                }
            }
            Directories.deleteRecursively(brokerDir);
        }
    }

    private ServiceProcess service(String name, String label, PostgresDatabase database, RunningBroker broker) {
        ServiceProcess.Builder builder = ServiceProcess.builder(
                        name, services.resolve(name).resolve("quarkus-run.jar"))
                .properties(database.quarkusDatasource())
                .logFile(work.resolve("logs").resolve(label + "-" + name + ".log"));
        if (broker != null) {
            builder.property("kafka.bootstrap.servers", broker.bootstrapServers());
        }
        if (name.equals("notification-service")) {
            builder.property("quarkus.mailer.host", "127.0.0.1")
                    .property("quarkus.mailer.port", Integer.toString(smtp.port()));
        }
        return builder.start();
    }

    private RunFigures measure(
            String broker,
            int rate,
            Map<String, ServiceProcess> started,
            Map<String, PostgresDatabase> databases,
            RunningBroker running)
            throws Exception {
        ServiceProcess orders = started.get("order-service");
        Duration warmup = options.window().warmup();
        Duration duration = options.window().duration();
        try (GroupLagSampler lag = GroupLagSampler.start(running.bootstrapServers(), OrdersTopic.NAME, CONSUMERS);
                OrderEventsReader reader = OrderEventsReader.start(running.bootstrapServers(), OrdersTopic.NAME);
                OpenLoopLoad load = new OpenLoopLoad(
                        orders.baseUri(), rate, options.window().maxInFlight(), false)) {
            lag.awaitStable(Duration.ofMinutes(2).toMillis());
            Map<String, DoubleSupplier> processes = new LinkedHashMap<>();
            started.forEach((name, process) -> processes.put(name, () -> CpuTime.processSeconds(process.pid())));
            OptionalLong postmaster = postgres.postmasterPid();
            processes.put(
                    "postgres",
                    () -> postmaster.isPresent() ? CpuTime.treeSeconds(postmaster.getAsLong()) : Double.NaN);
            processes.put("broker", running::cpuSeconds);
            long self = ProcessHandle.current().pid();
            processes.put("driver", () -> CpuTime.processSeconds(self));

            long start = System.nanoTime() + START_DELAY.toNanos();
            long measureFrom = start + warmup.toNanos();
            long measureTo = measureFrom + duration.toNanos();
            long wallOffsetMillis = System.currentTimeMillis() - System.nanoTime() / 1_000_000;
            CompletableFuture<OpenLoopLoad.Result> loadDone = load.runInBackground(start, warmup, duration);
            OpenLoopLoad.sleepUntil(measureFrom);
            CpuTime.Reading cpuFrom = CpuTime.Reading.take(processes);
            Map<String, ConsumerBatches> batchesFrom = batches(started);
            ProduceRequests relayFrom =
                    ProduceRequests.parse(started.get("outbox-relay").metrics());
            OpenLoopLoad.sleepUntil(measureTo);
            CpuTime.Reading cpuTo = CpuTime.Reading.take(processes);
            Map<String, ConsumerBatches> batches = new LinkedHashMap<>();
            batches(started).forEach((consumer, to) -> batches.put(consumer, to.since(batchesFrom.get(consumer))));
            ProduceRequests relay =
                    ProduceRequests.parse(started.get("outbox-relay").metrics()).since(relayFrom);
            double brokerRss = running.rssMiB();
            OpenLoopLoad.Result loaded;
            try {
                loaded = loadDone.get();
            } catch (ExecutionException e) {
                throw new IllegalStateException("the load generator failed: " + e.getCause(), e.getCause());
            }
            long drainedAt = awaitDrained(databases, measureTo);
            reader.checkHealthy();
            List<GroupLagSampler.Sample> window =
                    lag.samples(measureFrom / 1_000_000 + wallOffsetMillis, measureTo / 1_000_000 + wallOffsetMillis);
            if (window.isEmpty()) {
                System.out.println("  no lag reading in the window: " + lag.lastFailure());
            }
            started.forEach((name, process) -> {
                if (!process.isAlive()) {
                    throw new IllegalStateException(name + " exited during the run; see " + process.logFile());
                }
            });
            if (!running.isAlive()) {
                throw new IllegalStateException("the broker exited during the run; see " + running.logFile());
            }
            RunFigures figures = RunFigures.of(
                    broker,
                    rate,
                    loaded,
                    duration,
                    window,
                    processed(databases, loaded.acceptedAtMicros(), reader),
                    drainedAt == Long.MAX_VALUE ? Double.NaN : (drainedAt - measureTo) / 1e6,
                    cpuTo.coresSince(cpuFrom),
                    batches,
                    relay,
                    new RunFigures.BrokerMemory(brokerRss, running.peakRssMiB()),
                    mails(started.get("notification-service")));
            figures.print(System.out, loaded, duration);
            return figures;
        }
    }

    /** Each consumer service's batch counters now. */
    private static Map<String, ConsumerBatches> batches(Map<String, ServiceProcess> started)
            throws IOException, InterruptedException {
        Map<String, ConsumerBatches> batches = new LinkedHashMap<>();
        for (String consumer : CONSUMERS) {
            batches.put(consumer, ConsumerBatches.parse(started.get(consumer).metrics(), consumer));
        }
        return batches;
    }

    /**
     * Waits until each consumer service has processed as many {@code OrderCreated} as order-service wrote to its
     * outbox (warm-up included), up to the drain period after the window; returns when ({@link System#nanoTime()}),
     * or {@code Long.MAX_VALUE} if never.
     */
    private long awaitDrained(Map<String, PostgresDatabase> databases, long measureTo) throws Exception {
        long deadline = measureTo + options.drain().toNanos();
        while (true) {
            long written;
            try (Connection connection = databases.get("order-service").connect()) {
                written = new OutboxTable(connection).count(CREATED);
            }
            boolean all = true;
            for (String consumer : CONSUMERS) {
                try (Connection connection = databases.get(consumer).connect()) {
                    all &= ProcessedEvents.count(connection, CREATED) >= written;
                }
            }
            long now = System.nanoTime();
            if (all) {
                return now;
            }
            if (now > deadline) {
                return Long.MAX_VALUE;
            }
            Thread.sleep(250); // polling the databases for the consumers' progress
        }
    }

    /**
     * The window's accepted orders as each consumer processed them: per consumer and for all three ({@code "all"}), the
     * accepted -> processed delays; per consumer, the trend of that delay over the window; and where the time went
     * ({@link #STAGES}).
     */
    record Processed(
            Map<String, LatencySamples> latencies,
            Map<String, DelayTrend> trends,
            Map<String, LatencySamples> stages) {}

    /**
     * The stages of accepted -> processed, each order's OrderCreated timed at the points one can see from outside: the
     * relay's {@code published_at} (set after the broker acknowledged the record), the moment a plain consumer of the
     * topic ({@link OrderEventsReader}: every partition assigned, no group, default fetch settings) had it from {@code
     * poll()}, and each service's {@code processed_at}. accepted -> readable is the relay and the broker; readable ->
     * processed is the consumer service: its fetches, its group's traffic and its own work.
     */
    static final List<String> STAGES = List.of(
            "accepted -> published",
            "accepted -> readable",
            "readable -> processed by inventory-service",
            "readable -> processed by notification-service",
            "readable -> processed by analytics-service");

    private static Processed processed(
            Map<String, PostgresDatabase> databases, Map<String, Long> acceptedAtMicros, OrderEventsReader reader)
            throws SQLException {
        Map<String, UUID> createdEvent = new HashMap<>();
        Map<String, Long> publishedAtMicros = new HashMap<>();
        try (Connection connection = databases.get("order-service").connect()) {
            for (OutboxPublication row : new OutboxTable(connection).publications(CREATED)) {
                createdEvent.put(row.aggregateId(), row.eventId());
                if (row.publishedAt() != null) {
                    publishedAtMicros.put(row.aggregateId(), WallClock.micros(row.publishedAt()));
                }
            }
        }
        Map<String, Map<UUID, Long>> processed = new LinkedHashMap<>();
        for (String consumer : CONSUMERS) {
            Map<UUID, Long> at = new HashMap<>();
            try (Connection connection = databases.get(consumer).connect()) {
                for (ProcessedEvents.Applied applied : ProcessedEvents.applied(connection)) {
                    if (applied.eventType().equals(CREATED)) {
                        at.put(applied.eventId(), WallClock.micros(applied.processedAt()));
                    }
                }
            }
            processed.put(consumer, at);
        }
        Map<String, LatencySamples> latencies = new LinkedHashMap<>();
        Map<String, List<long[]>> acceptedAndDelay = new LinkedHashMap<>();
        CONSUMERS.forEach(c -> {
            latencies.put(c, new LatencySamples());
            acceptedAndDelay.put(c, new ArrayList<>());
        });
        LatencySamples all = new LatencySamples();
        Map<String, LatencySamples> stages = new LinkedHashMap<>();
        STAGES.forEach(stage -> stages.put(stage, new LatencySamples()));
        acceptedAtMicros.forEach((orderId, accepted) -> {
            UUID event = createdEvent.get(orderId);
            Long published = publishedAtMicros.get(orderId);
            if (published != null) {
                stages.get(STAGES.get(0)).add(Math.max(0, published - accepted));
            }
            OrderEventsReader.Arrival readable = reader.arrival(orderId);
            if (readable != null) {
                stages.get(STAGES.get(1)).add(Math.max(0, readable.readableMicros() - accepted));
            }
            long last = Long.MIN_VALUE;
            for (String consumer : CONSUMERS) {
                Long at = event == null ? null : processed.get(consumer).get(event);
                if (at == null) {
                    continue; // not processed by this service: counted as missing for all three
                }
                long delay = Math.max(0, at - accepted);
                if (readable != null) {
                    stages.get("readable -> processed by " + consumer).add(Math.max(0, at - readable.readableMicros()));
                }
                latencies.get(consumer).add(delay);
                acceptedAndDelay.get(consumer).add(new long[] {accepted, delay});
                last = Math.max(last, at);
            }
            if (event != null
                    && CONSUMERS.stream().allMatch(c -> processed.get(c).containsKey(event))) {
                all.add(Math.max(0, last - accepted));
            }
        });
        latencies.put("all", all);
        Map<String, DelayTrend> trends = new LinkedHashMap<>();
        acceptedAndDelay.forEach((consumer, pairs) -> trends.put(
                consumer,
                DelayTrend.of(
                        pairs.stream().mapToLong(p -> p[0]).toArray(),
                        pairs.stream().mapToLong(p -> p[1]).toArray())));
        return new Processed(latencies, trends, stages);
    }

    /**
     * The notification service's mails sent and pending at the end of the drain, from its own metrics
     * ({@code orderflow_notifications_sent_total}; {@code orderflow_notifications_pending}, counted every 5 s).
     */
    private static Map<String, Long> mails(ServiceProcess notifications) {
        String metrics = notifications.metrics();
        Map<String, Long> byStatus = new LinkedHashMap<>();
        byStatus.put("PENDING", (long) PrometheusText.value(metrics, "orderflow_notifications_pending", "")
                .orElse(Double.NaN));
        byStatus.put("SENT", (long) PrometheusText.value(metrics, "orderflow_notifications_sent_total", "")
                .orElse(Double.NaN));
        return byStatus;
    }
}
