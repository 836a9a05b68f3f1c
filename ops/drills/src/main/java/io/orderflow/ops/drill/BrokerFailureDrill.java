package io.orderflow.ops.drill;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * {@code broker-failure}: {@code kill -9} of the broker while orders stream in, then a start on the same log. Nothing
 * else is touched: order-service must go on taking orders (its outbox is in PostgreSQL), and the relays and the
 * consumers must find the broker again by themselves; no acknowledged order may be lost, none may have a double
 * effect.
 *
 * <p>Orders of one random SKU, one unit each ({@link SkuOrderStream}), go to order-service at {@code rate} per second
 * for {@code duration}. A third of the way in the broker {@code victim} is killed through {@link ServiceControl}
 * ({@code log-broker}; on compose's Kafka profile one of the three nodes, {@code kafka-1}, and the cluster goes on with
 * two); {@code down} later it is started again. The lag monitor is read once a second
 * throughout (it has nothing to read while the broker is down). Checks: order-service accepted every order, the broker
 * down or not; every accepted order was reserved and mailed, so every record the broker acknowledged before the crash
 * was still in its log after it, and the relays published what piled up meanwhile; the SKU's reserved stock rose by
 * exactly the number of accepted orders and every order has one mail (records the relays sent again after the crash,
 * not knowing whether the broker had them, were skipped as duplicates); every order was confirmed by order-service
 * (the saga's round trip through {@code inventory} recovered too); every group caught up, order-service's on
 * {@code inventory} included.
 *
 * <p>With {@code diesByItself} the broker is not killed by the operator but dies as a crash would end it (an Error's
 * exit code 3, an OutOfMemoryError): SIGKILL behind its supervisor's back ({@link ServiceControl#crash}), and nobody
 * starts it. The supervisor must (run-platform's, which restarts a broker that died with back-off); the drill waits
 * for the broker to answer again, at most {@link #WITHIN}, and checks everything above plus that it came back.
 */
public final class BrokerFailureDrill {

    public static final String NAME = "broker-failure";
    private static final Duration WITHIN = Duration.ofSeconds(240);

    private final DrillTarget target;
    private final ServiceControl control;
    private final String victim;
    private final int rate;
    private final Duration duration;
    private final Duration down;
    private final boolean diesByItself;
    private final PlatformProbe probe;

    public BrokerFailureDrill(
            DrillTarget target, ServiceControl control, String victim, int rate, Duration duration, Duration down) {
        this(target, control, victim, rate, duration, down, false);
    }

    /** With {@code diesByItself}, {@code down} is unused: the broker's supervisor decides when it comes back. */
    public BrokerFailureDrill(
            DrillTarget target,
            ServiceControl control,
            String victim,
            int rate,
            Duration duration,
            Duration down,
            boolean diesByItself) {
        if (rate < 1 || duration.toSeconds() < 3 || down.isNegative()) {
            throw new IllegalArgumentException("the rate must be positive, the duration at least 3 s and the outage"
                    + " not negative; were " + rate + ", " + duration + ", " + down);
        }
        this.target = target;
        this.control = control;
        this.victim = victim;
        this.rate = rate;
        this.duration = duration;
        this.down = down;
        this.diesByItself = diesByItself;
        this.probe = new PlatformProbe(target);
    }

    public DrillReport run() throws Exception {
        DrillReport report = new DrillReport(NAME);
        List<String> groups = target.allConsumers().keySet().stream().sorted().toList();
        LagWatch lag = LagWatch.of(target.lagMonitor(), groups);
        String sku = "sku-" + (1 + ThreadLocalRandom.current().nextInt(1_000));
        long reservedBefore = probe.stock(sku).path("reserved").asLong();

        long start = System.nanoTime();
        SkuOrderStream stream = new SkuOrderStream(probe, "drill-broker", sku, rate, duration);
        stream.start();
        report.step("sent " + rate + " orders/s of " + sku + " for " + duration.toSeconds() + " s");
        lag.watchUntil(start + duration.toNanos() / 3);
        double readyAt;
        boolean cameBack = true;
        if (diesByItself) {
            control.crash(victim);
            double crashedAt = lag.seconds();
            report.step(String.format(
                    "the broker (%s) died by itself at %.1f s (SIGKILL behind its supervisor's back); nobody started"
                            + " it",
                    victim, crashedAt));
            try (BrokerPing ping = new BrokerPing(target.cluster())) {
                lag.watchUntil(System.nanoTime() + Duration.ofSeconds(1).toNanos());
                long deadline = System.nanoTime() + WITHIN.toNanos();
                lag.watchWhile(() -> System.nanoTime() < deadline && !ping.answers());
                cameBack = ping.answers();
            }
            readyAt = lag.seconds();
            report.step(
                    cameBack
                            ? String.format(
                                    "the broker answered again at %.1f s, %.1f s after it died, started by its supervisor",
                                    readyAt, readyAt - crashedAt)
                            : String.format("the broker did not answer again within %d s", WITHIN.toSeconds()));
        } else {
            control.kill(victim);
            double killedAt = lag.seconds();
            report.step(String.format("killed the broker (%s) with SIGKILL at %.1f s", victim, killedAt));
            lag.watchUntil(System.nanoTime() + down.toNanos());
            double restartedAt = lag.seconds();
            control.start(victim);
            readyAt = lag.seconds();
            report.step(String.format(
                    "started the broker again on the same log at %.1f s; ready at %.1f s", restartedAt, readyAt));
        }
        lag.watchWhile(() -> !stream.isDone());
        double loadEnded = lag.seconds();
        List<String> orders = stream.accepted();
        report.step(orders.size() + " orders accepted, " + stream.notAccepted() + " refused or unanswered");
        OrderTracker tracker = new OrderTracker(probe, orders);
        OrderTracker confirmed = new OrderTracker(orders, order -> probe.hasStatus(order, Set.of("CONFIRMED")));
        PlatformProbe.awaitWhileWatching(
                lag, WITHIN, () -> lag.allCaughtUp() && tracker.allDone() && confirmed.allDone());
        double caughtUp = lag.seconds();
        report.step(String.format(
                "every group had caught up and every order was processed and confirmed at %.0f s: %.0f s after the"
                        + " broker was back, %.0f s after the last order",
                caughtUp, caughtUp - readyAt, Math.max(0, caughtUp - loadEnded)));
        report.chart(lag.chart(60));

        if (diesByItself) {
            report.check(
                    "the broker came back by itself",
                    cameBack,
                    cameBack
                            ? String.format("answering again %.1f s into the drill, no operator involved", readyAt)
                            : "not answering " + WITHIN.toSeconds() + " s after it died");
        }
        report.check(
                "order-service took every order, the broker down or not",
                stream.notAccepted() == 0,
                orders.size() + " accepted, " + stream.notAccepted() + " refused or unanswered");
        int mailsOff = 0;
        for (String order : orders) {
            if (probe.mails(order) != 1) {
                mailsOff++;
            }
        }
        report.check(
                "no acknowledged order lost",
                tracker.allDone(),
                orders.size() + " accepted orders reserved by inventory-service and mailed by notification-service");
        report.check(
                "the saga went on",
                confirmed.allDone(),
                orders.size() + " accepted orders confirmed by order-service after inventory's answer");
        long reserved = probe.stock(sku).path("reserved").asLong() - reservedBefore;
        report.check(
                "no double effect",
                reserved == orders.size() && mailsOff == 0,
                sku + " reserved " + reserved + " more units for " + orders.size() + " orders of one unit; " + mailsOff
                        + " orders with other than one mail");
        report.check(
                "the relays and the consumers recovered by themselves",
                lag.allCaughtUp(),
                String.format(
                        "every group caught up %.0f s after the last order: %s",
                        Math.max(0, caughtUp - loadEnded), lag.latestLags()));
        return report;
    }
}
