package io.orderflow.ops.bench.orders;

import io.orderflow.ops.bench.BenchCommandLine;
import io.orderflow.ops.load.WholeNumber;
import io.orderflow.orders.service.PlacementBatch;
import io.orderflow.outbox.AggregateLocks;
import io.orderflow.outbox.HeldAggregateLocks;
import io.orderflow.outbox.OutboxEntry;
import io.orderflow.outbox.OutboxInsert;
import io.orderflow.postgres.PostgresDatabase;
import java.lang.management.ManagementFactory;
import java.math.BigDecimal;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import org.flywaydb.core.Flyway;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The ceiling PostgreSQL puts on {@code POST /orders} on this machine: the statements order-service's creating
 * transaction sends (the order's advisory lock, the order row, its lines one INSERT each, the outbox row with an
 * envelope-sized payload, the commit; see {@code OrderPlacement} and {@code OutboxWriter}), run by a bare JDBC client
 * with no HTTP, no JSON, no Hibernate, no relay and no broker, on {@code connections} connections as fast as they
 * go. The schema is order-service's own migrations and the outbox library's, applied by Flyway to a fresh database.
 *
 * <p>Reports per connection count: transactions per second, and CPU milliseconds per transaction of PostgreSQL (every
 * backend, from {@code /proc}), of this client, and of the whole machine. Whatever else an order needs (HTTP, the
 * service, the relay's reads and marks, the broker, a load generator) comes on top, so this is an upper bound on the
 * order rate the whole stack can reach here.
 */
@Command(
        name = "ops/bin/bench/order-ceiling",
        sortOptions = false,
        sortSynopsis = false,
        description = {
            "The ceiling PostgreSQL puts on POST /orders here: order-service's creating transaction (advisory lock,"
                    + " order, lines, outbox row, commit) from a bare JDBC client on N connections, with PostgreSQL's"
                    + " and the client's CPU per order. See docs/benchmarks.md (\"Order path\").",
            ""
        })
public final class OrderTransactionCeiling implements Callable<Integer> {

    @Option(
            names = "--connections",
            paramLabel = "N",
            split = ",",
            defaultValue = "2,8,32",
            converter = WholeNumber.Positive.class,
            description = "connection counts, each measured in turn (default: ${DEFAULT-VALUE})")
    private List<Integer> connectionCounts;

    @Option(
            names = "--seconds",
            paramLabel = "N",
            defaultValue = "20",
            converter = WholeNumber.Positive.class,
            description = "measured seconds per connection count (default: ${DEFAULT-VALUE})")
    private int seconds;

    @Option(
            names = "--warmup-seconds",
            paramLabel = "N",
            defaultValue = "5",
            converter = WholeNumber.NotNegative.class,
            description = "unmeasured seconds before each, at least 1 is run (default: ${DEFAULT-VALUE})")
    private int warmupSeconds;

    @Option(
            names = "--lines",
            paramLabel = "N",
            defaultValue = "2",
            converter = WholeNumber.Positive.class,
            description = "order lines per order, one INSERT each (default: ${DEFAULT-VALUE})")
    private int lines;

    @Option(
            names = "--synchronous-commit",
            paramLabel = "S",
            defaultValue = "on",
            converter = OrdersBenchOptions.SynchronousCommit.class,
            completionCandidates = OrdersBenchOptions.SynchronousCommit.class,
            description = "PostgreSQL's synchronous_commit: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE})")
    private String synchronousCommit;

    @Option(
            names = "--work-dir",
            paramLabel = "DIR",
            defaultValue = "ops/bench/target/order-ceiling",
            description = "the embedded PostgreSQL's files (default: ${DEFAULT-VALUE})")
    private Path work;

    @Option(
            names = {"-h", "--help"},
            usageHelp = true,
            description = "print this text")
    private boolean help;

    private OrderTransactionCeiling() {}

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    static CommandLine commandLine() {
        return BenchCommandLine.of(new OrderTransactionCeiling());
    }

    @Override
    public Integer call() throws Exception {
        System.out.printf(
                Locale.ROOT,
                "order transaction ceiling: %d s per step after %d s warm-up, %d lines per order, connections %s,"
                        + " %s%n",
                seconds,
                warmupSeconds,
                lines,
                connectionCounts,
                Machine.describe());
        try (BenchPostgres postgres = BenchPostgres.start(work.resolve("postgres"), synchronousCommit)) {
            PostgresDatabase database = postgres.freshDatabase("ceiling");
            migrate(database);
            System.out.println("database: " + postgres.describe(database));
            OptionalLong postmaster = postgres.postmasterPid();
            System.out.printf(
                    "%n| connections | orders/s | PostgreSQL CPU ms/order | client CPU ms/order | machine busy |"
                            + " 2,000/s would need (cores, PostgreSQL + client) |%n|---|---|---|---|---|---|%n");
            for (int connections : connectionCounts) {
                run(database, postmaster, connections, Math.max(1, warmupSeconds), lines, false);
                Step step = run(database, postmaster, connections, seconds, lines, true);
                double perOrder = step.postgresCpuMs() + step.clientCpuMs();
                System.out.printf(
                        Locale.ROOT,
                        "| %d | %,.0f | %.3f | %.3f | %.0f %% | %.2f |%n",
                        connections,
                        step.ordersPerSecond(),
                        step.postgresCpuMs(),
                        step.clientCpuMs(),
                        step.machineBusyPercent(),
                        perOrder * 2000 / 1000);
            }
            postgres.drop(database);
        }
        return 0;
    }

    private record Step(double ordersPerSecond, double postgresCpuMs, double clientCpuMs, double machineBusyPercent) {}

    private static Step run(
            PostgresDatabase database, OptionalLong postmaster, int connections, int seconds, int lines, boolean report)
            throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        LongAdder committed = new LongAdder();
        List<Thread> workers = new ArrayList<>();
        List<Throwable> failures = Collections.synchronizedList(new ArrayList<>());
        for (int i = 0; i < connections; i++) {
            workers.add(Thread.ofPlatform().name("ceiling-" + i).start(() -> {
                try (Connection connection = database.connect()) {
                    work(connection, lines, stop, committed);
                } catch (Throwable e) {
                    failures.add(e);
                }
            }));
        }
        double pgBefore = postmaster.isPresent() ? CpuTime.treeSeconds(postmaster.getAsLong()) : Double.NaN;
        double clientBefore = clientCpuSeconds();
        CpuTime.AllCores machineBefore = CpuTime.AllCores.read();
        long startCount = committed.sum();
        long start = System.nanoTime();
        Thread.sleep(seconds * 1000L); // the measured interval itself, not a synchronisation
        long count = committed.sum() - startCount;
        double elapsed = (System.nanoTime() - start) / 1e9;
        double pgAfter = postmaster.isPresent() ? CpuTime.treeSeconds(postmaster.getAsLong()) : Double.NaN;
        double clientAfter = clientCpuSeconds();
        CpuTime.AllCores machineAfter = CpuTime.AllCores.read();
        stop.set(true);
        for (Thread worker : workers) {
            worker.join();
        }
        if (!failures.isEmpty()) {
            throw new IllegalStateException("a connection failed", failures.getFirst());
        }
        double cores = Runtime.getRuntime().availableProcessors();
        return new Step(
                count / elapsed,
                (pgAfter - pgBefore) * 1000 / count,
                (clientAfter - clientBefore) * 1000 / count,
                (machineAfter.busy() - machineBefore.busy()) * 100 / (elapsed * cores));
    }

    private static void work(Connection connection, int lines, AtomicBoolean stop, LongAdder committed)
            throws SQLException {
        connection.setAutoCommit(false);
        String payload = "{\"eventType\":\"OrderCreated\",\"eventVersion\":\"1.1\",\"producer\":\"order-service\","
                + "\"data\":{" + "\"x\":\"" + "y".repeat(520) + "\"}}";
        try (PreparedStatement order = connection.prepareStatement(PlacementBatch.INSERT_ORDER_SQL);
                PreparedStatement line = connection.prepareStatement(PlacementBatch.INSERT_LINE_SQL);
                PreparedStatement outbox = connection.prepareStatement(OutboxInsert.SQL)) {
            while (!stop.get()) {
                UUID orderId = UUID.randomUUID();
                Timestamp now = Timestamp.from(Instant.now());
                HeldAggregateLocks lock = AggregateLocks.acquire(connection, List.of(orderId.toString()), connection);
                order.setObject(1, orderId);
                order.setString(2, "customer-" + (orderId.getLeastSignificantBits() & 0xffff));
                order.setString(3, "EUR");
                order.setString(4, "web");
                order.setString(5, "CREATED");
                order.setBigDecimal(6, new BigDecimal("59.80"));
                order.setTimestamp(7, now);
                order.setTimestamp(8, now);
                order.executeUpdate();
                for (int n = 1; n <= lines; n++) {
                    line.setObject(1, orderId);
                    line.setInt(2, n);
                    line.setString(3, "SKU-" + n);
                    line.setInt(4, n);
                    line.setBigDecimal(5, new BigDecimal("19.90"));
                    line.executeUpdate();
                }
                OutboxInsert.bind(
                        outbox,
                        lock,
                        connection,
                        new OutboxEntry(
                                UUID.randomUUID(),
                                orderId.toString(),
                                1,
                                "OrderCreated",
                                "1.1",
                                payload,
                                "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
                                now.toInstant()));
                outbox.executeUpdate();
                connection.commit();
                committed.increment();
            }
        }
    }

    /**
     * order-service's schema as order-service's Flyway builds it: its own migrations and the outbox library's, from the
     * classpath (order-service's jar and the outbox jar are on ops' classpath for this).
     */
    private static void migrate(PostgresDatabase database) {
        Flyway.configure()
                .dataSource(database.jdbcUrl(), database.user(), database.password())
                .locations("classpath:db/migration", "classpath:db/outbox")
                .load()
                .migrate();
    }

    private static double clientCpuSeconds() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                        .getProcessCpuTime()
                / 1e9;
    }
}
