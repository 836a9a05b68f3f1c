package io.orderflow.ops.bench.consumers;

import com.icegreen.greenmail.util.GreenMail;
import com.icegreen.greenmail.util.ServerSetup;
import io.orderflow.consumer.ProcessedEvents;
import io.orderflow.contracts.EventCodec;
import io.orderflow.contracts.order.OrderCancelled;
import io.orderflow.contracts.order.OrderCreated;
import io.orderflow.contracts.order.OrderEvent;
import io.orderflow.contracts.order.OrderLine;
import io.orderflow.contracts.order.OrderPaid;
import io.orderflow.contracts.order.OrderShipped;
import io.orderflow.ops.bench.BenchCommandLine;
import io.orderflow.ops.bench.Directories;
import io.orderflow.ops.load.WholeNumber;
import io.orderflow.postgres.EmbeddedMode;
import io.orderflow.postgres.LocalPostgres;
import io.orderflow.postgres.PostgresDatabase;
import io.orderflow.process.OrderflowBrokerLauncher;
import io.orderflow.process.RunningBroker;
import io.orderflow.process.ServiceProcess;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.TypeConversionException;

/**
 * {@code ops/bin/bench/consumers}: each consuming service's sustained processing rate from a pre-filled {@code orders}
 * topic, with its real transactions and idempotency, on our broker and a durable PostgreSQL. The topic holds a
 * lifecycle mix (every order created; 70% paid; of those, half shipped; 30% of all cancelled) over 1,000 SKUs. Each
 * run starts the packaged service fresh (empty database, a new consumer group) and times it from its first to its last
 * applied event (when event-consumer's processed-events reader says it was applied); the figure is applied events per second. Prints every run
 * and a table of medians against the 5,000 events/s target.
 */
@Command(
        name = "ops/bin/bench/consumers",
        sortOptions = false,
        sortSynopsis = false,
        description = {
            "Each consuming service's sustained processing rate from a pre-filled orders topic, with its real"
                    + " transactions and idempotency, on our broker and a durable embedded PostgreSQL: each service"
                    + " started fresh (empty database, new consumer group) per run. Prints every run and a table of"
                    + " medians against the 5,000 events/s target; see docs/benchmarks.md.",
            ""
        },
        footer = "%nCounts may group thousands: 20,000 or 20_000.")
public final class ConsumersBenchmark implements Callable<Integer> {

    private static final double TARGET = 5_000;
    /** Partitions of the orders topic, as the platform creates it. */
    private static final int PARTITIONS = 6;

    @Spec
    private CommandSpec spec;

    @Option(
            names = "--orders",
            paramLabel = "N",
            defaultValue = "20000",
            converter = WholeNumber.Positive.class,
            description = "orders on the topic, each with its lifecycle's events (default: ${DEFAULT-VALUE})")
    private int orders;

    @Option(
            names = "--runs",
            paramLabel = "N",
            defaultValue = "3",
            converter = WholeNumber.Positive.class,
            description = "runs of each service (default: ${DEFAULT-VALUE})")
    private int runs;

    @Option(
            names = "--services",
            paramLabel = "SERVICE",
            split = ",",
            defaultValue = "inventory-service,notification-service,analytics-service",
            converter = Service.class,
            completionCandidates = Service.class,
            description = "some of ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE})")
    private List<String> services;

    @Option(
            names = "--work-dir",
            paramLabel = "DIR",
            defaultValue = "ops/bench/target/consumers-bench",
            description = "logs, the broker's data and the embedded PostgreSQL's files (default: ${DEFAULT-VALUE})")
    private Path workDir;

    @Option(
            names = "--services-home",
            paramLabel = "DIR",
            defaultValue = ".",
            description = "where log-broker/target and each service's target/quarkus-app are: the repository"
                    + " (default: ${DEFAULT-VALUE})")
    private Path servicesHome;

    @Option(
            names = {"-h", "--help"},
            usageHelp = true,
            description = "print this text")
    private boolean help;

    private ConsumersBenchmark() {}

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    static CommandLine commandLine() {
        return BenchCommandLine.of(new ConsumersBenchmark());
    }

