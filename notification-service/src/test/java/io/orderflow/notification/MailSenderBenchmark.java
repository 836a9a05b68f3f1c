package io.orderflow.notification;

import com.icegreen.greenmail.user.GreenMailUser;
import com.icegreen.greenmail.util.GreenMail;
import io.orderflow.postgres.EmbeddedMode;
import io.orderflow.postgres.LocalPostgres;
import io.orderflow.postgres.PostgresDatabase;
import io.orderflow.process.ServiceProcess;
import io.orderflow.testing.CleanSchema;
import io.orderflow.testing.InProcessBroker;
import io.orderflow.testing.PackagedService;
import jakarta.mail.MessagingException;
import jakarta.mail.internet.MimeMessage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * The mail sender alone: how many mails a second one or more packaged notification-service instances on one database
 * hand to an SMTP server (GreenMail in this JVM, answering at once: {@link GreenMailSmtp}) and mark sent. Each run starts the instances on an empty database
 * (durable embedded PostgreSQL, fsync on, as the platform runs it) and our broker with an empty {@code orders} topic, so
 * the consumers are idle; then writes a warm-up batch of pending, addressed mails in one transaction and waits until
 * all are sent, then the measured batch likewise: the rate is the batch over the time from its commit to its last row
 * marked {@code SENT}. Printed per run, and the median per instance count at the end.
 *
 * <p>A command, not a test (its name matches neither surefire's nor failsafe's patterns, so the build compiles it and
 * never runs it): {@code notification-service/bench-sender --help}.
 */
public final class MailSenderBenchmark {

    private static final String USAGE = """
            notification-service/bench-sender [--mails N] [--warm-up N] [--instances 1,2] [--runs N] [-Dkey=value ...]

              --mails N         mails of each measured batch (default 5000)
              --warm-up N       mails sent before it in the same processes, not measured (default 1000)
              --instances LIST  instance counts, each run goes through all of them in turn (default 1,2)
              --runs N          runs (default 3)
              -Dkey=value       configuration of every instance, e.g. -Dquarkus.mailer.max-pool-size=16
            """;
    private static final Duration WITHIN = Duration.ofMinutes(10);

    private record Options(int mails, int warmUp, List<Integer> instances, int runs, Map<String, String> properties) {

        static Options parse(String[] args) {
            int mails = 5_000;
            int warmUp = 1_000;
            List<Integer> instances = List.of(1, 2);
            int runs = 3;
            Map<String, String> properties = new LinkedHashMap<>();
            for (int i = 0; i < args.length; i++) {
                String arg = args[i];
                switch (arg) {
                    case "--mails" -> mails = Integer.parseInt(args[++i]);
                    case "--warm-up" -> warmUp = Integer.parseInt(args[++i]);
                    case "--instances" ->
                        instances = Arrays.stream(args[++i].split(","))
                                .map(Integer::parseInt)
                                .toList();
                    case "--runs" -> runs = Integer.parseInt(args[++i]);
                    case "--help" -> {
                        System.out.print(USAGE);
                        System.exit(0);
                    }
                    default -> {
                        if (!arg.startsWith("-D") || !arg.contains("=")) {
                            throw new IllegalArgumentException("unknown argument '" + arg + "'\n" + USAGE);
                        }
                        properties.put(arg.substring(2, arg.indexOf('=')), arg.substring(arg.indexOf('=') + 1));
                    }
                }
            }
            return new Options(mails, warmUp, instances, runs, properties);
        }
    }

    /** One measured batch: its instances, how long it took, and what each instance and the SMTP server saw. */
    private record Result(
            int instances, int mails, double seconds, Map<String, Long> sentBy, int received, long distinct) {

        double mailsPerSecond() {
            return mails / seconds;
        }
    }

