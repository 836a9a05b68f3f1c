package io.orderflow.ops.bench.platform;

import com.icegreen.greenmail.util.GreenMail;
import com.icegreen.greenmail.util.ServerSetup;
import io.orderflow.ops.bench.Directories;
import io.orderflow.ops.bench.kafkaperf.OrderflowBrokerLauncher;
import io.orderflow.ops.bench.kafkaperf.RunningBroker;
import io.orderflow.ops.bench.orders.BenchPostgres;
import io.orderflow.ops.bench.orders.CpuTime;
import io.orderflow.ops.bench.orders.LatencySamples;
import io.orderflow.ops.bench.orders.Machine;
import io.orderflow.ops.bench.orders.OpenLoopLoad;
import io.orderflow.ops.bench.orders.OrdersTopic;
import io.orderflow.postgres.PostgresDatabase;
import io.orderflow.process.ChildProcesses;
import io.orderflow.process.ServiceProcess;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
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
 * outbox-relay, our broker, and the three consumer services (inventory, notification with a real SMTP server,
 * analytics), each in its own process with its own database on one durable PostgreSQL. The question is whether every
 * consumer group keeps up with the offered rate, and how long an accepted order takes to be processed by all three.
 *
 * <p>Per run, everything starts fresh (new databases, new broker data, the {@code orders} topic created with the
 * platform's partitions), waits for health and for the three groups to be stable, then takes the load: a warm-up, the
 * measured window, and the drain (until every order's {@code OrderCreated} written to the outbox has been processed by
 * all three services). What is reported:
 *
 * <ul>
 *   <li>the accepted rate and HTTP latency (from each request's due time, as {@code ops/bench/orders});
 *   <li>per group, the lag in records read once a second over the Kafka protocol ({@link GroupLagSampler}), its maximum
 *       and mean in the window, and its growth (least-squares slope, records/s): a group keeps up when its lag does not
 *       grow;
 *   <li>accepted -> processed: from the 201's arrival at the load generator to the {@code processed_at} of the order's
 *       {@code OrderCreated} in each service's processed-events table (written in the transaction that applied it;
 *       same machine, same clock), per service and for all three (the last of the three), p50 / p99 / max;
 *   <li>the CPU each process used in the window, and per accepted order.
 * </ul>
 */
public final class PlatformBenchmark {
    static final List<String> CONSUMERS = List.of("inventory-service", "notification-service", "analytics-service");
    private static final Duration START_DELAY = Duration.ofMillis(200);
    private static final String PROCESSED_CREATED =
            "SELECT event_id, (extract(epoch FROM processed_at) * 1000000)::bigint"
                    + " FROM processed_events WHERE event_type = 'OrderCreated'";

    private final int rate;
    private final Duration warmup;
    private final Duration duration;
    private final Duration drain;
    private final int partitions;
    private final int maxInFlight;
    private final Path services;
    private final Path work;
    private final BenchPostgres postgres;
    private final GreenMail smtp;

    private PlatformBenchmark(Map<String, String> options, BenchPostgres postgres, GreenMail smtp) {
        this.rate = Integer.parseInt(options.getOrDefault("rate", "2000"));
        this.warmup = Duration.ofSeconds(Long.parseLong(options.getOrDefault("warmup-seconds", "30")));
        this.duration = Duration.ofSeconds(Long.parseLong(options.getOrDefault("duration-seconds", "60")));
        this.drain = Duration.ofSeconds(Long.parseLong(options.getOrDefault("drain-seconds", "120")));
        this.partitions = Integer.parseInt(options.getOrDefault("partitions", "6"));
        this.maxInFlight = Integer.parseInt(options.getOrDefault("max-in-flight", "512"));
        this.services = Path.of(options.getOrDefault("services", ".")).toAbsolutePath();
        this.work = Path.of(options.getOrDefault("work-dir", "ops/target/platform-bench"))
                .toAbsolutePath();
        this.postgres = postgres;
        this.smtp = smtp;
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> options = new LinkedHashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) {
            if (!args[i].startsWith("--")) {
                throw new IllegalArgumentException("expected --option value, got " + args[i]);
            }
            options.put(args[i].substring(2), args[i + 1]);
        }
        int runs = Integer.parseInt(options.getOrDefault("runs", "1"));
        Path work = Path.of(options.getOrDefault("work-dir", "ops/target/platform-bench"));
        Files.createDirectories(work.resolve("logs"));
        Runtime.getRuntime().addShutdownHook(new Thread(ChildProcesses::stopAll, "stop-services-and-broker"));
        GreenMail smtp = new GreenMail(new ServerSetup(0, "127.0.0.1", ServerSetup.PROTOCOL_SMTP));
        smtp.start();
        List<RunFigures> figures = new ArrayList<>();
        try (BenchPostgres postgres = BenchPostgres.start(work.resolve("postgres"), "on")) {
            PlatformBenchmark benchmark = new PlatformBenchmark(options, postgres, smtp);
            benchmark.printHeader(args, runs);
            for (int run = 1; run <= runs; run++) {
                figures.add(benchmark.measure(run, runs));
            }
        } finally {
            smtp.stop();
        }
        System.out.printf(
                "%nMedians of %d runs, finished %s, load average %s%n%n", runs, Instant.now(), Machine.loadAverage());
        RunFigures.printMedians(figures, System.out);
        System.out.println();
        System.out.println("command: ops/bench/platform " + String.join(" ", args));
    }

    private void printHeader(String[] args, int runs) {
        System.out.println("command: ops/bench/platform " + String.join(" ", args));
        System.out.printf(
                Locale.ROOT,
                "workload: POST /orders at %,d/s open loop (at most %d outstanding), %d s warm-up + %d s measured, drain"
                        + " up to %d s, %d runs; topic %s with %d partitions; consumer groups %s%n",
                rate,
                maxInFlight,
                warmup.toSeconds(),
                duration.toSeconds(),
                drain.toSeconds(),
                runs,
                OrdersTopic.NAME,
                partitions,
                CONSUMERS);
        System.out.printf(
                "machine: %s; load average %s; started %s%n", Machine.describe(), Machine.loadAverage(), Instant.now());
        System.out.println("services: " + services + "/<service>/quarkus-run.jar, java -jar with JVM defaults,"
                + " configuration defaults except datasource, bootstrap servers, SMTP server and HTTP port;"
                + " broker: our log-broker at its defaults (fsync before acknowledging); PostgreSQL durable (fsync on,"
                + " synchronous_commit on); SMTP: GreenMail in the driver");
        System.out.println("driver: java "
                + String.join(" ", ManagementFactory.getRuntimeMXBean().getInputArguments())
                + " (load generator, lag sampler, GreenMail; its CPU is reported with the rest)");
    }

    private RunFigures measure(int run, int runs) throws Exception {
        String label = "run" + run;
        System.out.printf("%nrun %d/%d (load average %s)%n", run, runs, Machine.loadAverage());
        Path logs = work.resolve("logs");
        Path brokerDir = work.resolve("data").resolve(label);
        Directories.deleteRecursively(brokerDir);
        Map<String, PostgresDatabase> databases = new LinkedHashMap<>();
        for (String service :
                List.of("order-service", "inventory-service", "notification-service", "analytics-service")) {
            databases.put(service, postgres.freshDatabase(service + "-" + label));
        }
        System.out.println("  databases: " + postgres.describe(databases.get("order-service")));
        OrderflowBrokerLauncher launcher = new OrderflowBrokerLauncher(services.resolve("log-broker"), List.of());
        try (RunningBroker broker = launcher.start(brokerDir, logs.resolve(label + "-broker.log"))) {
            OrdersTopic.create(broker.bootstrapServers(), partitions);
            Map<String, ServiceProcess> started = new LinkedHashMap<>();
            try {
                started.put("order-service", service("order-service", label, databases.get("order-service"), null));
                started.put("outbox-relay", service("outbox-relay", label, databases.get("order-service"), broker));
                for (String consumer : CONSUMERS) {
                    started.put(consumer, service(consumer, label, databases.get(consumer), broker));
                }
                StringBuilder ready = new StringBuilder("  ready:");
                started.forEach((name, process) ->
                        ready.append(String.format(Locale.ROOT, " %s %.1f s,", name, process.readyMillis() / 1000)));
                System.out.println(ready.substring(0, ready.length() - 1));
                return measure(started, databases, broker);
            } finally {
                for (ServiceProcess process : started.values().stream().toList().reversed()) {
                    process.close();
                }
                for (PostgresDatabase database : databases.values()) {
                    postgres.drop(database);
                }
            }
        } finally {
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
                    .property(
                            "quarkus.mailer.port",
                            Integer.toString(smtp.getSmtp().getPort()));
        }
        return builder.start();
    }

    private RunFigures measure(
            Map<String, ServiceProcess> started, Map<String, PostgresDatabase> databases, RunningBroker broker)
            throws Exception {
        ServiceProcess orders = started.get("order-service");
        try (GroupLagSampler lag = GroupLagSampler.start(broker.bootstrapServers(), OrdersTopic.NAME, CONSUMERS);
                OpenLoopLoad load = new OpenLoopLoad(orders.baseUri(), rate, maxInFlight, false)) {
            lag.awaitStable(Duration.ofMinutes(2).toMillis());
            Map<String, DoubleSupplier> processes = new LinkedHashMap<>();
            started.forEach((name, process) -> processes.put(name, () -> CpuTime.processSeconds(process.pid())));
            OptionalLong postmaster = postgres.postmasterPid();
            processes.put(
                    "postgres",
                    () -> postmaster.isPresent() ? CpuTime.treeSeconds(postmaster.getAsLong()) : Double.NaN);
            processes.put("broker", broker::cpuSeconds);
            long self = ProcessHandle.current().pid();
            processes.put("driver", () -> CpuTime.processSeconds(self));

            long start = System.nanoTime() + START_DELAY.toNanos();
            long measureFrom = start + warmup.toNanos();
            long measureTo = measureFrom + duration.toNanos();
            long wallOffsetMillis = System.currentTimeMillis() - System.nanoTime() / 1_000_000;
            CompletableFuture<OpenLoopLoad.Result> loadDone = load.runInBackground(start, warmup, duration);
            OpenLoopLoad.sleepUntil(measureFrom);
            CpuTime.Reading cpuFrom = CpuTime.Reading.take(processes);
            OpenLoopLoad.sleepUntil(measureTo);
            CpuTime.Reading cpuTo = CpuTime.Reading.take(processes);
            OpenLoopLoad.Result loaded;
            try {
                loaded = loadDone.get();
            } catch (ExecutionException e) {
                throw new IllegalStateException("the load generator failed: " + e.getCause(), e.getCause());
            }
            long drainedAt = awaitDrained(databases, measureTo);
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
            RunFigures figures = RunFigures.of(
                    loaded,
                    duration,
                    window,
                    processedLatencies(databases, loaded.acceptedAtMicros()),
                    drainedAt == Long.MAX_VALUE ? Double.NaN : (drainedAt - measureTo) / 1e6,
                    cpuTo.coresSince(cpuFrom),
                    mails(databases.get("notification-service")));
            figures.print(System.out, loaded, duration);
            return figures;
        }
    }

    /**
     * Waits until each consumer service has processed as many {@code OrderCreated} as order-service wrote to its
     * outbox (warm-up included), up to the drain period after the window; returns when ({@link System#nanoTime()}),
     * or {@code Long.MAX_VALUE} if never.
     */
    private long awaitDrained(Map<String, PostgresDatabase> databases, long measureTo) throws Exception {
        long deadline = measureTo + drain.toNanos();
        while (true) {
            long written = count(
                    databases.get("order-service"), "SELECT count(*) FROM outbox WHERE event_type = 'OrderCreated'");
            boolean all = true;
            for (String consumer : CONSUMERS) {
                all &= count(
                                databases.get(consumer),
                                "SELECT count(*) FROM processed_events WHERE event_type = 'OrderCreated'")
                        >= written;
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

    /** Per consumer, and for all three ("all"), accepted -> processed of the window's accepted orders. */
    private static Map<String, LatencySamples> processedLatencies(
            Map<String, PostgresDatabase> databases, Map<String, Long> acceptedAtMicros) throws SQLException {
        Map<String, UUID> createdEvent = new HashMap<>();
        try (Connection connection = databases.get("order-service").connect();
                Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery(
                        "SELECT aggregate_id, event_id FROM outbox WHERE event_type = 'OrderCreated'")) {
            while (rows.next()) {
                createdEvent.put(rows.getString(1), rows.getObject(2, UUID.class));
            }
        }
        Map<String, Map<UUID, Long>> processed = new LinkedHashMap<>();
        for (String consumer : CONSUMERS) {
            Map<UUID, Long> at = new HashMap<>();
            try (Connection connection = databases.get(consumer).connect();
                    Statement statement = connection.createStatement();
                    ResultSet rows = statement.executeQuery(PROCESSED_CREATED)) {
                while (rows.next()) {
                    at.put(rows.getObject(1, UUID.class), rows.getLong(2));
                }
            }
            processed.put(consumer, at);
        }
        Map<String, LatencySamples> latencies = new LinkedHashMap<>();
        CONSUMERS.forEach(c -> latencies.put(c, new LatencySamples()));
        LatencySamples all = new LatencySamples();
        acceptedAtMicros.forEach((orderId, accepted) -> {
            UUID event = createdEvent.get(orderId);
            long last = Long.MIN_VALUE;
            for (String consumer : CONSUMERS) {
                Long at = event == null ? null : processed.get(consumer).get(event);
                if (at == null) {
                    return; // not processed by every service: counted as missing
                }
                latencies.get(consumer).add(Math.max(0, at - accepted));
                last = Math.max(last, at);
            }
            all.add(Math.max(0, last - accepted));
        });
        latencies.put("all", all);
        return latencies;
    }

    /** The notification service's mails by status (SENT, PENDING) at the end of the drain. */
    private static Map<String, Long> mails(PostgresDatabase notifications) throws SQLException {
        Map<String, Long> byStatus = new LinkedHashMap<>();
        try (Connection connection = notifications.connect();
                Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery(
                        "SELECT status, count(*) FROM notifications GROUP BY status ORDER BY status")) {
            while (rows.next()) {
                byStatus.put(rows.getString(1), rows.getLong(2));
            }
        }
        return byStatus;
    }

    private static long count(PostgresDatabase database, String query) throws SQLException {
        try (Connection connection = database.connect();
                Statement statement = connection.createStatement();
                ResultSet row = statement.executeQuery(query)) {
            row.next();
            return row.getLong(1);
        }
    }
}
