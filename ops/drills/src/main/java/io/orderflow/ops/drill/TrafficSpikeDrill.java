package io.orderflow.ops.drill;

import io.orderflow.ops.load.OpenLoopLoad;
import io.orderflow.ops.load.OrderBodies;
import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * {@code traffic-spike}: ten times the order rate for a while, then back to normal. Every group falls behind and
 * catches up again; the report gives each group's lag peak and how long after the spike it had drained.
 *
 * <p>Orders ({@link OrderBodies#uniform()}: random customers and SKUs) go to order-service open-loop at {@code
 * baseRate} per second for {@code calm}, at {@code factor} times that for {@code spike}, and at {@code baseRate} again
 * for {@code calm}: one load at the base rate runs throughout and a second one adds the rest during the spike. The lag
 * monitor is read once a second from the start until every group (order-service's saga group on {@code inventory}
 * among them) has caught up after the load.
 *
 * <p>A group has drained when its lag is back within the largest lag it showed in the first calm phase (groups commit
 * every few seconds, so even a group that keeps up shows some lag); its drain time is counted from the end of the
 * spike, or from its peak when that came later. Checks: order-service answered every order (none refused, none left
 * unanswered, none held back by the generator's bound); every accepted order was processed (a reservation and a mail);
 * each group drained; every group caught up in the end.
 */
public final class TrafficSpikeDrill {

    public static final String NAME = "traffic-spike";
    private static final Duration WITHIN = Duration.ofSeconds(300);

    private final DrillTarget target;
    private final int baseRate;
    private final int factor;
    private final Duration calm;
    private final Duration spike;
    private final PlatformProbe probe;

    public TrafficSpikeDrill(DrillTarget target, int baseRate, int factor, Duration calm, Duration spike) {
        if (baseRate < 1 || factor < 2 || calm.toSeconds() < 1 || spike.toSeconds() < 1) {
            throw new IllegalArgumentException("the base rate must be at least 1, the factor at least 2 and each phase"
                    + " at least a second; were " + baseRate + ", " + factor + ", " + calm + ", " + spike);
        }
        this.target = target;
        this.baseRate = baseRate;
        this.factor = factor;
        this.calm = calm;
        this.spike = spike;
        this.probe = new PlatformProbe(target);
    }

    public DrillReport run() throws Exception {
        DrillReport report = new DrillReport(NAME);
        List<String> groups = target.allConsumers().keySet().stream().sorted().toList();
        Queue<String> accepted = new ConcurrentLinkedQueue<>();
        OpenLoopLoad.Result base;
        OpenLoopLoad.Result extra;
        LagWatch lag = LagWatch.of(target.lagMonitor(), groups);
        double spikeFrom;
        double spikeTo;
        try (OpenLoopLoad baseLoad = new OpenLoopLoad(
                        target.orderService(), baseRate, 256, false, 1, OrderBodies.uniform(), accepted::add);
                OpenLoopLoad extraLoad = new OpenLoopLoad(
                        target.orderService(),
                        baseRate * (factor - 1),
                        1_024,
                        false,
                        1,
                        OrderBodies.uniform(),
                        accepted::add)) {
            long start = System.nanoTime() + 500_000_000L;
            spikeFrom = lag.seconds() + (start + calm.toNanos() - System.nanoTime()) / 1e9;
            spikeTo = spikeFrom + spike.toNanos() / 1e9;
            CompletableFuture<OpenLoopLoad.Result> baseDone = baseLoad.runInBackground(
                    start, Duration.ZERO, calm.plus(spike).plus(calm));
            CompletableFuture<OpenLoopLoad.Result> extraDone =
                    extraLoad.runInBackground(start + calm.toNanos(), Duration.ZERO, spike);
            lag.watchWhile(() -> !(baseDone.isDone() && extraDone.isDone()));
            base = baseDone.get();
            extra = extraDone.get();
        }
        report.step(String.format(
                "sent %d orders/s for %d s, %d orders/s (x%d) for %d s from %.0f s, then %d orders/s for %d s",
                baseRate,
                calm.toSeconds(),
                baseRate * factor,
                factor,
                spike.toSeconds(),
                spikeFrom,
                baseRate,
                calm.toSeconds()));
        List<String> orders = List.copyOf(accepted);
        report.step(String.format(
                "%d orders accepted; during the spike p50 %.0f ms, p99 %.0f ms, max %.0f ms from due to answered",
                orders.size(),
                extra.latency().percentileMillis(50),
                extra.latency().percentileMillis(99),
                extra.latency().maxMillis()));
        OrderTracker tracker = new OrderTracker(probe, orders);
        PlatformProbe.awaitWhileWatching(lag, WITHIN, () -> lag.allCaughtUp() && tracker.allDone());
        report.step("waited until every group had caught up and every order was processed");
        report.chart(lag.chart(60));

        long unanswered = base.failed()
                + base.notSent()
                + base.unanswered()
                + extra.failed()
                + extra.notSent()
                + extra.unanswered();
        report.check(
                "order-service answered every order",
                unanswered == 0,
                String.format(
                        "%d of %d orders refused, held back or unanswered%s",
                        unanswered,
                        base.scheduled() + extra.scheduled(),
                        unanswered == 0 ? "" : "; failures " + base.failures() + " " + extra.failures()));
        report.check(
                "every accepted order was processed",
                tracker.allDone(),
                orders.size() + " orders reserved by inventory-service and mailed by notification-service");
        for (String group : groups) {
            List<LagWatch.Reading> readings = lag.readings().get(group);
            long calmMax = readings.stream()
                    .filter(r -> r.atSeconds() < spikeFrom)
                    .mapToLong(LagWatch.Reading::lag)
                    .max()
                    .orElse(0);
            LagWatch.Reading peak = readings.stream()
                    .filter(r -> r.atSeconds() >= spikeFrom)
                    .reduce((a, b) -> b.lag() > a.lag() ? b : a)
                    .orElse(new LagWatch.Reading(spikeFrom, 0, "-"));
            double drainFrom = Math.max(spikeTo, peak.atSeconds());
            var drained = readings.stream()
                    .filter(r -> r.atSeconds() >= drainFrom && r.lag() <= calmMax)
                    .findFirst();
            report.check(
                    group + " drained after the spike",
                    drained.isPresent(),
                    String.format(
                            "peak %,d records at %.0f s (%,d before the spike); %s",
                            peak.lag(),
                            peak.atSeconds(),
                            calmMax,
                            drained.map(r -> String.format(
                                            "back within that %.0f s after the spike ended",
                                            Math.max(0, r.atSeconds() - spikeTo)))
                                    .orElse("not back within that")));
        }
        report.check("every group caught up", lag.allCaughtUp(), lag.latestLags());
        return report;
    }
}
