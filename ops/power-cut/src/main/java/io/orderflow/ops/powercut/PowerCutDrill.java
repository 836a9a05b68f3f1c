package io.orderflow.ops.powercut;

import io.orderflow.ops.drill.DrillReport;
import io.orderflow.ops.drill.DrillTarget;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;

/**
 * {@code power-cut}: the whole platform's power cut, again and again, under orders going through their lifecycle.
 *
 * <p>PostgreSQL's data directory, the broker's log directory and everything else the launcher keeps live on a {@link
 * PowerLossFileSystem}, which keeps only what was fsynced. Orders flow at {@code rate} a second ({@link OrderTraffic}).
 * Every {@code interval}, the power goes: every process of the platform and the file system's own killed with SIGKILL
 * by one {@code kill}, every byte and name nobody fsynced dropped; then the platform is started again on what is left,
 * as a machine coming back would start it. After each cut the drill measures the recovery (until the launcher says the
 * platform is ready) and asks order-service for every order acknowledged before the cut: one it no longer has is an
 * acknowledged order lost. Then it places no new orders until {@link PlatformInvariants} has judged everything
 * acknowledged so far (once every group caught up), and goes on. After the last cut the orders flow one more interval,
 * then stop, and the invariants judge the whole run. What was acknowledged is kept in {@code <work>/journal.json}
 * ({@link OrderJournal}), which {@code ops/bin/invariants} judges as well. The SMTP server is outside the platform (a
 * {@link MailCatcher} in this JVM), as a mail provider is, so the mails it received survive the cuts.
 *
 * <p>Not thread-safe; one run per instance.
 */
public final class PowerCutDrill {
    public static final String NAME = "power-cut";
    private static final Duration READY_WITHIN = Duration.ofMinutes(4);
    private static final Duration CATCH_UP_WITHIN = Duration.ofMinutes(4);
    private static final int STOCK = 1_000_000;
    /** The customer ids of the drill's orders start with it. */
    static final String CUSTOMER_PREFIX = "power-cut-";

    private final Path repository;
    private final Path work;
    private final int cuts;
    private final int rate;
    private final Duration interval;
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    public PowerCutDrill(Path repository, Path work, int cuts, int rate, Duration interval) {
        if (cuts < 1 || rate < 1 || interval.toSeconds() < 2) {
            throw new IllegalArgumentException("at least one cut, one order a second and 2 s between cuts; were " + cuts
                    + ", " + rate + ", " + interval);
        }
        this.repository = repository;
        this.work = work.toAbsolutePath().normalize();
        this.cuts = cuts;
        this.rate = rate;
        this.interval = interval;
    }

    public DrillReport run() throws Exception {
        DrillReport report = new DrillReport(NAME);
        Optional<String> missing = PowerLossFileSystem.unavailable();
        if (missing.isPresent()) {
            throw new IllegalStateException(missing.get());
        }
        Files.createDirectories(work);
        Path program = PowerLossFileSystem.compile(work.resolve("bin"));
        Path backing = work.resolve("backing-" + System.currentTimeMillis());
        MailCatcher mails = MailCatcher.start();
        try (PowerLossFileSystem disk =
                PowerLossFileSystem.mount(program, backing, work.resolve("mount"), work.resolve("power-loss-fs.log"))) {
            LaunchedPlatform platform = new LaunchedPlatform(repository, disk.root(), work, mails.smtpServer());
            try {
                run(report, disk, platform, mails.mailbox());
            } finally {
                platform.stop();
            }
        } finally {
            mails.stop();
        }
        return report;
    }