    public static void main(String[] args) throws Exception {
        Options options = Options.parse(args);
        Path scratch = Files.createDirectories(Path.of("target", "bench-sender"));
        List<Result> results = new ArrayList<>();
        LongAdder connections = new LongAdder();
        GreenMail smtp = GreenMailSmtp.start(0, new GreenMailSmtp.AcceptanceGate(), connections);
        // One mailbox for every recipient: GreenMail finds and creates a customer's account by a linear search of all
        // of them, which at thousands of customers cost more than the sending measured (2026-12-05, a profile of 20,000
        // mails: most of GreenMail's CPU in HierarchicalFolder.getChild / createChild). A mail provider's lookup does
        // not grow with its customers; ops/bench's SmtpReceiver does the same.
        GreenMailUser mailbox = smtp.getUserManager().createUser("bench@orderflow.test", "bench", "bench");
        smtp.getUserManager().setMessageDeliveryHandler((message, address) -> mailbox);
        try (LocalPostgres postgres = LocalPostgres.start(scratch.resolve("postgres"), EmbeddedMode.FRESH);
                InProcessBroker broker = InProcessBroker.start(Files.createTempDirectory(scratch, "broker"))) {
            broker.createTopic("orders", 6);
            PostgresDatabase database = postgres.database("notification-service");
            System.out.printf(
                    "mail sender alone, %s, %d cores, PostgreSQL %s (%s), settings %s%n",
                    LocalDate.now(),
                    Runtime.getRuntime().availableProcessors(),
                    postgres.serverVersion(),
                    postgres.durabilitySettings(),
                    options.properties());
            for (int run = 1; run <= options.runs(); run++) {
                for (int instances : options.instances()) {
                    connections.reset();
                    Result result = run(options, database, broker, smtp, instances, run);
                    results.add(result);
                    System.out.printf(
                            "run %d, %d instance(s): %d mails in %.2f s = %.0f mails/s; sent by %s; received %d,"
                                    + " %d distinct Message-IDs; %d SMTP connections opened in the run%n",
                            run,
                            instances,
                            result.mails(),
                            result.seconds(),
                            result.mailsPerSecond(),
                            result.sentBy().values(),
                            result.received(),
                            result.distinct(),
                            connections.sum());
                }
            }
        } finally {
            smtp.stop();
        }
        System.out.println("instances | median mails/s | runs (mails/s)");
        Map<Integer, List<Double>> rates = new TreeMap<>();
        for (Result result : results) {
            rates.computeIfAbsent(result.instances(), n -> new ArrayList<>()).add(result.mailsPerSecond());
        }
        rates.forEach((instances, values) -> System.out.printf(
                "%9d | %14.0f | %s%n",
                instances,
                median(values),
                values.stream().map(v -> String.format("%.0f", v)).toList()));
    }

    private static Result run(
            Options options, PostgresDatabase database, InProcessBroker broker, GreenMail smtp, int count, int run)
            throws Exception {
        CleanSchema.empty(database);
        smtp.purgeEmailFromAllMailboxes();
        List<ServiceProcess> instances = new ArrayList<>();
        try {
            for (int i = 0; i < count; i++) {
                ServiceProcess.Builder builder = PackagedService.builder(
                                "notification-service",
                                database,
                                broker.bootstrapServers(),
                                "bench-sender/run-" + run + "-of-" + count + "-instance-" + i)
                        .property("quarkus.mailer.host", "127.0.0.1")
                        .property(
                                "quarkus.mailer.port",
                                Integer.toString(smtp.getSmtp().getPort()))
                        .property("quarkus.log.console.json.enabled", "false");
                options.properties().forEach(builder::property);
                instances.add(builder.start());
            }
            writeAndAwait(database, "warm-up", options.warmUp());
            long started = System.nanoTime();
            writeAndAwait(database, "measured", options.mails());
            double seconds = (System.nanoTime() - started) / 1e9;
            return new Result(
                    count,
                    options.mails(),
                    seconds,
                    sentBy(database, "measured"),
                    smtp.getReceivedMessages().length - options.warmUp(),
                    distinctMessageIds(smtp) - options.warmUp());
        } finally {
            instances.forEach(ServiceProcess::close);
        }
    }

