package io.orderflow.ops.bench.platform;

import io.orderflow.lag.LagStatus;
import io.orderflow.ops.bench.orders.OrdersTable;
import io.orderflow.ops.load.LatencySamples;
import io.orderflow.ops.load.OpenLoopLoad;
import java.io.PrintStream;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * One measurement's figures and their printing; {@link PlatformTable} summarises them.
 *
 * @param broker {@code ours} or {@code kafka}
 * @param offeredPerSecond the rate requests were due at
 * @param acceptedPerSecond 201s for requests due in the window, per second of it
 * @param lag per consumer group ({@link PlatformBenchmark#GROUPS}): its lag on its source topic in the window
 * @param mails the notification service's pending mails in the window, and what the SMTP server accepted
 * @param processed window orders, from acceptance: per consumer service, by all three ({@code "all"}), confirmed and
 *     mailed ({@link OrderTimings.Processed#latencies})
 * @param delay per part that must keep up ({@link OrderTimings#PARTS}): how its delay grew over the window
 * @param stages where the time went, window orders ({@link OrderTimings#STAGES})
 * @param missing accepted orders of the window that did not get somewhere within the drain
 * @param drainMillis from the end of the window until every order had been processed, confirmed and mailed, NaN if
 *     not within the drain
 * @param cores CPU cores each process used in the window
 * @param batches per consuming service (order-service for its saga consumer): its batches in the window
 * @param relays per relay: its requests to the broker in the window
 * @param cpuMillisPerOrder CPU each process used in the window per order accepted in it, in milliseconds
 * @param brokerMemory the broker's resident memory
 */
record RunFigures(
        String broker,
        int offeredPerSecond,
        double acceptedPerSecond,
        double httpP50,
        double httpP99,
        Map<String, Backlog> lag,
        Mails mails,
        Map<String, LatencySamples.Summary> processed,
        Map<String, DelayTrend> delay,
        Map<String, LatencySamples.Summary> stages,
        Missing missing,
        double drainMillis,
        Map<String, Double> cores,
        Map<String, ConsumerBatches> batches,
        Map<String, ProduceRequests> relays,
        Map<String, Double> cpuMillisPerOrder,
        BrokerMemory brokerMemory) {

    /** The broker's resident memory ({@code VmRSS}) at the end of the window and its peak ({@code VmHWM}), MiB. */
    record BrokerMemory(double endOfWindowMiB, double peakMiB) {}

    /**
     * A backlog over the window, a group's lag in records or the mails pending: largest and mean reading, and growth
     * (least-squares slope over the readings, per second; about zero for a backlog that is worked off as fast as it
     * fills, about the shortfall for one that is not).
     */
    record Backlog(long max, double mean, double growthPerSecond, int readings) {
        static Backlog of(List<LagStatus.Reading> readings) {
            if (readings.isEmpty()) {
                return new Backlog(-1, Double.NaN, Double.NaN, 0);
            }
            return new Backlog(
                    readings.stream().mapToLong(LagStatus.Reading::lag).max().orElseThrow(),
                    readings.stream()
                            .mapToLong(LagStatus.Reading::lag)
                            .average()
                            .orElseThrow(),
                    LagStatus.growthPerSecond(readings),
                    readings.size());
        }

        static Backlog ofGroup(List<GroupLagSampler.Sample> window, String group) {
            return of(window.stream()
                    .map(s -> new LagStatus.Reading(s.atMillis(), -1, s.lag().get(group)))
                    .toList());
        }
    }

    /**
     * The mails in the window.
     *
     * @param pending the notification service's pending mails, as it counts them ({@link PendingMailsSampler})
     * @param acceptedPerSecond mails the SMTP server accepted in the window, per second of it
     * @param resent mails the SMTP server accepted for an event already mailed, in the whole measurement
     * @param unidentified mails without an event's {@code Message-ID}, in the whole measurement
     */
    record Mails(Backlog pending, double acceptedPerSecond, long resent, long unidentified) {}

    /**
     * Accepted orders of the window that did not get somewhere by the end of the drain.
     *
     * @param notProcessedByAll not processed by every consumer service
     * @param notConfirmed neither confirmed nor rejected by order-service
     * @param notMailed whose {@code OrderCreated} mail the SMTP server did not accept
     */
    record Missing(long notProcessedByAll, long notConfirmed, long notMailed) {}

    static RunFigures of(
            String broker,
            int offeredPerSecond,
            OpenLoopLoad.Result loaded,
            Duration window,
            List<GroupLagSampler.Sample> lagReadings,
            Mails mails,
            OrderTimings.Processed processing,
            double drainMillis,
            Map<String, Double> cores,
            Map<String, ConsumerBatches> batches,
            Map<String, ProduceRequests> relays,
            BrokerMemory brokerMemory) {
        Map<String, Backlog> lag = new LinkedHashMap<>();
        PlatformBenchmark.GROUPS.keySet().forEach(group -> lag.put(group, Backlog.ofGroup(lagReadings, group)));
        Map<String, LatencySamples.Summary> processed = new LinkedHashMap<>();
        processing.latencies().forEach((name, samples) -> processed.put(name, samples.summary()));
        Map<String, LatencySamples.Summary> stages = new LinkedHashMap<>();
        processing.stages().forEach((name, samples) -> stages.put(name, samples.summary()));
        double seconds = window.toNanos() / 1e9;
        Map<String, Double> perOrder = new LinkedHashMap<>();
        cores.forEach((name, c) -> perOrder.put(name, c * seconds * 1000 / Math.max(1, loaded.accepted())));
        Missing missing = new Missing(
                loaded.accepted() - processed.get(OrderTimings.ALL).count(),
                loaded.accepted() - processed.get(OrderTimings.CONFIRMED).count(),
                loaded.accepted() - processed.get(OrderTimings.MAILED).count());
        return new RunFigures(
                broker,
                offeredPerSecond,
                loaded.accepted() / seconds,
                loaded.latency().percentileMillis(50),
                loaded.latency().percentileMillis(99),
                lag,
                mails,
                processed,
                processing.trends(),
                stages,
                missing,
                drainMillis,
                cores,
                batches,
                relays,
                perOrder,
                brokerMemory);
    }

    /**
     * Whether everything kept up: each part's delay ({@link OrderTimings#PARTS}: the three consumer groups, inventory's
     * relay, the saga consumer, the mails) grew by less than 20 ms a second over the window (its backlog by less than 2%
     * of the rate; see {@link DelayTrend}), the pending mails stayed bounded ({@link #pendingMailsBounded}), and every
     * order was processed, confirmed and mailed within the drain.
     */
    boolean keptUp() {
        return !Double.isNaN(drainMillis)
                && OrderTimings.PARTS.stream()
                        .allMatch(part -> delay.containsKey(part.name())
                                && delay.get(part.name()).keptUp())
                && pendingMailsBounded();
    }

    /**
     * Whether the pending mails stayed bounded over the window: they grew by less than 2% of the offered rate a second
     * (the same bound as a part's delay, 20 ms a second: at that growth the newest mail waits 20 ms longer each
     * second). A sender that stalls and then sends a burst in the drain delivers every mail, yet did not keep pace.
     */
    boolean pendingMailsBounded() {
        double growth = mails.pending().growthPerSecond();
        return !Double.isNaN(growth) && growth < PENDING_MAILS_GROWTH_SHARE * offeredPerSecond;
    }

    /** The pending mails' growth, as a share of the offered rate per second, below which they count as bounded. */
    static final double PENDING_MAILS_GROWTH_SHARE = 0.02;

    /**
     * Whether the platform sustained the offered rate: everything kept up, and order-service accepted at least 95% of
     * it (the rest not sent, as at most {@code --max-in-flight} were outstanding, or refused).
     */
    boolean sustained() {
        return keptUp() && acceptedPerSecond >= 0.95 * offeredPerSecond;
    }

    void print(PrintStream out, OpenLoopLoad.Result loaded, Duration window) {
        out.printf(
                Locale.ROOT,
                "  load: %,d due in the %d s window, %,d accepted (%.1f/s), %,d failed %s, %,d not sent; HTTP from due"
                        + " time p50 %s, p99 %s ms%n",
                loaded.scheduled(),
                window.toSeconds(),
                loaded.accepted(),
                acceptedPerSecond,
                loaded.failed(),
                loaded.failures(),
                loaded.notSent(),
                OrdersTable.format(httpP50),
                OrdersTable.format(httpP99));
        lag.forEach((group, l) -> out.printf(
                Locale.ROOT,
                "  lag %-21s on %-9s max %,d, mean %,.0f records, growth %+.1f records/s (%d readings)%n",
                group,
                PlatformBenchmark.GROUPS.get(group),
                l.max(),
                l.mean(),
                l.growthPerSecond(),
                l.readings()));
        out.printf(
                Locale.ROOT,
                "  pending mails max %,d, mean %,.0f, growth %+.1f mails/s (%d readings); SMTP accepted %.1f mails/s in"
                        + " the window (%,d resent, %,d unidentified in the measurement)%n",
                mails.pending().max(),
                mails.pending().mean(),
                mails.pending().growthPerSecond(),
                mails.pending().readings(),
                mails.acceptedPerSecond(),
                mails.resent(),
                mails.unidentified());
        processed.forEach((name, s) -> out.printf(
                Locale.ROOT,
                "  %-45s p50 %s, p99 %s, max %s ms (%,d orders)%n",
                latencyName(name),
                OrdersTable.format(s.percentileMillis(50)),
                OrdersTable.format(s.percentileMillis(99)),
                OrdersTable.format(s.maxMillis()),
                s.count()));
        stages.forEach((name, s) -> out.printf(
                Locale.ROOT,
                "  stage %-50s p50 %s, p99 %s ms (%,d orders)%n",
                name,
                OrdersTable.format(s.percentileMillis(50)),
                OrdersTable.format(s.percentileMillis(99)),
                s.count()));
        for (OrderTimings.Part part : OrderTimings.PARTS) {
            DelayTrend trend = delay.get(part.name());
            out.printf(
                    Locale.ROOT,
                    "  kept up %-22s %-45s growth %+.1f ms/s: %s%n",
                    part.name(),
                    part.delay(),
                    trend.growthMillisPerSecond(),
                    trend.keptUp() ? "yes" : "NO");
        }
        relays.forEach((relay, r) -> out.printf(
                Locale.ROOT,
                "  relay %-22s %,.0f requests of %s records%n",
                relay,
                r.requests(),
                OrdersTable.format(r.recordsPerRequest())));
        batches.forEach((consumer, b) -> out.printf(
                Locale.ROOT,
                "  batches %-21s %,.0f of %s records, %s ms each, busy %s of the window; %,.0f fetches of %s records%n",
                consumer,
                b.batches(),
                OrdersTable.format(b.recordsPerBatch()),
                OrdersTable.format(b.millisPerBatch()),
                OrdersTable.format(b.busyShare(window)),
                b.fetches(),
                OrdersTable.format(b.recordsPerFetch())));
        out.printf(
                Locale.ROOT,
                "  accepted orders not processed by all three %,d, not confirmed %,d, not mailed %,d; drained %s;"
                        + " everything kept up: %s%n",
                missing.notProcessedByAll(),
                missing.notConfirmed(),
                missing.notMailed(),
                Double.isNaN(drainMillis)
                        ? "NOT within the drain period"
                        : OrdersTable.format(drainMillis) + " ms after the window",
                keptUp() ? "yes" : "NO");
        StringBuilder cpu = new StringBuilder("  CPU in the window (cores of "
                + Runtime.getRuntime().availableProcessors() + ") and per accepted order (ms):");
        cores.forEach((name, c) -> cpu.append(String.format(
                Locale.ROOT,
                " %s %s / %s,",
                name,
                OrdersTable.format(c),
                OrdersTable.format(cpuMillisPerOrder.get(name)))));
        out.println(cpu.substring(0, cpu.length() - 1));
        out.printf(
                Locale.ROOT,
                "  broker RSS %s MiB at the end of the window, peak %s MiB; sustained %,d/s: %s%n",
                OrdersTable.format(brokerMemory.endOfWindowMiB()),
                OrdersTable.format(brokerMemory.peakMiB()),
                offeredPerSecond,
                sustained() ? "yes" : "NO");
    }

    /** How {@link #processed}' keys read: "accepted -> processed by inventory-service", "accepted -> confirmed". */
    static String latencyName(String key) {
        return switch (key) {
            case OrderTimings.ALL -> "accepted -> processed by all three";
            case OrderTimings.CONFIRMED -> "accepted -> confirmed";
            case OrderTimings.MAILED -> "accepted -> mail accepted by SMTP";
            default -> "accepted -> processed by " + key;
        };
    }
}