    private void run(DrillReport report, PowerLossFileSystem disk, LaunchedPlatform platform, Pop3Mailbox mailbox)
            throws Exception {
        long started = System.nanoTime();
        platform.start(READY_WITHIN);
        report.step(String.format(
                "started the platform with PostgreSQL's data and the broker's log on a file system that keeps only"
                        + " what was fsynced (%s); ready in %.0f s",
                disk.root(), seconds(started)));
        DrillTarget target = platform.target();
        long since = System.currentTimeMillis();
        String sku = "sku-power-" + ThreadLocalRandom.current().nextInt(1_000_000);
        OrderTraffic.stock(target, sku, STOCK);
        report.step("stocked " + sku + " with " + STOCK + " units (PUT /inventory/" + sku + ")");
        List<String> perCut = new ArrayList<>();
        int lostTotal = 0;
        PlatformInvariants invariants = new PlatformInvariants(target);
        Path journalFile = work.resolve("journal.json");
        try (OrderTraffic traffic = new OrderTraffic(target.orderService(), CUSTOMER_PREFIX, sku, rate)) {
            traffic.start();
            report.step(rate + " orders/s of " + sku + " (a fifth of " + OrderTraffic.SOLD_OUT
                    + "), each confirmed or rejected, then through ops/bin/load's lifecycle mix (paid, shipped,"
                    + " cancelled);"
                    + " what was acknowledged in " + journalFile);
            for (int cut = 1; cut <= cuts; cut++) {
                Thread.sleep(interval.toMillis()); // the load runs meanwhile: the time between two power cuts
                List<OrderTraffic.History> acknowledged = traffic.placed();
                long cutAt = System.nanoTime();
                disk.cut(platform.processes());
                traffic.cut();
                platform.start(READY_WITHIN);
                double recovery = seconds(cutAt);
                int lost = 0;
                for (OrderTraffic.History history : acknowledged) {
                    if (get(target.orderService().resolve("/orders/" + history.orderId)) == null) {
                        lost++;
                    }
                }
                lostTotal += lost;
                String line = String.format(
                        "cut %d: %d orders acknowledged before it, %d of them lost; ready again %.1f s after the cut",
                        cut, acknowledged.size(), lost, recovery);
                perCut.add(line);
                report.step("power cut " + cut + ": every process of the platform and the file system killed with"
                        + " SIGKILL at once, unsynced data dropped, the platform started again; " + line);

                // Every invariant over everything so far, with no new orders meanwhile, then the orders go on.
                traffic.pause();
                OrderJournal journal = traffic.journal(since, STOCK);
                journal.write(journalFile);
                DrillReport afterCut = new DrillReport(NAME);
                invariants.check(afterCut, journal, mailbox, CATCH_UP_WITHIN);
                report.check(
                        "after cut " + cut + ", every invariant over the "
                                + journal.placed().size() + " orders acknowledged so far",
                        afterCut.passed(),
                        failed(afterCut));
                traffic.resume();
            }
            Thread.sleep(interval.toMillis()); // orders after the last cut, on the recovered platform
            traffic.stop();
            OrderJournal journal = traffic.journal(since, STOCK);
            journal.write(journalFile);
            report.step(journal.placed().size() + " orders acknowledged in all, " + journal.unanswered()
                    + " requests left unanswered by a cut");
            report.check("no acknowledged order lost at any cut", lostTotal == 0, String.join("; ", perCut));
            invariants.check(report, journal, mailbox, CATCH_UP_WITHIN);
        }
    }

    /** The claims of {@code report} that failed, with their details; "none" if it passed. */
    private static String failed(DrillReport report) {
        List<String> failed = report.checks().stream()
                .filter(check -> !check.passed())
                .map(check -> check.claim() + ": " + check.detail())
                .toList();
        return failed.isEmpty() ? "none failed" : "failed: " + String.join("; ", failed);
    }

    /** The body of a 200 answer, null for any other. */
    private String get(URI uri) throws IOException, InterruptedException {
        HttpResponse<String> answer = http.send(
                HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
        return answer.statusCode() == 200 ? answer.body() : null;
    }

    private static double seconds(long since) {
        return (System.nanoTime() - since) / 1e9;
    }
}