    @Override
    public Integer call() throws Exception {
        Path work = workDir.toAbsolutePath();
        Path home = servicesHome.toAbsolutePath().normalize();
        Files.createDirectories(work);

        OrderflowBrokerLauncher launcher = new OrderflowBrokerLauncher(home.resolve("log-broker/target"), List.of());
        System.out.println("broker: " + launcher.describe());
        Path brokerRun = work.resolve("broker");
        Directories.deleteRecursively(brokerRun);
        Files.createDirectories(brokerRun);
        try (RunningBroker broker = launcher.start(brokerRun, work.resolve("broker.log"));
                LocalPostgres postgres = LocalPostgres.start(work.resolve("postgres"), EmbeddedMode.FRESH)) {
            Map<String, Long> expected = fill(broker.bootstrapServers(), orders);
            long events = expected.values().stream().mapToLong(Long::longValue).sum();
            System.out.printf(
                    "topic orders: %d events of %d orders %s, %d partitions%n", events, orders, expected, PARTITIONS);
            GreenMail smtp = new GreenMail(new ServerSetup(0, "127.0.0.1", ServerSetup.PROTOCOL_SMTP));
            smtp.start();
            try {
                Map<String, List<Double>> rates = new LinkedHashMap<>();
                for (int run = 1; run <= runs; run++) {
                    for (String service : services) {
                        long handled = service.equals("analytics-service")
                                ? events
                                : events - expected.getOrDefault("OrderPaid", 0L);
                        double rate = measure(service, run, home, work, broker, postgres, smtp, handled);
                        rates.computeIfAbsent(service, s -> new ArrayList<>()).add(rate);
                    }
                }
                System.out.println();
                System.out.println("| service | applied events/s, median (runs) | target | met |");
                System.out.println("|---|---|---|---|");
                rates.forEach((service, values) -> {
                    double median = median(values);
                    System.out.printf(
                            "| %s | %,.0f (%s) | >= %,.0f | %s |%n",
                            service,
                            median,
                            values.stream().map(v -> String.format("%,.0f", v)).toList(),
                            TARGET,
                            median >= TARGET ? "yes" : "**no**");
                });
                System.out.println();
                System.out.println("command: " + BenchCommandLine.command(spec));
            } finally {
                smtp.stop();
            }
        }
        return 0;
    }

    /** Runs {@code service} on a fresh database and group until it applied {@code handled} events; its rate. */
    private static double measure(
            String service,
            int run,
            Path home,
            Path work,
            RunningBroker broker,
            LocalPostgres postgres,
            GreenMail smtp,
            long handled)
            throws Exception {
        PostgresDatabase database = postgres.database(service);
        try (Connection connection = database.connect();
                Statement statement = connection.createStatement()) {
            statement.execute("DROP SCHEMA IF EXISTS public CASCADE; CREATE SCHEMA public");
        }
        String group =
                service + "-bench-" + run + "-" + UUID.randomUUID().toString().substring(0, 8);
        ServiceProcess.Builder builder = ServiceProcess.builder(
                        service, home.resolve(service).resolve("target/quarkus-app/quarkus-run.jar"))
                .jvmOptions(List.of("-Xmx256m"))
                .properties(database.quarkusDatasource())
                .property("kafka.bootstrap.servers", broker.bootstrapServers())
                .property("mp.messaging.incoming.orders.group.id", group)
                .property("mp.messaging.incoming.orders-retry.group.id", group)
                .property("quarkus.mailer.host", "127.0.0.1")
                .property("quarkus.mailer.port", Integer.toString(smtp.getSmtp().getPort()))
                .logFile(work.resolve(service + "-run" + run + ".log"));
        long deadline = System.nanoTime() + Duration.ofMinutes(10).toNanos();
        try (ServiceProcess process = builder.start()) {
            while (count(database) < handled) {
                if (System.nanoTime() > deadline || !process.isAlive()) {
                    throw new IllegalStateException(service + " applied " + count(database) + " of " + handled
                            + " events; see " + process.logFile());
                }
                Thread.sleep(200); // polling the database for progress; the measure is the rows' own timestamps
            }
        }
        double seconds = span(database);
        double rate = (handled - 1) / seconds;
        System.out.printf(
                "  run %d %-21s %,d events applied in %.2f s: %,.0f events/s%n", run, service, handled, seconds, rate);
        return rate;
    }