    /** Writes {@code mails} pending mails of orders {@code <batch>-<n>} in one transaction; returns once all are sent. */
    private static void writeAndAwait(PostgresDatabase database, String batch, int mails) throws Exception {
        try (Connection tx = database.connect()) {
            tx.setAutoCommit(false);
            try (PreparedStatement customers = tx.prepareStatement("INSERT INTO order_customers (order_id, customer_id)"
                            + " SELECT ? || '-' || n, 'customer-' || n FROM generate_series(1, ?) n");
                    PreparedStatement notifications = tx.prepareStatement(
                            "INSERT INTO notifications (event_id, order_id, event_type, lifecycle_step, subject, body)"
                                    + " SELECT gen_random_uuid(), ? || '-' || n, 'OrderCreated', 1,"
                                    + " 'Your order ' || ? || '-' || n,"
                                    + " 'Hello customer-' || n || E',\\n\\nthank you for your order ' || ? || '-' || n"
                                    + " || E': 1 item(s), 9.99 EUR in all.\\nWe will write again when it ships.\\n'"
                                    + " FROM generate_series(1, ?) n")) {
                customers.setString(1, batch);
                customers.setInt(2, mails);
                customers.executeUpdate();
                notifications.setString(1, batch);
                notifications.setString(2, batch);
                notifications.setString(3, batch);
                notifications.setInt(4, mails);
                notifications.executeUpdate();
            }
            tx.commit();
        }
        long deadline = System.nanoTime() + WITHIN.toNanos();
        while (count(database, "SELECT count(*) FROM notifications WHERE status = 'PENDING'") > 0) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(
                        "the " + batch + " batch of " + mails + " mails was not sent within " + WITHIN);
            }
            Thread.sleep(10); // a benchmark's poll, not a test's synchronisation: 10 ms is its resolution
        }
    }

    /** Mails of {@code batch} sent by each instance ({@code claimed_by}), or all under "?" before that column. */
    private static Map<String, Long> sentBy(PostgresDatabase database, String batch) throws SQLException {
        Map<String, Long> sentBy = new TreeMap<>();
        try (Connection connection = database.connect();
                Statement statement = connection.createStatement()) {
            boolean claims;
            try (ResultSet column = statement.executeQuery("SELECT count(*) FROM information_schema.columns"
                    + " WHERE table_name = 'notifications' AND column_name = 'claimed_by'")) {
                column.next();
                claims = column.getLong(1) > 0;
            }
            String sender = claims ? "claimed_by" : "'?'";
            try (ResultSet rows = statement.executeQuery("SELECT " + sender + ", count(*) FROM notifications"
                    + " WHERE status = 'SENT' AND order_id LIKE '" + batch + "-%' GROUP BY 1 ORDER BY 1")) {
                while (rows.next()) {
                    sentBy.put(rows.getString(1), rows.getLong(2));
                }
            }
        }
        return sentBy;
    }

    private static long count(PostgresDatabase database, String sql) throws SQLException {
        try (Connection connection = database.connect();
                Statement statement = connection.createStatement();
                ResultSet row = statement.executeQuery(sql)) {
            row.next();
            return row.getLong(1);
        }
    }

    private static long distinctMessageIds(GreenMail smtp) {
        return Arrays.stream(smtp.getReceivedMessages())
                .map(message -> {
                    try {
                        return ((MimeMessage) message).getMessageID();
                    } catch (MessagingException e) {
                        throw new IllegalStateException(e);
                    }
                })
                .distinct()
                .count();
    }

    private static double median(List<Double> values) {
        List<Double> sorted = values.stream().sorted().toList();
        int middle = sorted.size() / 2;
        return sorted.size() % 2 == 1 ? sorted.get(middle) : (sorted.get(middle - 1) + sorted.get(middle)) / 2;
    }
}
