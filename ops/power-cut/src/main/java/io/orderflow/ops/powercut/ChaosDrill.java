package io.orderflow.ops.powercut;

import io.orderflow.consumer.RetryTopics;
import io.orderflow.contracts.Topics;
import io.orderflow.ops.drill.DrillReport;
import io.orderflow.ops.drill.DrillTarget;
import io.orderflow.ops.drill.LagWatch;
import io.orderflow.ops.drill.PlatformProbe;
import io.orderflow.ops.drill.ServiceControl;
import io.orderflow.ops.drill.TopicRecords;
import io.orderflow.ops.load.OrderCreatedRecords;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * {@code chaos}: the whole platform under steady orders while faults drawn from a seed ({@link ChaosPlan}) hit it one
 * after another: any process killed with SIGKILL and started again or paused with SIGSTOP past the group session (each
 * service, each relay, the broker, PostgreSQL), a slow consumer, a burst of orders, a poison record, a record of a major
 * version nobody reads. Then the invariant checker the power-cut drill uses ({@link PlatformInvariants}) judges
 * everything acknowledged, and each group's dead-letter topic must hold every poison and unknown-major record.
 *
 * <p>The drill starts a platform of its own ({@link LaunchedPlatform}, in {@code work}) and sends its mails to a {@link
 * MailCatcher}. The lag monitor is read once a second throughout, on this thread; each fault runs beside it and is
 * followed until the platform has recovered: the fault's action done (a killed process ready again, a paused one
 * continued) and every group's lag back within its lag before the fault plus five seconds of orders. A fault never
 * starts before its planned second, nor before the one before it recovered (or gave up after {@link #RECOVERY_WITHIN}),
 * so the faults do not overlap and each one's lag is its own. The report lists every fault with when it began, how long
 * it took, the peak lag it caused and the time to recover; the seed replays the same faults (and the same customers and
 * lifecycles, {@link OrderTraffic}), the machine's timing aside.
 *
 * <p>Not thread-safe; one run per instance.
 */
public final class ChaosDrill {
    public static final String NAME = "chaos";
    /** The customer ids of the drill's orders start with it. */
    static final String CUSTOMER_PREFIX = "chaos-customer-";

    private static final Duration READY_WITHIN = Duration.ofMinutes(4);
    private static final Duration CATCH_UP_WITHIN = Duration.ofMinutes(4);
    private static final Duration RECOVERY_WITHIN = Duration.ofMinutes(2);
    /** How far back the lag before a fault is read: the baseline its recovery is measured against. */
    private static final double BASELINE_SECONDS = 10;
    /** Lag within the baseline plus this many seconds of orders counts as recovered. */
    private static final int SLACK_SECONDS = 5;

    private static final int STOCK = 1_000_000;
    /** The groups that read {@code orders}, and so dead-letter what they cannot read of it. */
    private static final List<String> ORDERS_GROUPS =
            List.of("inventory-service", "notification-service", "analytics-service");

    private final Path repository;
    private final Path work;
    private final ChaosPlan plan;
    private final int rate;

    /** What one fault did: when it began (seconds of the run), how long its action took, its peak lag, its recovery. */
    record Outcome(
            ChaosPlan.Planned planned,
            double beganAt,
            double actionSeconds,
            String peakGroup,
            long peakLag,
            double recoveredAfter,
            String detail) {
        boolean recovered() {
            return recoveredAfter >= 0;
        }

        String line() {
            return String.format(
                    "%6.1f s (planned %d s) %s: %s; peak lag %,d records (%s); %s",
                    beganAt,
                    planned.atSecond(),
                    planned.fault(),
                    detail,
                    peakLag,
                    peakGroup,
                    recovered()
                            ? String.format("recovered %.1f s after it began", recoveredAfter)
                            : "NOT recovered within " + RECOVERY_WITHIN.toSeconds() + " s");
        }
    }

    public ChaosDrill(Path repository, Path work, ChaosPlan plan, int rate) {
        if (rate < 1) {
            throw new IllegalArgumentException("at least one order a second; was " + rate);
        }
        this.repository = repository;
        this.work = work.toAbsolutePath().normalize();
        this.plan = plan;
        this.rate = rate;
    }

    public DrillReport run() throws Exception {
        DrillReport report = new DrillReport(NAME);
        Files.createDirectories(work);
        MailCatcher mails = MailCatcher.start();
        LaunchedPlatform platform = new LaunchedPlatform(
                repository, work.resolve("platform-" + System.currentTimeMillis()), work, mails.smtpServer());
        List<ProcessHandle> paused = new ArrayList<>();
        try {
            run(report, platform, mails.mailbox(), paused);
        } finally {
            if (!paused.isEmpty()) {
                LaunchedPlatform.signal("CONT", paused); // a run that failed mid-pause must not leave stopped processes
            }
            platform.stop();
            mails.stop();
        }
        return report;
    }

    private void run(DrillReport report, LaunchedPlatform platform, Pop3Mailbox mailbox, List<ProcessHandle> paused)
            throws Exception {
        long started = System.nanoTime();
        platform.start(READY_WITHIN);
        DrillTarget target = platform.target();
        ServiceControl control = platform.control();
        report.step(String.format("started the platform in %s; ready in %.0f s", work, seconds(started)));
        String sku = "sku-chaos-" + Long.toHexString(plan.seed());
        OrderTraffic.stock(target, sku, STOCK);
        report.step("seed " + plan.seed() + ", " + plan.length().toMinutes() + " min, "
                + plan.faults().size() + " faults planned:\n    " + String.join("\n    ", plan.describe()));

        long since = System.currentTimeMillis();
        List<String> groups = List.copyOf(target.allConsumers().keySet());
        LagWatch lag = LagWatch.of(target.lagMonitor(), groups);
        PlatformProbe probe = new PlatformProbe(target);
        List<Outcome> outcomes = new ArrayList<>();
        Set<String> deadLetterKeys = new HashSet<>();
        Path journalFile = work.resolve("journal.json");
        try (OrderTraffic traffic = new OrderTraffic(target.orderService(), CUSTOMER_PREFIX, sku, rate, plan.seed());
                KafkaProducer<String, byte[]> producer = OrderCreatedRecords.producer(target.cluster())) {
            traffic.start();
            report.step(rate + " orders/s of " + sku + " through their lifecycle (as the power-cut drill's), what was"
                    + " acknowledged in " + journalFile);
            long chaosStart = System.nanoTime();
            double offset = lag.seconds(); // the watch's clock at the run's second 0
            for (ChaosPlan.Planned planned : plan.faults()) {
                lag.watchUntil(
                        chaosStart + Duration.ofSeconds(planned.atSecond()).toNanos());
                ChaosFault fault = planned.fault();
                Map<String, Long> baseline = new LinkedHashMap<>();
                double now = lag.seconds();
                for (String group : groups) {
                    baseline.put(group, lag.maxLag(group, now - BASELINE_SECONDS, now));
                }
                double beganAt = lag.seconds();
                CompletableFuture<String> action = CompletableFuture.supplyAsync(
                        () -> act(fault, platform, control, probe, traffic, producer, target, sku, paused),
                        command -> Thread.ofVirtual().start(command));
                lag.watchWhile(() -> !action.isDone());
                String detail;
                try {
                    detail = action.get();
                } catch (ExecutionException e) {
                    detail = "FAILED: " + e.getCause();
                }
                double actionEnded = lag.seconds();
                if (fault.kind() == ChaosFault.Kind.POISON || fault.kind() == ChaosFault.Kind.UNKNOWN_MAJOR) {
                    deadLetterKeys.add(fault.recordKey(plan.seed()));
                }
                double recoveredAt = -1;
                long deadline = System.nanoTime() + RECOVERY_WITHIN.toNanos();
                while (System.nanoTime() < deadline) {
                    if (lag.sample() && withinBaseline(lag, groups, baseline, actionEnded)) {
                        recoveredAt = lag.seconds();
                        break;
                    }
                    lag.watchUntil(System.nanoTime() + 1_000_000_000L);
                }
                String peakGroup = groups.getFirst();
                long peakLag = -1;
                double until = recoveredAt >= 0 ? recoveredAt : lag.seconds();
                for (String group : groups) {
                    long peak = lag.maxLag(group, beganAt, until);
                    if (peak > peakLag) {
                        peakLag = peak;
                        peakGroup = group;
                    }
                }
                Outcome outcome = new Outcome(
                        planned,
                        beganAt - offset,
                        actionEnded - beganAt,
                        peakGroup,
                        peakLag,
                        recoveredAt >= 0 ? recoveredAt - beganAt : -1,
                        detail);
                outcomes.add(outcome);
                report.step("fault " + outcomes.size() + " at " + outcome.line());
            }
            lag.watchUntil(chaosStart + plan.length().toNanos());
            traffic.stop();
            OrderJournal journal = traffic.journal(since, STOCK);
            journal.write(journalFile);
            report.step(journal.placed().size() + " orders acknowledged, " + journal.unanswered()
                    + " with a request a fault left unanswered; order-service's answers to the POSTs: "
                    + traffic.answers());
            List<String> errors = traffic.answers().keySet().stream()
                    .filter(answer -> answer.startsWith("5") && !answer.equals("503"))
                    .toList();
            report.check(
                    "order-service answered no 5xx but 503 (retry): a fault is not a bug",
                    errors.isEmpty(),
                    "answers " + traffic.answers());
            report.check(
                    "every fault's action done and the platform recovered from it",
                    outcomes.stream().allMatch(o -> o.recovered() && !o.detail().startsWith("FAILED")),
                    outcomes.stream()
                            .filter(o -> !o.recovered() || o.detail().startsWith("FAILED"))
                            .map(Outcome::line)
                            .toList()
                            .toString());
            report.step("the lag of each group over the run:\n" + lag.chart(100));
            new PlatformInvariants(target).check(report, journal, mailbox, CATCH_UP_WITHIN);
            checkDeadLetters(report, target, deadLetterKeys, since);
        }
    }

    /** Every group's lag, read after the fault's action ended, within its baseline plus {@link #SLACK_SECONDS}. */
    private boolean withinBaseline(LagWatch lag, List<String> groups, Map<String, Long> baseline, double after) {
        for (String group : groups) {
            LagWatch.Reading reading = lag.latest(group).orElse(null);
            long slack = (long) SLACK_SECONDS * rate * DrillTarget.recordsPerOrder(group);
            if (reading == null || reading.atSeconds() < after || reading.lag() > baseline.get(group) + slack) {
                return false;
            }
        }
        return true;
    }

    /** Does {@code fault}; returns what happened, as the report says it. Runs on a thread of its own. */
    private String act(
            ChaosFault fault,
            LaunchedPlatform platform,
            ServiceControl control,
            PlatformProbe probe,
            OrderTraffic traffic,
            KafkaProducer<String, byte[]> producer,
            DrillTarget target,
            String sku,
            List<ProcessHandle> paused) {
        try {
            long begun = System.nanoTime();
            return switch (fault.kind()) {
                case KILL -> {
                    control.kill(fault.target());
                    Thread.sleep(fault.duration().toMillis()); // the time it stays down: part of the fault
                    long starting = System.nanoTime();
                    control.start(fault.target());
                    yield String.format("killed, started again, ready %.1f s after the start", seconds(starting));
                }
                case PAUSE -> {
                    List<ProcessHandle> processes = platform.processesOf(fault.target());
                    synchronized (paused) {
                        paused.addAll(processes);
                    }
                    LaunchedPlatform.signal("STOP", processes);
                    Thread.sleep(fault.duration().toMillis()); // the time it stays stopped: part of the fault
                    LaunchedPlatform.signal("CONT", processes);
                    synchronized (paused) {
                        paused.removeAll(processes);
                    }
                    yield processes.size() + (processes.size() == 1 ? " process" : " processes") + " stopped and"
                            + " continued";
                }
                case SLOW_CONSUMER -> {
                    probe.slowDown(target.allConsumers().get(fault.target()), 2000L / rate);
                    Thread.sleep(fault.duration().toMillis()); // how long it stays slow: part of the fault
                    probe.slowDown(target.allConsumers().get(fault.target()), 0);
                    yield (2000L / rate) + " ms a record, then full speed again";
                }
                case BURST -> {
                    traffic.burst(fault.size() * rate);
                    yield (fault.size() * rate) + " orders placed at once";
                }
                case POISON -> {
                    String key = fault.recordKey(plan.seed());
                    producer.send(new ProducerRecord<>(
                                    Topics.ORDERS,
                                    key,
                                    ("chaos " + key + ": not an event envelope").getBytes(StandardCharsets.UTF_8)))
                            .get();
                    yield "written";
                }
                case UNKNOWN_MAJOR -> {
                    String key = fault.recordKey(plan.seed());
                    producer.send(new OrderCreatedRecords("chaos-drill")
                                    .record(key, key, sku, OrderCreatedRecords.V2_0, key))
                            .get();
                    yield String.format("written in %.1f s", seconds(begun));
                }
            };
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } catch (Exception e) {
            throw new IllegalStateException(e.toString(), e);
        }
    }

    /** Each group reading {@code orders} dead-lettered every poison and unknown-major record of the run. */
    private static void checkDeadLetters(DrillReport report, DrillTarget target, Set<String> keys, long since)
            throws InterruptedException {
        List<String> missing = new ArrayList<>();
        long deadline = System.nanoTime() + CATCH_UP_WITHIN.toNanos();
        do {
            missing.clear();
            for (String group : ORDERS_GROUPS) {
                String topic =
                        RetryTopics.of(group, List.of(Duration.ofSeconds(1))).deadLetterTopic();
                Set<String> found = new HashSet<>();
                for (ConsumerRecord<byte[], byte[]> record :
                        TopicRecords.since(target.cluster(), topic, since, Duration.ofSeconds(60))) {
                    if (record.key() != null) {
                        found.add(new String(record.key(), StandardCharsets.UTF_8));
                    }
                }
                keys.stream().filter(key -> !found.contains(key)).forEach(key -> missing.add(key + " on " + topic));
            }
            if (!missing.isEmpty()) {
                Thread.sleep(1_000); // polling the dead-letter topics until the consumers wrote them
            }
        } while (!missing.isEmpty() && System.nanoTime() < deadline);
        report.check(
                "every poison and unknown-major record dead-lettered by each group reading orders",
                missing.isEmpty(),
                keys.size() + " records, " + ORDERS_GROUPS.size() + " groups; missing: " + missing);
    }

    private static double seconds(long since) {
        return (System.nanoTime() - since) / 1e9;
    }
}