    /** Events the service has applied so far, read by event-consumer's own reader. */
    private static long count(PostgresDatabase database) {
        try (Connection connection = database.connect()) {
            return ProcessedEvents.count(connection);
        } catch (SQLException e) {
            return 0; // the schema is not migrated yet
        }
    }

    /** Seconds from the first to the last applied event. */
    private static double span(PostgresDatabase database) throws SQLException {
        try (Connection connection = database.connect()) {
            List<Instant> at = ProcessedEvents.applied(connection).stream()
                    .map(ProcessedEvents.Applied::processedAt)
                    .sorted()
                    .toList();
            return at.isEmpty()
                    ? 0
                    : Duration.between(at.getFirst(), at.getLast()).toNanos() / 1e9;
        }
    }

    /** The lifecycle mix, keyed by order; returns the events produced by type. */
    private static Map<String, Long> fill(String bootstrapServers, int orders) throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers))) {
            admin.createTopics(List.of(new NewTopic("orders", PARTITIONS, (short) 1)))
                    .all()
                    .get(30, TimeUnit.SECONDS);
        }
        Random random = new Random(20261202);
        EventCodec codec = new EventCodec();
        Map<String, Long> produced = new LinkedHashMap<>();
        Instant start = Instant.parse("2026-12-02T10:00:00Z");
        try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(
                Map.of(
                        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG,
                        bootstrapServers,
                        ProducerConfig.LINGER_MS_CONFIG,
                        5,
                        ProducerConfig.ACKS_CONFIG,
                        "all"),
                new StringSerializer(),
                new ByteArraySerializer())) {
            for (int n = 0; n < orders; n++) {
                String orderId = "order-" + n;
                Instant at = start.plusMillis(n * 10L);
                List<OrderEvent> lifecycle = new ArrayList<>();
                lifecycle.add(new OrderCreated(
                        orderId,
                        "customer-" + random.nextInt(1_000),
                        "EUR",
                        List.of(new OrderLine(
                                "sku-" + (1 + random.nextInt(1_000)), 1 + random.nextInt(3), new BigDecimal("9.99"))),
                        new BigDecimal("29.97"),
                        "web"));
                double fate = random.nextDouble();
                if (fate < 0.7) {
                    lifecycle.add(new OrderPaid(orderId, new BigDecimal("29.97"), "EUR", "pay-" + n));
                    if (fate < 0.35) {
                        lifecycle.add(new OrderShipped(orderId, "carrier", "track-" + n));
                    }
                } else {
                    lifecycle.add(new OrderCancelled(orderId, "changed my mind"));
                }
                for (OrderEvent event : lifecycle) {
                    byte[] value = codec.encode(codec.wrap(event, UUID.randomUUID(), at, "bench", null));
                    producer.send(new ProducerRecord<>("orders", orderId, value));
                    produced.merge(codec.decode(value).eventType(), 1L, Long::sum);
                }
            }
            producer.flush();
        }
        return produced;
    }

    private static double median(List<Double> values) {
        List<Double> sorted = values.stream().sorted().toList();
        int middle = sorted.size() / 2;
        return sorted.size() % 2 == 1 ? sorted.get(middle) : (sorted.get(middle - 1) + sorted.get(middle)) / 2;
    }

    /** The services measured, as {@code --services} names them: the converter, and the candidates the help lists. */
    static final class Service implements ITypeConverter<String>, Iterable<String> {
        private static final List<String> NAMES =
                List.of("inventory-service", "notification-service", "analytics-service");

        @Override
        public String convert(String name) {
            if (!NAMES.contains(name)) {
                throw new TypeConversionException("takes some of " + NAMES + ", got '" + name + "'");
            }
            return name;
        }

        @Override
        public Iterator<String> iterator() {
            return NAMES.iterator();
        }
    }
}
