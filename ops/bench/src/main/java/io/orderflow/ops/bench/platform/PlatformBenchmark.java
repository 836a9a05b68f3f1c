package io.orderflow.ops.bench.platform;

import io.orderflow.consumer.ProcessedEvents;
import io.orderflow.ops.bench.BenchCommandLine;
import io.orderflow.ops.bench.Directories;
import io.orderflow.ops.bench.SmtpReceiver;
import io.orderflow.ops.bench.orders.BenchPostgres;
import io.orderflow.ops.bench.orders.CpuTime;
import io.orderflow.ops.bench.orders.Machine;
import io.orderflow.ops.bench.orders.OrderEventsReader;
import io.orderflow.ops.bench.orders.OrdersTopic;
import io.orderflow.ops.load.OpenLoopLoad;
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
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
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
import java.util.function.Function;

/**
 * The whole platform on this machine, under an open-loop load of {@code POST /orders}, round the saga's loop:
 * order-service and its outbox, outbox-relay publishing to {@code orders}, a broker, the three consumer services
 * (inventory, notification, analytics), inventory's own outbox-relay publishing its answers to {@code inventory},
 * order-service's saga consumer (group {@code order-service}) confirming each order, and notification-service's mails
 * to a real SMTP server ({@link SmtpReceiver}, GreenMail in the driver); each service in its own process with its own
 * database on one durable PostgreSQL. The same packaged services run once on our broker and once on Apache Kafka 4.4
 * ({@code --brokers}), nothing changed but {@code bootstrap.servers}, at each offered rate of a ladder ({@code
 * --rates}). The question is the highest rate at which everything keeps up ({@link OrderTimings#PARTS}: the three
 * consumer groups, inventory's relay, the saga consumer and the mails), on each broker, and how long an accepted order
 * takes to be processed by all three, confirmed and mailed.
 *
 * <p>A settling measurement, not reported, comes first ({@link #settle}). Each measurement starts everything fresh
 * (new databases, new broker data, the {@code orders} and {@code inventory} topics created with the platform's
 * partitions, a new SMTP server), waits for health and for the four groups to be stable, then takes the load: a
 * warm-up, the measured window, and the drain (until every order order-service wrote has been processed by all three
 * services, confirmed or rejected, and mailed). Which broker goes first alternates from one measurement to the next.
 * What is reported:
 *
 * <ul>
 *   <li>the accepted rate and HTTP latency (from each request's due time, as {@code ops/bin/bench/orders});
 *   <li>per group, the lag in records on its source topic read once a second over the Kafka protocol ({@link
 *       GroupLagSampler}), its maximum and mean in the window, and its growth (least-squares slope, records/s), as an
 *       operator reads it; the same for the mails pending at notification-service ({@link PendingMailsSampler});
 *   <li>per part, whether it kept up: its delay from acceptance did not grow over the window ({@link DelayTrend}),
 *       and every order got there within the drain;
 *   <li>from the 201's arrival at the load generator ({@link OrderTimings}): to processed by each service and by all
 *       three, to confirmed, and to the mail accepted by the SMTP server, p50 / p99 / max, and the stages between;
 *   <li>each consumer's batches in the window ({@link ConsumerBatches}), each relay's produce requests ({@link
 *       ProduceRequests});
 *   <li>the CPU each process used in the window, and per accepted order; the broker's resident memory at the end of
 *       the window and its peak.
 * </ul>
 *
 * <p>Then {@link PlatformTable}: per rate, each broker's medians side by side with the ratio ours / Kafka, and the
 * highest rate each broker sustained.
 */
public final class PlatformBenchmark {
    /** The services that consume {@code orders}, each in its own group named after it. */
    static final List<String> CONSUMERS = List.of("inventory-service", "notification-service", "analytics-service");
    /** Order-service's saga consumer's group, on {@code inventory}. */
    static final String SAGA_GROUP = "order-service";
    /** Every consumer group and its source topic. */
    static final Map<String, String> GROUPS = groups();

    private static final Duration START_DELAY = Duration.ofMillis(200);
    private static final String CREATED = "OrderCreated";
    private static final List<String> ANSWERS = List.of("InventoryReserved", "InventoryRejected");
    private static final String CONFIRMED = "OrderConfirmed";
    private static final String REJECTED = "OrderRejected";

    private final PlatformBenchOptions options;
    private final Path services;
    private final Path work;
    private final BenchPostgres postgres;

    private PlatformBenchmark(PlatformBenchOptions options, BenchPostgres postgres) {
        this.options = options;
        this.services = options.services().toAbsolutePath();
        this.work = options.workDir().toAbsolutePath();
        this.postgres = postgres;
    }

