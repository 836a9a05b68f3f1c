package io.orderflow.ops.drill;

import io.orderflow.contracts.Topics;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * {@code crash-consumer}: {@code kill -9} of one consumer service while orders stream in. The other groups must keep
 * up as if nothing happened; the crashed one, started again, must resume from its committed offsets (redelivering at
 * most what it processed since its last commit, which it skips as duplicates), and in the end no order may be lost
 * and none have a double effect.
 *
 * <p>Orders of one random SKU, one unit each, go to order-service at {@code rate} per second for {@code duration}. A
 * third of the way in (or later, once it has committed an offset on every partition, since a partition without one
 * has no lag to read once nobody holds it) the victim (inventory-service by default) is killed through {@link ServiceControl}; a third of
 * the duration later it is started again. The lag monitor is read once a second throughout. Checks: the other groups' lag
 * during the outage stayed within what they showed before plus ten seconds of orders (the commit interval, a reading's
 * second, and as much again for a machine busy restarting the victim); the victim's lag grew while it was down and drained to 0; every accepted order has a reservation and a
 * mail; the SKU's reserved stock rose by exactly the number of accepted orders and every order has exactly one mail;
 * the victim skipped as duplicates at most ten seconds of orders (it did not start over from the beginning).
 */
public final class CrashConsumerDrill {

    public static final String NAME = "crash-consumer";
    private static final Duration WITHIN = Duration.ofSeconds(180);
    /**
     * Lag a healthy group may show beyond its lag before the crash, in seconds of orders: the commit interval (5 s), a
     * reading's second, and as much again for a machine busy starting the victim again.
     */
    private static final int SLACK_SECONDS = 10;

    private final DrillTarget target;
    private final ServiceControl control;
    private final String victim;
    private final int rate;
    private final Duration duration;
    private final PlatformProbe probe;

    public CrashConsumerDrill(DrillTarget target, ServiceControl control, String victim, int rate, Duration duration) {
        if (!target.consumers().containsKey(victim)) {
            throw new IllegalArgumentException(
                    "the victim must be one of " + target.consumers().keySet() + ", was " + victim);
        }
        this.target = target;
        this.control = control;
        this.victim = victim;
        this.rate = rate;
        this.duration = duration;
        this.probe = new PlatformProbe(target);
    }

    public DrillReport run() throws Exception {
        DrillReport report = new DrillReport(NAME);
        List<String> groups = target.consumers().keySet().stream().sorted().toList();
        List<String> others =
                groups.stream().filter(group -> !group.equals(victim)).toList();
        LagWatch lag = new LagWatch(target.lagMonitor(), Topics.ORDERS, groups);
        String sku = "sku-" + (1 + ThreadLocalRandom.current().nextInt(1_000));
        long reservedBefore = probe.stock(sku).path("reserved").asLong();
        double victimDuplicatesBefore = probe.duplicates().getOrDefault(victim, 0.0);

        double killedAt;
        double restartedAt;
        double readyAt;
        long start = System.nanoTime();
        SkuOrderStream stream = new SkuOrderStream(probe, "drill-crash", sku, rate, duration);
        stream.start();
        report.step("sent " + rate + " orders/s of " + sku + " for " + duration.toSeconds() + " s");

        lag.watchUntil(start + duration.toNanos() / 3);
        // Once the victim is dead, a partition it never committed on has no lag to read: kill it once it has committed
        // on all.
        PlatformProbe.awaitWhileWatching(lag, WITHIN, () -> lag.committedEverywhere(victim));
        control.kill(victim);
        killedAt = lag.seconds();
        report.step(String.format("killed %s with SIGKILL at %.1f s", victim, killedAt));

        lag.watchUntil(System.nanoTime() + duration.toNanos() / 3);
        restartedAt = lag.seconds();
        startWhileWatching(lag);
        readyAt = lag.seconds();
        report.step(String.format("started %s again at %.1f s; ready at %.1f s", victim, restartedAt, readyAt));
        stream.join();
        List<String> orders = stream.accepted();
        report.step(orders.size() + " orders accepted, " + stream.refused() + " refused or unanswered");
        OrderTracker tracker = new OrderTracker(probe, orders);
        PlatformProbe.awaitWhileWatching(lag, WITHIN, () -> lag.allCaughtUp() && tracker.allProcessed());
        report.step("waited until every group had caught up and every order was processed");
        report.chart(lag.chart(60));

        for (String group : others) {
            long before = lag.maxLag(group, 0, killedAt);
            long during = lag.maxLag(group, killedAt, readyAt);
            report.check(
                    group + " kept up while " + victim + " was down",
                    during <= before + (long) rate * SLACK_SECONDS,
                    "largest lag " + during + " records while it was down, " + before + " before (allowed: " + before
                            + " + " + rate * SLACK_SECONDS + ")");
        }
        long victimDuring = lag.maxLag(victim, killedAt, readyAt);
        report.check(
                victim + "'s lag grew while it was down and drained after its restart",
                victimDuring > 0 && lag.latest(victim).map(r -> r.lag() == 0).orElse(false),
                "largest lag " + victimDuring + " records; last "
                        + lag.latest(victim).map(LagWatch.Reading::lag).orElse(-1L));
        int lost = 0;
        int mailsOff = 0;
        for (String order : orders) {
            if (probe.reservation(order) == null) {
                lost++;
            }
            if (probe.mails(order) != 1) {
                mailsOff++;
            }
        }
        long reserved = probe.stock(sku).path("reserved").asLong() - reservedBefore;
        report.check(
                "no order lost",
                lost == 0 && stream.refused() == 0,
                lost + " of " + orders.size() + " accepted orders without a reservation; " + stream.refused()
                        + " orders refused");
        report.check(
                "no double effect",
                reserved == orders.size() && mailsOff == 0,
                sku + " reserved " + reserved + " more units for " + orders.size() + " orders of one unit; " + mailsOff
                        + " orders with other than one mail");
        double redelivered = probe.duplicates().getOrDefault(victim, 0.0) - victimDuplicatesBefore;
        report.check(
                victim + " resumed from its committed offsets",
                redelivered <= (double) rate * SLACK_SECONDS,
                String.format(
                        "%.0f records redelivered and skipped as duplicates after the restart (at most %d: %d s of"
                                + " orders)",
                        redelivered, rate * SLACK_SECONDS, SLACK_SECONDS));
        return report;
    }

    /** Starts the victim again on another thread, reading the lag once a second until it is ready. */
    private void startWhileWatching(LagWatch lag) throws Exception {
        CompletableFuture<Void> ready = new CompletableFuture<>();
        Thread.ofPlatform().name("crash-consumer-start").start(() -> {
            try {
                control.start(victim);
                ready.complete(null);
            } catch (Exception e) {
                ready.completeExceptionally(e);
            }
        });
        while (!ready.isDone()) {
            lag.sample();
            try {
                ready.get(1, TimeUnit.SECONDS); // the drill's reading cadence while the victim starts
            } catch (TimeoutException e) {
                // not ready yet: read the lag again
            }
        }
        try {
            ready.get();
        } catch (ExecutionException e) {
            throw e.getCause() instanceof Exception cause ? cause : e;
        }
    }
}
