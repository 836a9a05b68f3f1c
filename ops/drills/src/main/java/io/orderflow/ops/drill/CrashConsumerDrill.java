package io.orderflow.ops.drill;

import com.fasterxml.jackson.databind.JsonNode;
import io.orderflow.contracts.Topics;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
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
 * <p>Orders of one random SKU, one unit each, for a customer of the drill's own, go to order-service at {@code rate}
 * per second for {@code duration}. A third of the way in (or later, once it has committed an offset on every partition
 * of its topic, since a partition without one has no lag to read once nobody holds it) the victim is killed through
 * {@link ServiceControl}; a third of the duration later it is started again. The lag monitor is read once a second
 * throughout. The victim is one of the three services consuming {@code orders} (inventory-service by default), or
 * order-service, whose saga group ({@link DrillTarget#SAGA}) reads inventory's answers on {@code inventory}: then
 * order-service cannot take orders while it is down, and those refused are reported, not failures; one whose request
 * was cut by the kill may have been created without the drill learning its id, so the drill counts the orders that
 * exist from their {@code OrderCreated} on {@code orders} ({@link OrderTopicEvents#createdBy}).
 *
 * <p>Checks: the other groups' lag during the outage stayed within what they showed before plus ten seconds of orders
 * (the commit interval, a reading's second, and as much again for a machine busy restarting the victim), except
 * order-service's saga group while inventory-service is the victim (it has nothing to read then, and inventory's
 * backlog of answers after); the victim's lag on its topic grew while it was down and drained to 0; no accepted order
 * was lost (a reservation and a mail each, and order-service took every order unless it was the victim); every order
 * ended CONFIRMED exactly once (version 2, one OrderConfirmed on {@code orders}); the SKU's reserved stock rose by
 * exactly the number of orders and every order has exactly one mail; the victim skipped as duplicates at most ten
 * seconds of orders since its restart (it did not start over from the beginning).
 */
public final class CrashConsumerDrill {

    public static final String NAME = "crash-consumer";
    private static final Duration WITHIN = Duration.ofSeconds(180);
    /**
     * Lag a healthy group may show beyond its lag before the crash, in seconds of orders (each order's records on the
     * group's topic, {@link DrillTarget#recordsPerOrder}): the commit interval (5 s), a reading's second, and as much
     * again for a machine busy starting the victim again.
     */
    private static final int SLACK_SECONDS = 10;

    private final DrillTarget target;
    private final ServiceControl control;
    private final String victim;
    private final int rate;
    private final Duration duration;
    private final PlatformProbe probe;

    public CrashConsumerDrill(DrillTarget target, ServiceControl control, String victim, int rate, Duration duration) {
        if (!target.allConsumers().containsKey(victim)) {
            throw new IllegalArgumentException("the victim must be one of "
                    + new TreeSet<>(target.allConsumers().keySet()) + ", was " + victim);
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
        boolean sagaVictim = victim.equals(DrillTarget.SAGA);
        List<String> groups = target.allConsumers().keySet().stream().sorted().toList();
        List<String> others = groups.stream()
                .filter(group -> !group.equals(victim) && !waitsOnVictim(group))
                .toList();
        LagWatch lag = LagWatch.of(target.lagMonitor(), groups);
        String sku = "sku-" + (1 + ThreadLocalRandom.current().nextInt(1_000));
        long reservedBefore = probe.stock(sku).path("reserved").asLong();
        long startedMillis = System.currentTimeMillis() - 1_000;

        double killedAt;
        double restartedAt;
        double readyAt;
        long start = System.nanoTime();
        SkuOrderStream stream = new SkuOrderStream(probe, "drill-crash-" + shortId(), sku, rate, duration);
        stream.start();
        report.step("sent " + rate + " orders/s of " + sku + " for " + duration.toSeconds() + " s");

        lag.watchUntil(start + duration.toNanos() / 3);
        // Once the victim is dead, a partition it never committed on has no lag to read: kill it once it has committed
        // on all.
        PlatformProbe.awaitWhileWatching(lag, WITHIN, () -> lag.committedEverywhere(victim));
        control.kill(victim);
        killedAt = lag.seconds();
        report.step(String.format(
                "killed %s with SIGKILL at %.1f s (its group reads %s)",
                victim, killedAt, DrillTarget.topicOf(victim)));

        lag.watchUntil(System.nanoTime() + duration.toNanos() / 3);
        restartedAt = lag.seconds();
        startWhileWatching(lag);
        readyAt = lag.seconds();
        report.step(String.format("started %s again at %.1f s; ready at %.1f s", victim, restartedAt, readyAt));
        lag.watchWhile(() -> !stream.isDone());
        List<String> accepted = stream.accepted();
        report.step(String.format(
                "%d orders accepted, %d refused (no connection) and %d failed%s",
                accepted.size(),
                stream.refused(),
                stream.failed(),
                sagaVictim ? " while order-service was down (expected: nobody could take them)" : ""));
        OrderTracker processed = new OrderTracker(probe, accepted);
        OrderTracker confirmed = new OrderTracker(accepted, order -> probe.hasStatus(order, Set.of("CONFIRMED")));
        PlatformProbe.awaitWhileWatching(
                lag, WITHIN, () -> lag.allCaughtUp() && processed.allDone() && confirmed.allDone());
        // Every order that exists, the drill's accepted ones and any created by a request the kill cut, answered.
        OrderTopicEvents events = OrderTopicEvents.since(target.cluster(), startedMillis, WITHIN);
        Set<String> created = events.createdBy(stream.customer());
        Set<String> acceptedIds = Set.copyOf(accepted);
        List<String> unknown =
                created.stream().filter(order -> !acceptedIds.contains(order)).toList();
        OrderTracker unknownDone = new OrderTracker(
                unknown, order -> probe.processed(order) && probe.hasStatus(order, Set.of("CONFIRMED")));
        PlatformProbe.awaitWhileWatching(lag, WITHIN, unknownDone::allDone);
        events = OrderTopicEvents.onceAnswered(target.cluster(), lag, created, startedMillis, WITHIN);
        report.step(String.format(
                "waited until every group had caught up and every order was processed and confirmed: %d orders on %s"
                        + " (%d accepted, %d created by a request the kill cut)",
                created.size(), Topics.ORDERS, accepted.size(), unknown.size()));
        report.chart(lag.chart(60));

        for (String group : others) {
            long before = lag.maxLag(group, 0, killedAt);
            long during = lag.maxLag(group, killedAt, readyAt);
            long slack = (long) rate * DrillTarget.recordsPerOrder(group) * SLACK_SECONDS;
            report.check(
                    group + " kept up while " + victim + " was down",
                    during <= before + slack,
                    "largest lag " + during + " records while it was down, " + before + " before (allowed: " + before
                            + " + " + slack + ")");
        }
        long victimDuring = lag.maxLag(victim, killedAt, readyAt);
        report.check(
                victim + "'s lag on " + DrillTarget.topicOf(victim) + " grew while it was down and drained after its"
                        + " restart",
                victimDuring > 0 && lag.latest(victim).map(r -> r.lag() == 0).orElse(false),
                "largest lag " + victimDuring + " records; last "
                        + lag.latest(victim).map(LagWatch.Reading::lag).orElse(-1L));
        int lost = 0;
        for (String order : accepted) {
            if (probe.reservation(order) == null || !created.contains(order)) {
                lost++;
            }
        }
        report.check(
                "no order lost",
                lost == 0 && (sagaVictim || stream.notAccepted() == 0) && unknown.size() <= stream.failed(),
                lost + " of " + accepted.size() + " accepted orders without a reservation or an OrderCreated on "
                        + Topics.ORDERS + "; " + stream.notAccepted() + " orders refused or failed"
                        + (sagaVictim
                                ? " while order-service was down, " + unknown.size() + " of those created all the same"
                                : ""));
        List<String> notConfirmedOnce = new ArrayList<>();
        int mailsOff = 0;
        for (String order : created) {
            JsonNode answer = probe.order(order);
            boolean once = answer != null
                    && answer.path("status").asText().equals("CONFIRMED")
                    && answer.path("version").asLong() == 2
                    && events.of(order, OrderTopicEvents.ANSWERS).equals(List.of("OrderConfirmed"));
            if (!once) {
                notConfirmedOnce.add(order);
            }
            if (probe.mails(order) != 1) {
                mailsOff++;
            }
        }
        report.check(
                "every order confirmed exactly once",
                notConfirmedOnce.isEmpty(),
                (created.size() - notConfirmedOnce.size()) + " of " + created.size()
                        + " orders CONFIRMED at version 2 with one OrderConfirmed on " + Topics.ORDERS
                        + (notConfirmedOnce.isEmpty() ? "" : "; not so: " + DrillReport.firstFew(notConfirmedOnce)));
        long reserved = probe.stock(sku).path("reserved").asLong() - reservedBefore;
        report.check(
                "no double effect",
                reserved == created.size() && mailsOff == 0,
                sku + " reserved " + reserved + " more units for " + created.size() + " orders of one unit; " + mailsOff
                        + " orders with other than one mail");
        double redelivered = probe.duplicates().getOrDefault(victim, -1.0);
        long redeliveryAllowed = (long) rate * DrillTarget.recordsPerOrder(victim) * SLACK_SECONDS;
        report.check(
                victim + " resumed from its committed offsets",
                redelivered >= 0 && redelivered <= redeliveryAllowed,
                String.format(
                        "%.0f records redelivered and skipped as duplicates since its restart (at most %d: %d s of"
                                + " orders)",
                        redelivered, redeliveryAllowed, SLACK_SECONDS));
        return report;
    }

    /** True when {@code group} reads what the victim produces: order-service's saga group, of inventory-service. */
    private boolean waitsOnVictim(String group) {
        return group.equals(DrillTarget.SAGA) && victim.equals("inventory-service");
    }

    private static String shortId() {
        return UUID.randomUUID().toString().substring(0, 8);
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
