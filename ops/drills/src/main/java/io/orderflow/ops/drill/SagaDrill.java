package io.orderflow.ops.drill;

import com.fasterxml.jackson.databind.JsonNode;
import io.orderflow.contracts.Topics;
import io.orderflow.ops.load.OrderBodies;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;

/**
 * {@code saga}: inventory stops answering for a while. Orders go on arriving; order-service must take them and leave
 * each {@code CREATED} while nobody answers, and once inventory is back the saga must finish every one of them: each
 * order confirmed or rejected exactly once, rejected exactly when it asked for what is not in stock, stock never
 * oversold, and every rejection mailed.
 *
 * <p>Orders of one unit each, for a customer of the drill's own, go to order-service at {@code rate} per second for
 * {@code duration} ({@link SkuOrderStream}): {@code outOfStockShare} of them ask for the sold-out SKU
 * ({@value OrderBodies#SOLD_OUT}, of which inventory has none), spread evenly, the rest for one random SKU. A third of
 * the way in the drill kills inventory-service and its relay, {@value #RELAY}, through {@link ServiceControl} (the
 * relay too, or it would go on publishing answers inventory wrote to its outbox before it died); {@code down} later it
 * starts both again. The lag monitor is read once a second throughout, for every group (order-service's saga group on
 * {@code inventory} among them).
 *
 * <p>Checks: order-service took every order; every order placed while inventory was away was still {@code CREATED}
 * when it came back (a status never returns to CREATED, so it was CREATED throughout); every accepted order ended
 * {@code CONFIRMED} or {@code REJECTED}, rejected exactly those that asked for the sold-out SKU, each rejection naming
 * it; each order's answer is on {@code orders} exactly once (one OrderConfirmed or one OrderRejected event, of the
 * type its status says: a relay may publish one event twice, never two answers); the random SKU's reserved stock rose
 * by exactly the confirmed orders' units, and the sold-out SKU still has none on hand and none reserved; every
 * rejected order got exactly one rejection mail and no confirmed order one; every group caught up. The report gives
 * how long after the restart the orders placed meanwhile were all answered.
 */
public final class SagaDrill {

    public static final String NAME = "saga";
    /** inventory-service's outbox relay, which publishes its answers on {@code inventory}. */
    static final String RELAY = "inventory-outbox-relay";

    private static final String INVENTORY = "inventory-service";
    private static final Duration WITHIN = Duration.ofSeconds(240);
    private static final Set<String> ANSWERED = Set.of("CONFIRMED", "REJECTED");

    private final DrillTarget target;
    private final ServiceControl control;
    private final int rate;
    private final Duration duration;
    private final Duration down;
    private final double outOfStockShare;
    private final PlatformProbe probe;

    public SagaDrill(
            DrillTarget target,
            ServiceControl control,
            int rate,
            Duration duration,
            Duration down,
            double outOfStockShare) {
        if (rate < 1
                || duration.toSeconds() < 3
                || down.toSeconds() < 1
                || !(outOfStockShare >= 0 && outOfStockShare <= 1)) {
            throw new IllegalArgumentException("the rate must be positive, the duration at least 3 s, the outage at"
                    + " least 1 s and the out-of-stock share in [0, 1]; were " + rate + ", " + duration + ", " + down
                    + ", " + outOfStockShare);
        }
        this.target = target;
        this.control = control;
        this.rate = rate;
        this.duration = duration;
        this.down = down;
        this.outOfStockShare = outOfStockShare;
        this.probe = new PlatformProbe(target);
    }

