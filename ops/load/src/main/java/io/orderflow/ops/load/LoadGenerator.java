package io.orderflow.ops.load;

import java.io.PrintStream;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * {@code ops/bin/load}: orders at a target rate for a duration against a running platform (either launcher), with a
 * customer distribution ({@link io.orderflow.ops.load.OrderBodies}) and a lifecycle mix ({@link
 * OrderLifecycles}). New orders go out open loop through the benchmarks' {@link OpenLoopLoad} (latency from when each
 * was due, so a stalled service is charged for the wait); a progress line every second; at the end the achieved rate,
 * latency percentiles and every answer that was not the expected one.
 *
 * <p>Exit code 0 when every request was answered as expected, 1 otherwise, 2 for a bad command line
 * ({@link LoadCommandLine}).
 */
public final class LoadGenerator {

    /** How long an order to be paid waits for inventory's answer (the saga drill stops inventory for a while). */
    static final Duration INVENTORY_ANSWER_TIMEOUT = Duration.ofSeconds(90);

    private static final Duration LIFECYCLE_WAIT = INVENTORY_ANSWER_TIMEOUT.plusSeconds(60);

    private LoadGenerator() {}

    public static void main(String[] args) {
        System.exit(LoadCommandLine.commandLine().execute(args));
    }

    /** Runs the load; true when every request was answered as expected. */
    static boolean run(LoadOptions options, PrintStream out) throws InterruptedException {
        out.printf(
                "orderflow load: %d orders/s for %d s to %s; customers: %s; out of stock %.2f; lifecycle: pay %.2f,"
                        + " ship %.2f, cancel %.2f; OrderCreated %s%n",
                options.rate(),
                options.duration().toSeconds(),
                options.url(),
                options.customers().name(),
                options.customers().outOfStockShare(),
                options.pay(),
                options.ship(),
                options.cancel(),
                options.eventVersions());
        int viaOrderService =
                (int) Math.round(options.rate() * options.eventVersions().viaOrderService());
        try (OrderLifecycles lifecycles = new OrderLifecycles(
                        options.url(), options.pay(), options.ship(), options.cancel(), INVENTORY_ANSWER_TIMEOUT);
                DirectOrders direct = new DirectOrders(
                        options.cluster(), options.rate(), options.duration(), options.eventVersions());
                OpenLoopLoad load = new OpenLoopLoad(
                        options.url(),
                        viaOrderService,
                        options.maxInFlight(),
                        false,
                        1,
                        options.customers(),
                        lifecycles::start)) {
            long start = System.nanoTime();
            direct.start(start);
            CompletableFuture<OpenLoopLoad.Result> done =
                    load.runInBackground(start, Duration.ZERO, options.duration());
            OpenLoopLoad.Result result = null;
            for (int second = 1; result == null; second++) {
                try {
                    result = done.get(start + second * 1_000_000_000L - System.nanoTime(), TimeUnit.NANOSECONDS);
                } catch (TimeoutException e) {
                    out.println(progress(second, load, lifecycles));
                } catch (ExecutionException e) {
                    throw new IllegalStateException("the load failed: " + e.getCause(), e.getCause());
                }
            }
            boolean lifecyclesEnded = lifecycles.awaitAll(LIFECYCLE_WAIT);
            direct.join();
            report(out, options, viaOrderService, result, lifecycles, lifecyclesEnded);
            if (!options.eventVersions().direct().isEmpty()) {
                out.println("  OrderCreated published on orders directly: " + direct.published() + ", failed "
                        + direct.failed());
            }
            return direct.failed() == 0
                    && result.failed() == 0
                    && result.notSent() == 0
                    && result.unanswered() == 0
                    && lifecycles.failed() == 0
                    && lifecyclesEnded;
        }
    }

    static String progress(int second, OpenLoopLoad load, OrderLifecycles lifecycles) {
        long accepted = load.acceptedSoFar();
        LatencySamples.Summary latency = load.latencySoFar();
        return String.format(
                "[%4ds] accepted %d (%.1f/s)  p50 %s  p99 %s  failed %d  | confirmed %d  rejected %d  paid %d  shipped"
                        + " %d  cancelled %d",
                second,
                accepted,
                accepted / (double) second,
                millis(latency, 50),
                millis(latency, 99),
                load.failedSoFar() + lifecycles.failed(),
                lifecycles.count("inventory CONFIRMED"),
                lifecycles.count("inventory REJECTED"),
                lifecycles.accepted("pay"),
                lifecycles.accepted("ship"),
                lifecycles.accepted("cancel"));
    }

    private static void report(
            PrintStream out,
            LoadOptions options,
            int viaOrderService,
            OpenLoopLoad.Result result,
            OrderLifecycles lifecycles,
            boolean lifecyclesEnded) {
        out.println();
        out.println("Result");
        out.printf(
                "  new orders: scheduled %d, accepted %d (%.1f/s achieved of %d/s), not sent %d, failed %d, unanswered"
                        + " %d%n",
                result.scheduled(),
                result.accepted(),
                result.accepted() / (double) options.duration().toSeconds(),
                viaOrderService,
                result.notSent(),
                result.failed(),
                result.unanswered());
        LatencySamples.Summary latency = result.latency();
        out.printf(
                "  latency, due to answered: p50 %s  p90 %s  p99 %s  p99.9 %s  max %s%n",
                millis(latency, 50),
                millis(latency, 90),
                millis(latency, 99),
                millis(latency, 99.9),
                latency.count() == 0 ? "-" : String.format("%.1f ms", latency.maxMillis()));
        LatencySamples.Summary service = result.serviceTime();
        LatencySamples.Summary lag = result.sendLag();
        out.printf(
                "  of which in the service, sent to answered: p50 %s  p99 %s;  the generator's own delay in sending: p50"
                        + " %s  p99 %s  max %s%n",
                millis(service, 50),
                millis(service, 99),
                millis(lag, 50),
                millis(lag, 99),
                lag.count() == 0 ? "-" : String.format("%.1f ms", lag.maxMillis()));
        result.failures()
                .forEach((kind, count) -> out.printf(
                        "  failed: %s x %d, first: %s%n",
                        kind, count, result.failureDetails().get(kind)));
        out.println("  lifecycle transitions by answer: " + format(lifecycles.outcomes()));
        if (!lifecyclesEnded) {
            out.println("  some lifecycles had not ended " + LIFECYCLE_WAIT.toSeconds() + " s after the last order");
        }
    }

    private static String format(Map<String, Long> counts) {
        return counts.isEmpty() ? "none" : counts.toString();
    }

    private static String millis(LatencySamples.Summary summary, double percentile) {
        return summary.count() == 0 ? "-" : String.format("%.1f ms", summary.percentileMillis(percentile));
    }
}