    private static Map<String, String> groups() {
        Map<String, String> groups = new LinkedHashMap<>();
        CONSUMERS.forEach(consumer -> groups.put(consumer, OrdersTopic.NAME));
        groups.put(SAGA_GROUP, OrdersTopic.INVENTORY);
        return Collections.unmodifiableMap(groups);
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
        PlatformTable table =
                new PlatformTable(options.rates(), options.window().brokers(), options.runs());
        try (BenchPostgres postgres = BenchPostgres.start(options.workDir().resolve("postgres"), "on")) {
            PlatformBenchmark benchmark = new PlatformBenchmark(options, postgres);
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
                        + " up to %d s, %d runs of each rate on each broker; topics %s and %s with %d partitions each;"
                        + " consumer groups (on their topic) %s%n",
                options.rates(),
                options.window().maxInFlight(),
                options.window().warmup().toSeconds(),
                options.window().duration().toSeconds(),
                options.drain().toSeconds(),
                options.runs(),
                OrdersTopic.NAME,
                OrdersTopic.INVENTORY,
                options.window().partitions(),
                GROUPS);
        System.out.printf(
                "machine: %s; load average %s; started %s%n", Machine.describe(), Machine.loadAverage(), Instant.now());
        launchers.values().forEach(launcher -> System.out.println("broker: " + launcher.describe()));
        System.out.println("services: " + services + "/<service>/quarkus-run.jar, java -jar with JVM defaults,"
                + " configuration defaults except datasource, bootstrap servers, SMTP server, HTTP port and inventory's"
                + " relay's topic (inventory-outbox-relay: outbox-relay on inventory-service's database); the same"
                + " jars on every broker; PostgreSQL durable (fsync on, synchronous_commit on); SMTP: GreenMail in the"
                + " driver, a new server per measurement, every mail parsed and stored (SmtpReceiver)");
        System.out.println("driver: java "
                + String.join(" ", ManagementFactory.getRuntimeMXBean().getInputArguments())
                + " (load generator, samplers, the SMTP server; its CPU is reported as driver and smtp, apart)");
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
        try (RunningBroker running = launcher.start(brokerDir, logs.resolve(label + "-broker.log"));
                SmtpReceiver smtp = SmtpReceiver.start("127.0.0.1")) {
            OrdersTopic.create(
                    running.bootstrapServers(),
                    options.window().partitions(),
                    List.of(OrdersTopic.NAME, OrdersTopic.INVENTORY));
            Map<String, ServiceProcess> started = new LinkedHashMap<>();
            try {
                for (Map.Entry<String, ServiceProcess.Builder> service :
                        services(label, databases, running, smtp).entrySet()) {
                    started.put(service.getKey(), service.getValue().start());
                }
                StringBuilder ready = new StringBuilder(
                        String.format(Locale.ROOT, "  ready: broker %.1f s,", running.startupMillis() / 1000));
                started.forEach((name, process) ->
                        ready.append(String.format(Locale.ROOT, " %s %.1f s,", name, process.readyMillis() / 1000)));
                System.out.println(ready.substring(0, ready.length() - 1));
                return measure(broker, rate, started, databases, running, smtp);
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

    /**
     * Every process of the platform, in start order, by instance name: order-service (which consumes {@code
     * inventory} too) and its relay, inventory-service and the relay of its answers (outbox-relay on its database,
     * publishing to {@code inventory}, as the platform launcher runs it), notification-service mailing to {@code smtp},
     * analytics-service.
     */
    private Map<String, ServiceProcess.Builder> services(
            String label, Map<String, PostgresDatabase> databases, RunningBroker broker, SmtpReceiver smtp) {
        Map<String, ServiceProcess.Builder> services = new LinkedHashMap<>();
        services.put("order-service", service("order-service", "order-service", label, databases, broker));
        services.put("outbox-relay", service("outbox-relay", "order-service", label, databases, broker));
        services.put("inventory-service", service("inventory-service", "inventory-service", label, databases, broker));
        services.put(
                "inventory-outbox-relay",
                service("outbox-relay", "inventory-service", label, databases, broker)
                        .property("orderflow.outbox-relay.topic", OrdersTopic.INVENTORY)
                        .logFile(work.resolve("logs").resolve(label + "-inventory-outbox-relay.log")));
        services.put(
                "notification-service",
                service("notification-service", "notification-service", label, databases, broker)
                        .property("quarkus.mailer.host", "127.0.0.1")
                        .property("quarkus.mailer.port", Integer.toString(smtp.port())));
        services.put("analytics-service", service("analytics-service", "analytics-service", label, databases, broker));
        return services;
    }

    /** {@code module}'s packaged application on the database of {@code databaseOf} and on {@code broker}. */
    private ServiceProcess.Builder service(
            String module,
            String databaseOf,
            String label,
            Map<String, PostgresDatabase> databases,
            RunningBroker broker) {
        return ServiceProcess.builder(module, services.resolve(module).resolve("quarkus-run.jar"))
                .properties(databases.get(databaseOf).quarkusDatasource())
                .property("kafka.bootstrap.servers", broker.bootstrapServers())
                .logFile(work.resolve("logs").resolve(label + "-" + module + ".log"));
    }

    private RunFigures measure(
            String broker,
            int rate,
            Map<String, ServiceProcess> started,
            Map<String, PostgresDatabase> databases,
            RunningBroker running,
            SmtpReceiver smtp)
            throws Exception {
        ServiceProcess orders = started.get("order-service");
        Duration warmup = options.window().warmup();
        Duration duration = options.window().duration();
        try (GroupLagSampler lag = GroupLagSampler.start(running.bootstrapServers(), GROUPS);
                PendingMailsSampler pending = PendingMailsSampler.start(started.get("notification-service")::metrics);
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
            // the SMTP server's threads apart from the rest of the driver, so that the two add up to the driver's JVM
            processes.put("driver", () -> CpuTime.processSeconds(self) - smtp.cpuSeconds());
            processes.put("smtp", smtp::cpuSeconds);

            long start = System.nanoTime() + START_DELAY.toNanos();
            long measureFrom = start + warmup.toNanos();
            long measureTo = measureFrom + duration.toNanos();
            long wallOffsetMillis = System.currentTimeMillis() - System.nanoTime() / 1_000_000;
            CompletableFuture<OpenLoopLoad.Result> loadDone = load.runInBackground(start, warmup, duration);
            OpenLoopLoad.sleepUntil(measureFrom);
            CpuTime.Reading cpuFrom = CpuTime.Reading.take(processes);
            Map<String, ConsumerBatches> batchesFrom = batches(started);
            Map<String, ProduceRequests> relaysFrom = relays(started);
            long mailsFrom = smtp.accepted();
            OpenLoopLoad.sleepUntil(measureTo);
            CpuTime.Reading cpuTo = CpuTime.Reading.take(processes);
            long mailsTo = smtp.accepted();
            Map<String, ConsumerBatches> batches = new LinkedHashMap<>();
            batches(started).forEach((consumer, to) -> batches.put(consumer, to.since(batchesFrom.get(consumer))));
            Map<String, ProduceRequests> relays = new LinkedHashMap<>();
            relays(started).forEach((relay, to) -> relays.put(relay, to.since(relaysFrom.get(relay))));
            double brokerRss = running.rssMiB();
            OpenLoopLoad.Result loaded;
            try {
                loaded = loadDone.get();
            } catch (ExecutionException e) {
                throw new IllegalStateException("the load generator failed: " + e.getCause(), e.getCause());
            }
            long drainedAt = awaitDrained(databases, smtp, measureTo);
            reader.checkHealthy();
            long fromMillis = measureFrom / 1_000_000 + wallOffsetMillis;
            long toMillis = measureTo / 1_000_000 + wallOffsetMillis;
            List<GroupLagSampler.Sample> window = lag.samples(fromMillis, toMillis);
            if (window.isEmpty()) {
                System.out.println("  no lag reading in the window: " + lag.lastFailure());
            }
            RunFigures.Backlog pendingMails = RunFigures.Backlog.of(pending.readings(fromMillis, toMillis));
            if (pendingMails.readings() == 0) {
                System.out.println("  no pending-mails reading in the window: " + pending.lastFailure());
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
                    new RunFigures.Mails(
                            pendingMails,
                            (mailsTo - mailsFrom) / (duration.toNanos() / 1e9),
                            smtp.resent(),
                            smtp.unidentified()),
                    OrderTimings.of(moments(databases, loaded.acceptedAtMicros(), reader, smtp)),
                    drainedAt == Long.MAX_VALUE ? Double.NaN : (drainedAt - measureTo) / 1e6,
                    cpuTo.coresSince(cpuFrom),
                    batches,
                    relays,
                    new RunFigures.BrokerMemory(brokerRss, running.peakRssMiB()));
            figures.print(System.out, loaded, duration);
            return figures;
        }
    }

    /** Each consuming service's batch counters now: the three on {@code orders}, then order-service's saga's. */
    private static Map<String, ConsumerBatches> batches(Map<String, ServiceProcess> started) {
        Map<String, ConsumerBatches> batches = new LinkedHashMap<>();
        for (String consumer : CONSUMERS) {
            batches.put(
                    consumer,
                    ConsumerBatches.parse(started.get(consumer).metrics(), consumer, ConsumerBatches.ORDERS_CHANNEL));
        }
        batches.put(
                SAGA_GROUP,
                ConsumerBatches.parse(
                        started.get("order-service").metrics(), SAGA_GROUP, ConsumerBatches.INVENTORY_CHANNEL));
        return batches;
    }

    /** Each relay's produce counters now, by instance, with its topic. */
    private static Map<String, ProduceRequests> relays(Map<String, ServiceProcess> started) {
        Map<String, ProduceRequests> relays = new LinkedHashMap<>();
        relays.put(
                "outbox-relay (" + OrdersTopic.NAME + ")",
                ProduceRequests.parse(started.get("outbox-relay").metrics()));
        relays.put(
                "inventory-outbox-relay (" + OrdersTopic.INVENTORY + ")",
                ProduceRequests.parse(started.get("inventory-outbox-relay").metrics()));
        return relays;
    }

    /**
     * Waits until every order order-service wrote (warm-up included) has been processed by each consumer service,
     * answered by order-service (confirmed or rejected) and mailed: as many mails accepted as orders created and
     * rejected, one each (notification-service sends none for a confirmation). Up to the drain period after the
     * window; returns when ({@link System#nanoTime()}), or {@code Long.MAX_VALUE} if not by then.
     */
    private long awaitDrained(Map<String, PostgresDatabase> databases, SmtpReceiver smtp, long measureTo)
            throws Exception {
        long deadline = measureTo + options.drain().toNanos();
        while (true) {
            long created;
            long rejected;
            long answered;
            try (Connection connection = databases.get("order-service").connect()) {
                OutboxTable outbox = new OutboxTable(connection);
                created = outbox.count(CREATED);
                rejected = outbox.count(REJECTED);
                answered = outbox.count(CONFIRMED) + rejected;
            }
            boolean all = answered >= created && smtp.eventsMailed() >= created + rejected;
            for (String consumer : CONSUMERS) {
                if (!all) {
                    break;
                }
                try (Connection connection = databases.get(consumer).connect()) {
                    all = ProcessedEvents.count(connection, CREATED) >= created;
                }
            }
            long now = System.nanoTime();
            if (all) {
                return now;
            }
            if (now > deadline) {
                return Long.MAX_VALUE;
            }
            Thread.sleep(250); // polling the databases and the SMTP server for the platform's progress
        }
    }

    /**
     * Each order's moments ({@link OrderTimings.Moments}), read after the drain: from order-service's outbox (its
     * {@code OrderCreated} and its confirmation), each consumer's processed events, inventory-service's outbox (its
     * answer), the driver's reader of {@code orders} and the SMTP server; with the outbox and event-consumer libraries'
     * own readers of their tables.
     */
    private static OrderTimings.Moments moments(
            Map<String, PostgresDatabase> databases,
            Map<String, Long> acceptedAtMicros,
            OrderEventsReader reader,
            SmtpReceiver smtp)
            throws SQLException {
        Map<String, UUID> createdEvent = new HashMap<>();
        Map<String, Long> publishedAtMicros = new HashMap<>();
        Map<String, Long> confirmedAtMicros = new HashMap<>();
        try (Connection connection = databases.get("order-service").connect()) {
            OutboxTable outbox = new OutboxTable(connection);
            for (OutboxPublication row : outbox.publications(CREATED)) {
                createdEvent.put(row.aggregateId(), row.eventId());
                if (row.publishedAt() != null) {
                    publishedAtMicros.put(row.aggregateId(), WallClock.micros(row.publishedAt()));
                }
            }
            for (String answer : List.of(CONFIRMED, REJECTED)) {
                for (OutboxPublication row : outbox.publications(answer)) {
                    confirmedAtMicros.put(row.aggregateId(), WallClock.micros(row.createdAt()));
                }
            }
        }
        Map<String, Long> answerWrittenAtMicros = new HashMap<>();
        Map<String, Long> answerPublishedAtMicros = new HashMap<>();
        try (Connection connection = databases.get("inventory-service").connect()) {
            OutboxTable outbox = new OutboxTable(connection);
            for (String answer : ANSWERS) {
                for (OutboxPublication row : outbox.publications(answer)) {
                    answerWrittenAtMicros.put(row.aggregateId(), WallClock.micros(row.createdAt()));
                    if (row.publishedAt() != null) {
                        answerPublishedAtMicros.put(row.aggregateId(), WallClock.micros(row.publishedAt()));
                    }
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
        Function<String, Long> readable = orderId -> {
            OrderEventsReader.Arrival arrival = reader.arrival(orderId);
            return arrival == null ? null : arrival.readableMicros();
        };
        return new OrderTimings.Moments(
                acceptedAtMicros,
                createdEvent,
                publishedAtMicros,
                readable,
                processed,
                answerWrittenAtMicros,
                answerPublishedAtMicros,
                confirmedAtMicros,
                smtp::acceptedAtMicros);
    }
}