    public DrillReport run() throws Exception {
        DrillReport report = new DrillReport(NAME);
        List<String> groups = target.allConsumers().keySet().stream().sorted().toList();
        LagWatch lag = LagWatch.of(target.lagMonitor(), groups);
        String sku = "sku-" + (1 + ThreadLocalRandom.current().nextInt(1_000));
        String soldOut = OrderBodies.SOLD_OUT;
        long reservedBefore = probe.stock(sku).path("reserved").asLong();
        long startedMillis = System.currentTimeMillis() - 1_000;

        long start = System.nanoTime();
        SkuOrderStream stream = new SkuOrderStream(
                        probe, "drill-saga-" + UUID.randomUUID().toString().substring(0, 8), sku, rate, duration)
                .withOtherSku(soldOut, outOfStockShare);
        stream.start();
        report.step(String.format(
                "sent %d orders/s for %d s, one unit each: %.0f%% of them of %s, the rest of %s",
                rate, duration.toSeconds(), outOfStockShare * 100, soldOut, sku));

        lag.watchUntil(start + duration.toNanos() / 3);
        control.kill(INVENTORY);
        control.kill(RELAY);
        long downSince = System.nanoTime();
        double killedAt = lag.seconds();
        report.step(String.format("killed %s and %s with SIGKILL at %.1f s", INVENTORY, RELAY, killedAt));
        lag.watchUntil(downSince + down.toNanos());
        List<String> placedWhileDown = stream.placed().stream()
                .filter(order -> order.sentNanos() >= downSince)
                .map(SkuOrderStream.Placed::id)
                .toList();
        List<String> movedWhileDown = new ArrayList<>();
        for (String order : placedWhileDown) {
            if (!probe.hasStatus(order, Set.of("CREATED"))) {
                movedWhileDown.add(order);
            }
        }
        double restartedAt = lag.seconds();
        report.step(String.format(
                "at %.1f s, %d orders placed since the kill, %d of them CREATED",
                restartedAt, placedWhileDown.size(), placedWhileDown.size() - movedWhileDown.size()));
        control.start(INVENTORY);
        control.start(RELAY);
        double readyAt = lag.seconds();
        report.step(String.format(
                "started %s and %s again at %.1f s; both ready at %.1f s", INVENTORY, RELAY, restartedAt, readyAt));
        OrderTracker backlog = new OrderTracker(placedWhileDown, order -> probe.hasStatus(order, ANSWERED));
        PlatformProbe.awaitWhileWatching(lag, WITHIN, backlog::allDone);
        double backlogAnsweredAt = lag.seconds();
        report.step(String.format(
                "every order placed while inventory was away answered at %.1f s: %.1f s after the restart began, %.1f s"
                        + " after both were ready",
                backlogAnsweredAt, backlogAnsweredAt - restartedAt, Math.max(0, backlogAnsweredAt - readyAt)));

        lag.watchWhile(() -> !stream.isDone());
        double loadEnded = lag.seconds();
        List<SkuOrderStream.Placed> placed = stream.placed();
        List<String> orders = stream.accepted();
        OrderTracker answered = new OrderTracker(orders, order -> probe.hasStatus(order, ANSWERED));
        OrderTracker processed = new OrderTracker(probe, orders);
        PlatformProbe.awaitWhileWatching(lag, WITHIN, () -> answered.allDone() && processed.allDone());
        OrderTopicEvents events = OrderTopicEvents.onceAnswered(target.cluster(), lag, orders, startedMillis, WITHIN);
        List<String> rejectedOrders = new ArrayList<>();
        for (SkuOrderStream.Placed order : placed) {
            if (order.sku().equals(soldOut)) {
                rejectedOrders.add(order.id());
            }
        }
        // Every answer is on orders now: once every group has caught up, each has read them all.
        PlatformProbe.awaitWhileWatching(
                lag,
                WITHIN,
                () -> lag.allCaughtUp() && rejectedOrders.stream().allMatch(order -> rejectionMails(order) >= 1));
        double settledAt = lag.seconds();
        report.step(String.format(
                "%d orders accepted, %d refused or failed; every one answered, processed, its answer on %s and every"
                        + " group caught up at %.1f s: %.1f s after the restart began, %.1f s after the last order",
                orders.size(),
                stream.notAccepted(),
                Topics.ORDERS,
                settledAt,
                settledAt - restartedAt,
                Math.max(0, settledAt - loadEnded)));
        report.chart(lag.chart(60));

        report.check(
                "order-service took every order",
                stream.notAccepted() == 0,
                orders.size() + " accepted, " + stream.notAccepted() + " refused or failed");
        report.check(
                "every order placed while inventory was away stayed CREATED",
                !placedWhileDown.isEmpty() && movedWhileDown.isEmpty(),
                (placedWhileDown.size() - movedWhileDown.size()) + " of " + placedWhileDown.size()
                        + String.format(
                                " orders CREATED when inventory came back, %.1f s after the kill",
                                restartedAt - killedAt)
                        + (movedWhileDown.isEmpty() ? "" : "; moved: " + movedWhileDown));

        int confirmed = 0;
        int rejected = 0;
        List<String> wrong = new ArrayList<>();
        List<String> answersOff = new ArrayList<>();
        List<String> mailsOff = new ArrayList<>();
        for (SkuOrderStream.Placed order : placed) {
            JsonNode now = probe.order(order.id());
            String status = now == null ? "unknown" : now.path("status").asText();
            boolean shouldReject = order.sku().equals(soldOut);
            if (status.equals("CONFIRMED")) {
                confirmed++;
            } else if (status.equals("REJECTED")) {
                rejected++;
            }
            boolean right = shouldReject
                    ? status.equals("REJECTED")
                            && now.path("shortSkus").toString().equals("[\"" + soldOut + "\"]")
                    : status.equals("CONFIRMED");
            if (!right) {
                wrong.add(order.id() + " (" + order.sku() + ") " + status);
            }
            List<String> answers = events.of(order.id(), OrderTopicEvents.ANSWERS);
            if (!answers.equals(List.of(shouldReject ? "OrderRejected" : "OrderConfirmed"))) {
                answersOff.add(order.id() + " " + answers);
            }
            if (rejectionMails(order.id()) != (shouldReject ? 1 : 0)) {
                mailsOff.add(order.id());
            }
        }
        report.check(
                "every order confirmed or rejected, rejected exactly those of " + soldOut,
                wrong.isEmpty() && confirmed + rejected == orders.size(),
                confirmed + " CONFIRMED, " + rejected + " REJECTED of " + orders.size() + " orders; "
                        + rejectedOrders.size() + " asked for " + soldOut
                        + (wrong.isEmpty() ? ", each rejected naming it" : "; wrong: " + DrillReport.firstFew(wrong)));
        report.check(
                "each order's answer is on " + Topics.ORDERS + " exactly once",
                answersOff.isEmpty(),
                (orders.size() - answersOff.size()) + " of " + orders.size()
                        + " orders with exactly one OrderConfirmed or OrderRejected event, as their status says ("
                        + events.records() + " records read since the drill began)"
                        + (answersOff.isEmpty() ? "" : "; not so: " + DrillReport.firstFew(answersOff)));
        long reserved = probe.stock(sku).path("reserved").asLong() - reservedBefore;
        JsonNode soldOutStock = probe.stock(soldOut);
        report.check(
                "stock reserved for exactly the confirmed orders, never oversold",
                reserved == confirmed
                        && soldOutStock.path("onHand").asLong() == 0
                        && soldOutStock.path("reserved").asLong() == 0,
                sku + " reserved " + reserved + " more units for " + confirmed + " confirmed orders of one unit; "
                        + soldOut + " " + soldOutStock);
        report.check(
                "every rejected order got its rejection mail",
                mailsOff.isEmpty(),
                (rejectedOrders.size()) + " rejected orders with one OrderRejected mail each, no confirmed order with"
                        + " one" + (mailsOff.isEmpty() ? "" : "; not so: " + DrillReport.firstFew(mailsOff)));
        report.check("every group caught up", lag.allCaughtUp(), lag.latestLags());
        return report;
    }

    /** How many of {@code order}'s mails notification-service recorded for its rejection; -1 if it could not say. */
    private int rejectionMails(String order) {
        try {
            return (int) probe.mailTypes(order).stream()
                    .filter("OrderRejected"::equals)
                    .count();
        } catch (java.io.IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }
}
