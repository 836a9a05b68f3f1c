package io.orderflow.ops.drill;

import io.orderflow.ops.load.OpenLoopLoad;
import io.orderflow.ops.load.OrderBodies;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * {@code slow-consumer}: one consuming service becomes slower than the traffic for a while (its drill switch, {@code PUT
 * /drills/slowdown}, makes it wait {@code perRecord} per record, as if each called a slow dependency). Only its lag
 * may grow, the lag monitor must call it WARN, and once it has its speed back it must drain; the other groups keep up
 * throughout and no order is lost.
 *
 * <p>Orders ({@link OrderBodies#uniform()}) go to order-service open-loop at {@code rate} per second for {@code calm},
 * {@code slow} and {@code calm} again; the victim is slowed for the middle phase. At the default slowdown, {@code 2000
 * / rate} ms per record, it handles half the rate. The lag monitor is read once a second, for every group: the three on
 * {@code orders} and order-service's saga group on {@code inventory}.
 *
 * <p>The WARN status needs the victim's lag above zero at every reading of the monitor's window and growing over it
 * (ops/lag-monitor/README.md), so {@code slow} must outlast the window (60 s by default). A slowed consumer commits once per batch;
 * a batch of {@code max.poll.records} records waiting {@code perRecord} each must take less than the window, or the
 * committed offset stands still for a whole window and the status is STALL instead.
 *
 * <p>Checks: the victim's lag grew by more than a second of orders beyond its largest before the slowdown; its status
 * was WARN at some reading while slowed; each other group's lag stayed within what it showed before plus ten seconds of
 * orders; the victim drained to no lag and OK after it got its speed back; every accepted order was processed.
 */
public final class SlowConsumerDrill {

    public static final String NAME = "slow-consumer";
    private static final Duration WITHIN = Duration.ofSeconds(300);
    /**
     * Lag a healthy group may show beyond its lag before the slowdown, in seconds of orders (commits, readings): each
     * order's records on the group's topic ({@link DrillTarget#recordsPerOrder}) for that many seconds.
     */
    private static final int SLACK_SECONDS = 10;

    private final DrillTarget target;
    private final String victim;
    private final int rate;
    private final long perRecordMillis;
    private final Duration calm;
    private final Duration slow;
    private final PlatformProbe probe;

    public SlowConsumerDrill(
            DrillTarget target, String victim, int rate, long perRecordMillis, Duration calm, Duration slow) {
        if (!target.consumers().containsKey(victim)) {
            throw new IllegalArgumentException(
                    "the victim must be one of " + target.consumers().keySet() + ", was " + victim);
        }
        if (rate < 1 || perRecordMillis < 1 || calm.toSeconds() < 1 || slow.toSeconds() < 1) {
            throw new IllegalArgumentException("the rate, the slowdown and each phase must be positive; were " + rate
                    + ", " + perRecordMillis + " ms, " + calm + ", " + slow);
        }
        this.target = target;
        this.victim = victim;
        this.rate = rate;
        this.perRecordMillis = perRecordMillis;
        this.calm = calm;
        this.slow = slow;
        this.probe = new PlatformProbe(target);
    }

    /** The slowdown that makes a consumer handle half of {@code rate}: {@code 2000 / rate} ms per record. */
    public static long halfSpeed(int rate) {
        return Math.max(1, 2_000 / rate);
    }

    public DrillReport run() throws Exception {
        DrillReport report = new DrillReport(NAME);
        List<String> groups = target.allConsumers().keySet().stream().sorted().toList();
        URI victimService = target.consumers().get(victim);
        Queue<String> accepted = new ConcurrentLinkedQueue<>();
        OpenLoopLoad.Result load;
        LagWatch lag = LagWatch.of(target.lagMonitor(), groups);
        double slowFrom;
        double slowTo;
        try (OpenLoopLoad orders =
                new OpenLoopLoad(target.orderService(), rate, 256, false, 1, OrderBodies.uniform(), accepted::add)) {
            long start = System.nanoTime() + 500_000_000L;
            CompletableFuture<OpenLoopLoad.Result> done =
                    orders.runInBackground(start, Duration.ZERO, calm.plus(slow).plus(calm));
            try {
                lag.watchUntil(start + calm.toNanos());
                probe.slowDown(victimService, perRecordMillis);
                slowFrom = lag.seconds();
                report.step(String.format(
                        "sent %d orders/s; at %.0f s slowed %s down to %d ms per record (at most %.1f records/s)",
                        rate, slowFrom, victim, perRecordMillis, 1000.0 / perRecordMillis));
                lag.watchUntil(start + calm.plus(slow).toNanos());
            } finally {
                probe.slowDown(victimService, 0);
            }
            slowTo = lag.seconds();
            report.step(String.format("at %.0f s gave %s its speed back", slowTo, victim));
            lag.watchWhile(() -> !done.isDone());
            load = done.get();
        }
        List<String> placed = List.copyOf(accepted);
        report.step(String.format(
                "%d orders accepted over %d s",
                placed.size(), calm.plus(slow).plus(calm).toSeconds()));
        OrderTracker tracker = new OrderTracker(probe, placed);
        PlatformProbe.awaitWhileWatching(lag, WITHIN, () -> lag.allCaughtUp() && tracker.allDone());
        double caughtUp = lag.seconds();
        report.step(String.format("every group had caught up and every order was processed at %.0f s", caughtUp));
        report.chart(lag.chart(60));

        long victimBefore = lag.maxLag(victim, 0, slowFrom);
        long victimPeak = lag.maxLag(victim, slowFrom, slowTo);
        report.check(
                victim + "'s lag grew while it was slow",
                victimPeak > victimBefore + (long) rate * DrillTarget.recordsPerOrder(victim),
                "largest lag " + victimPeak + " records while slow, " + victimBefore + " before");
        Set<String> statuses = lag.statuses(victim, slowFrom, slowTo);
        report.check(
                victim + " was WARN while slow",
                statuses.contains("WARN"),
                "statuses read while slow: " + String.join(", ", statuses));
        for (String group : groups) {
            if (group.equals(victim)) {
                continue;
            }
            long before = lag.maxLag(group, 0, slowFrom);
            long during = lag.maxLag(group, slowFrom, slowTo);
            long slack = (long) rate * DrillTarget.recordsPerOrder(group) * SLACK_SECONDS;
            report.check(
                    group + " kept up while " + victim + " was slow",
                    during <= before + slack,
                    "largest lag " + during + " records while " + victim + " was slow, " + before + " before (allowed: "
                            + before + " + " + slack + ")");
        }
        LagWatch.Reading last = lag.latest(victim).orElseThrow();
        report.check(
                victim + " recovered",
                last.lag() == 0 && last.status().equals("OK"),
                String.format(
                        "lag %d, status %s at %.0f s, %.0f s after it got its speed back",
                        last.lag(), last.status(), last.atSeconds(), caughtUp - slowTo));
        long failed = load.failed() + load.notSent() + load.unanswered();
        report.check(
                "no order lost",
                failed == 0 && tracker.allDone(),
                placed.size() + " accepted orders reserved and mailed; " + failed + " orders refused or unanswered"
                        + (failed == 0 ? "" : " " + load.failures()));
        return report;
    }
}
