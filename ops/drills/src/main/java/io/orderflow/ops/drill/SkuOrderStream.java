package io.orderflow.ops.drill;

import io.orderflow.ops.load.OpenLoopLoad;
import java.io.IOException;
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
 * SKU's reserved stock must rise by exactly one unit an accepted order. Thread-safe; one run per instance.
 */
final class SkuOrderStream {

    private final PlatformProbe probe;
    private final String customer;
    private final String sku;
    private final int rate;
    private final Duration duration;
    private final Queue<String> accepted = new ConcurrentLinkedQueue<>();
    private final AtomicInteger refused = new AtomicInteger();
    private Thread sender;

    SkuOrderStream(PlatformProbe probe, String customer, String sku, int rate, Duration duration) {
        this.probe = probe;
        this.customer = customer;
        this.sku = sku;
        this.rate = rate;
        this.duration = duration;
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
                    orders.execute(this::placeOne);
                }
            } // waits for the answers
        });
    }

    private void placeOne() {
        try {
            accepted.add(probe.placeOrder(customer, sku));
        } catch (IOException e) {
            refused.incrementAndGet();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
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
        return List.copyOf(accepted);
    }

    /** Orders refused or not answered. */
    int refused() {
        return refused.get();
    }
}
