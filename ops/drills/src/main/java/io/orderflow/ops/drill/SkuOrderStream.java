package io.orderflow.ops.drill;

import io.orderflow.ops.load.OpenLoopLoad;
import java.io.IOException;
import java.net.ConnectException;
import java.net.http.HttpConnectTimeoutException;
import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Orders of one unit of one SKU through {@code POST /orders} at a fixed rate for a while, open loop (each request on a
 * virtual thread of its own, due at {@code start + i / rate}): the load of the drills that count effects, since the
 * SKU's reserved stock must rise by exactly one unit an accepted order. Optionally a share of the orders asks for
 * another SKU instead ({@link #withOtherSku}: the sold-out one, which inventory rejects), spread evenly: order {@code i}
 * is one of them when {@code floor((i + 1) * share) > floor(i * share)}, so the share is exact and needs no seed.
 *
 * <p>An order that is not accepted is either <b>refused</b> (no connection: order-service is down, nothing reached it)
 * or <b>failed</b> (an answer other than 201, or the connection lost mid-request: order-service may have created the
 * order without the drill learning its id). Thread-safe; one run per instance.
 */
final class SkuOrderStream {

    /** An accepted order: its id, its SKU, and when its request was sent ({@link System#nanoTime()}). */
    record Placed(String id, String sku, long sentNanos) {}

    private final PlatformProbe probe;
    private final String customer;
    private final String sku;
    private final String otherSku;
    private final double otherShare;
    private final int rate;
    private final Duration duration;
    private final Queue<Placed> accepted = new ConcurrentLinkedQueue<>();
    private final AtomicInteger refused = new AtomicInteger();
    private final AtomicInteger failed = new AtomicInteger();
    private Thread sender;

    SkuOrderStream(PlatformProbe probe, String customer, String sku, int rate, Duration duration) {
        this(probe, customer, sku, null, 0, rate, duration);
    }

    private SkuOrderStream(
            PlatformProbe probe,
            String customer,
            String sku,
            String otherSku,
            double otherShare,
            int rate,
            Duration duration) {
        this.probe = probe;
        this.customer = customer;
        this.sku = sku;
        this.otherSku = otherSku;
        this.otherShare = otherShare;
        this.rate = rate;
        this.duration = duration;
    }

    /** This stream with {@code share} of its orders (0 to 1) asking for one unit of {@code other} instead. */
    SkuOrderStream withOtherSku(String other, double share) {
        if (!(share >= 0 && share <= 1)) {
            throw new IllegalArgumentException("the share of " + other + " must be in [0, 1], was " + share);
        }
        return new SkuOrderStream(probe, customer, sku, other, share, rate, duration);
    }

    /** Starts sending from now on, from a thread of its own. */
    void start() {
        long start = System.nanoTime();
        long total = rate * duration.toSeconds();
        sender = Thread.ofPlatform().name("drill-orders").start(() -> {
            try (ExecutorService orders = Executors.newVirtualThreadPerTaskExecutor()) {
                for (long i = 0; i < total; i++) {
                    try {
                        OpenLoopLoad.sleepUntil(start + i * 1_000_000_000L / rate);
                    } catch (InterruptedException e) {
                        return;
                    }
                    String skuOfOrder = otherSku != null && isOther(i, otherShare) ? otherSku : sku;
                    orders.execute(() -> placeOne(skuOfOrder));
                }
            } // waits for the answers
        });
    }

    /** True when order {@code i} (from 0) is one of the {@code share} asking for the other SKU. */
    static boolean isOther(long i, double share) {
        return Math.floor((i + 1) * share) > Math.floor(i * share);
    }

    private void placeOne(String skuOfOrder) {
        long sent = System.nanoTime();
        try {
            accepted.add(new Placed(probe.placeOrder(customer, skuOfOrder), skuOfOrder, sent));
        } catch (ConnectException | HttpConnectTimeoutException e) {
            refused.incrementAndGet();
        } catch (IOException e) {
            failed.incrementAndGet();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The customer every order is placed for. */
    String customer() {
        return customer;
    }

    /** True once every order has been sent and answered. */
    boolean isDone() {
        return !sender.isAlive();
    }

    /** Waits until every order has been sent and answered. */
    void join() throws InterruptedException {
        sender.join();
    }

    /** The accepted orders' ids, in the order their answers came. */
    List<String> accepted() {
        return placed().stream().map(Placed::id).toList();
    }

    /** The accepted orders, in the order their answers came. */
    List<Placed> placed() {
        return List.copyOf(accepted);
    }

    /** Orders not accepted: refused or failed. */
    int notAccepted() {
        return refused.get() + failed.get();
    }

    /** Orders refused: no connection to order-service. */
    int refused() {
        return refused.get();
    }

    /** Orders failed: answered otherwise than 201, or the connection lost mid-request. */
    int failed() {
        return failed.get();
    }
}
