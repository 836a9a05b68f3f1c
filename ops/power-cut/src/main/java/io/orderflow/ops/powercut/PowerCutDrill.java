package io.orderflow.ops.powercut;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.icegreen.greenmail.util.GreenMail;
import com.icegreen.greenmail.util.ServerSetup;
import io.orderflow.ops.drill.DrillReport;
import io.orderflow.ops.drill.DrillTarget;
import io.orderflow.ops.drill.LagWatch;
import jakarta.mail.MessagingException;
import jakarta.mail.internet.MimeMessage;
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
 * acknowledged order lost. After the last cut the orders flow one more interval, then stop; once every group has
 * caught up, {@link PlatformInvariants} judges everything acknowledged over the whole run. The SMTP server is outside
 * the platform (in this JVM), as a mail provider is, so the mails it received survive the cuts.
 *
 * <p>Not thread-safe; one run per instance.
 */
public final class PowerCutDrill {
    public static final String NAME = "power-cut";
    private static final Duration READY_WITHIN = Duration.ofMinutes(4);
    private static final Duration CATCH_UP_WITHIN = Duration.ofMinutes(4);
    private static final int STOCK = 1_000_000;
    /** Past the send lease ({@link LaunchedPlatform#SEND_LEASE}) of the mails a cut left claimed, and their sending. */
    private static final Duration MAILS_WITHIN = Duration.ofMinutes(2);

    private final Path repository;
    private final Path work;
    private final int cuts;
    private final int rate;
    private final Duration interval;
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final ObjectMapper json = new ObjectMapper();

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
        GreenMail smtp = new GreenMail(new ServerSetup(0, "127.0.0.1", ServerSetup.PROTOCOL_SMTP));
        smtp.start();
        try (PowerLossFileSystem disk =
                PowerLossFileSystem.mount(program, backing, work.resolve("mount"), work.resolve("power-loss-fs.log"))) {
            LaunchedPlatform platform = new LaunchedPlatform(
                    repository, disk.root(), work, "127.0.0.1:" + smtp.getSmtp().getPort());
            try {
                run(report, disk, platform, smtp);
            } finally {
                platform.stop();
            }
        } finally {
            smtp.stop();
        }
        return report;
    }

    private void run(DrillReport report, PowerLossFileSystem disk, LaunchedPlatform platform, GreenMail smtp)
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
        long onHandBefore = STOCK;
        stock(target, sku, STOCK);
        report.step("stocked " + sku + " with " + STOCK + " units (PUT /inventory/" + sku + ")");
        List<String> perCut = new ArrayList<>();
        int lostTotal = 0;
        try (OrderTraffic traffic = new OrderTraffic(target.orderService(), sku, rate)) {
            traffic.start();
            report.step(rate + " orders/s of " + sku + " (a fifth of " + OrderTraffic.SOLD_OUT
                    + "), each confirmed or rejected, then paid and shipped, paid and cancelled, cancelled or left");
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
            }
            Thread.sleep(interval.toMillis()); // orders after the last cut, on the recovered platform
            traffic.stop();
            List<OrderTraffic.History> placed = traffic.placed();
            long unanswered = traffic.histories().stream()
                    .filter(history -> history.attempted != null)
                    .count();
            report.step(placed.size() + " orders acknowledged in all, " + unanswered
                    + " requests left unanswered by a cut");

            LagWatch lag = LagWatch.of(
                    target.lagMonitor(),
                    target.allConsumers().keySet().stream().sorted().toList());
            long deadline = System.nanoTime() + CATCH_UP_WITHIN.toNanos();
            boolean caughtUp;
            do {
                lag.sample();
                caughtUp = lag.allCaughtUp() && everyOrderAnswered(target, placed);
                if (!caughtUp) {
                    Thread.sleep(1_000); // one lag reading a second, as every drill reads it
                }
            } while (!caughtUp && System.nanoTime() < deadline);
            report.chart(lag.chart(60));
            report.check("no acknowledged order lost at any cut", lostTotal == 0, String.join("; ", perCut));
            report.check("every group caught up after the last cut", caughtUp, lag.latestLags());
            new PlatformInvariants(target)
                    .check(
                            report,
                            traffic.histories(),
                            sku,
                            onHandBefore,
                            since,
                            () -> messageIds(smtp),
                            CATCH_UP_WITHIN);
        }
    }

    /** True once order-service shows inventory's answer for every order (none still CREATED). */
    private boolean everyOrderAnswered(DrillTarget target, List<OrderTraffic.History> placed) {
        try {
            for (OrderTraffic.History history : placed) {
                String body = get(target.orderService().resolve("/orders/" + history.orderId));
                if (body == null || json.readTree(body).path("status").asText().equals("CREATED")) {
                    return false;
                }
            }
            return true;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static List<String> messageIds(GreenMail smtp) {
        List<String> ids = new ArrayList<>();
        for (MimeMessage message : smtp.getReceivedMessages()) {
            try {
                ids.add(message.getMessageID());
            } catch (MessagingException e) {
                throw new IllegalStateException(e);
            }
        }
        return ids;
    }

    /** Sets the stock of {@code sku} through inventory-service's admin endpoint. */
    private void stock(DrillTarget target, String sku, int onHand) throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(
                        target.inventoryService().resolve("/inventory/" + sku))
                .timeout(Duration.ofSeconds(10))
                .header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString("{\"onHand\":" + onHand + "}"));
        if (target.adminToken() != null) {
            request.header("Authorization", "Bearer " + target.adminToken());
        }
        HttpResponse<String> answer = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        if (answer.statusCode() != 200) {
            throw new IOException("PUT /inventory/" + sku + " answered " + answer.statusCode() + ": " + answer.body());
        }
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
