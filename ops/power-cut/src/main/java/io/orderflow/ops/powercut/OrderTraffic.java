package io.orderflow.ops.powercut;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.orderflow.ops.drill.DrillTarget;
import io.orderflow.ops.load.LifecycleMix;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Phaser;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * Orders through their whole lifecycle over HTTP, as customers and a shop would drive them, with a record of what the
 * platform acknowledged: each order placed ({@code POST /orders}, 201), inventory's answer seen ({@code GET}, CONFIRMED
 * or REJECTED), and a confirmed order then taken through {@code ops/bin/load}'s default lifecycle mix ({@link
 * LifecycleMix}: paid with probability 0.8, a paid order shipped with 0.6, an order not shipped cancelled with 0.2),
 * each step a {@code POST} answered 200. What was asked and not answered (the platform's power was cut meanwhile) is
 * recorded as attempted: it may or may not have happened, and nothing after it is asked for that order.
 *
 * <p>Each order has a customer id of its own ({@code <prefix><uuid>}, the prefix the run's), which its {@code
 * OrderCreated} carries, so an order whose placement was never answered can still be told apart from an invented one. A fifth of the orders are for
 * {@code sku-sold-out}, which inventory rejects; the others for one SKU of the run. The lifecycle's draws are seeded by
 * the customer id. {@link #pause()} stops placing orders and waits for those under way, so that a checker sees the
 * platform quiet; {@link #resume()} goes on. Thread-safe.
 */
public final class OrderTraffic implements AutoCloseable {
    public static final String SOLD_OUT = "sku-sold-out";
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(10);
    private static final Duration ANSWER_WAIT = Duration.ofSeconds(60);
    /** What happens to a confirmed order: {@code ops/bin/load}'s default mix. */
    static final LifecycleMix MIX = LifecycleMix.DEFAULT;

    /** What happened to one order, in the order it happened. */
    public static final class History {
        final String customer;
        final String sku;
        volatile String orderId;
        /** Statuses the platform answered with, oldest first. */
        final List<String> acknowledged = new ArrayList<>();
        /** A status asked for and never answered: the request was in flight when the power went. */
        volatile String attempted;
        /** How many power cuts had happened when the order was placed. */
        final int cutsBefore;

        History(String customer, String sku, int cutsBefore) {
            this.customer = customer;
            this.sku = sku;
            this.cutsBefore = cutsBefore;
        }

        synchronized void acknowledge(String status) {
            acknowledged.add(status);
        }

        synchronized List<String> acknowledged() {
            return List.copyOf(acknowledged);
        }

        synchronized String lastAcknowledged() {
            return acknowledged.isEmpty() ? null : acknowledged.getLast();
        }
    }

    private final URI orderService;
    private final String customerPrefix;
    private final String sku;
    private final int rate;
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private final ObjectMapper json = new ObjectMapper();
    private final ScheduledExecutorService ticks = Executors.newSingleThreadScheduledExecutor();
    private final ExecutorService lifecycles = Executors.newVirtualThreadPerTaskExecutor();
    private final Map<String, History> byCustomer = new ConcurrentHashMap<>();
    private final AtomicBoolean running = new AtomicBoolean();
    private final AtomicInteger cuts = new AtomicInteger();
    private final Phaser underWay = new Phaser(1);
    private final SplittableRandom customers; // guarded by this
    private final Map<String, LongAdder> answers = new ConcurrentHashMap<>();

    public OrderTraffic(URI orderService, String customerPrefix, String sku, int rate) {
        this(
                orderService,
                customerPrefix,
                sku,
                rate,
                ThreadLocalRandom.current().nextLong());
    }

    /**
     * Orders whose customer ids, and so whose lifecycles, are drawn from {@code seed}: the n-th order placed is the same
     * customer's, and meets the same fate, in every run with that seed.
     */
    public OrderTraffic(URI orderService, String customerPrefix, String sku, int rate, long seed) {
        this.orderService = orderService;
        this.customerPrefix = customerPrefix;
        this.sku = sku;
        this.rate = rate;
        this.customers = new SplittableRandom(seed);
    }

    /** Sets the stock of {@code sku} through inventory-service's admin endpoint, before traffic for it starts. */
    static void stock(DrillTarget target, String sku, long onHand) throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(
                        target.inventoryService().resolve("/inventory/" + sku))
                .timeout(REQUEST_TIMEOUT)
                .header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString("{\"onHand\":" + onHand + "}"));
        if (target.adminToken() != null) {
            request.header("Authorization", "Bearer " + target.adminToken());
        }
        HttpResponse<String> answer =
                HttpClient.newHttpClient().send(request.build(), HttpResponse.BodyHandlers.ofString());
        if (answer.statusCode() != 200) {
            throw new IOException("PUT /inventory/" + sku + " answered " + answer.statusCode() + ": " + answer.body());
        }
    }

    /** Places {@code rate} orders a second from now on, each followed through its lifecycle. */
    public void start() {
        running.set(true);
        ticks.scheduleAtFixedRate(this::placeOne, 0, 1_000_000 / rate, TimeUnit.MICROSECONDS);
    }

    /** Places {@code count} orders at once, besides those of the steady rate (none while paused or stopped). */
    public synchronized void burst(int count) {
        for (int i = 0; i < count; i++) {
            placeOne();
        }
    }

    private synchronized void placeOne() {
        if (running.get()) {
            underWay.register();
            String customer = customerPrefix + new UUID(customers.nextLong(), customers.nextLong());
            lifecycles.submit(() -> {
                try {
                    lifecycle(customer);
                } finally {
                    underWay.arriveAndDeregister();
                }
            });
        }
    }

    /** Places no more orders until {@link #resume()}, and waits for every lifecycle under way to end. */
    void pause() throws InterruptedException {
        int phase;
        synchronized (this) {
            running.set(false);
            phase = underWay.arrive();
        }
        try {
            underWay.awaitAdvanceInterruptibly(phase, ANSWER_WAIT.toSeconds() + 60, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            throw new IllegalStateException("orders under way did not end within " + ANSWER_WAIT.plusSeconds(60), e);
        }
    }

    /** Places orders again after {@link #pause()}. */
    void resume() {
        running.set(true);
    }

    /** What was asked and acknowledged so far, with the run it belongs to. */
    public OrderJournal journal(long sinceMillis, long stockOnHand) {
        return OrderJournal.of(
                new OrderJournal.Run(customerPrefix, sku, stockOnHand, sinceMillis), byCustomer.values());
    }

    /** Counts a power cut: orders placed from now on were placed after it. */
    void cut() {
        cuts.incrementAndGet();
    }

    /** Places no more orders, and waits for every lifecycle under way to end. */
    public void stop() throws InterruptedException {
        running.set(false);
        ticks.shutdown();
        ticks.awaitTermination(10, TimeUnit.SECONDS);
        lifecycles.shutdown();
        lifecycles.awaitTermination(ANSWER_WAIT.toSeconds() + 60, TimeUnit.SECONDS);
    }

    /** The orders whose placement was acknowledged, with their histories. */
    public List<History> placed() {
        return byCustomer.values().stream().filter(h -> h.orderId != null).toList();
    }

    @Override
    public void close() {
        running.set(false);
        ticks.shutdownNow();
        lifecycles.shutdownNow();
    }

    private void lifecycle(String customer) {
        SplittableRandom draws = new SplittableRandom(customer.hashCode());
        String item = draws.nextInt(5) == 0 ? SOLD_OUT : sku;
        History history = new History(customer, item, cuts.get());
        byCustomer.put(customer, history);
        try {
            history.attempted = "CREATED";
            JsonNode created = post(
                    history,
                    orderService.resolve("/orders"),
                    "{\"customerId\":\"" + customer + "\",\"currency\":\"EUR\",\"items\":[{\"sku\":\"" + item
                            + "\",\"quantity\":1,\"unitPrice\":\"2.50\"}]}",
                    201);
            if (created == null) {
                return;
            }
            history.orderId = created.get("id").asText();
            answered(history, "CREATED");
            String answer = awaitAnswer(history.orderId);
            if (answer == null) {
                return;
            }
            history.acknowledge(answer);
            if (!answer.equals("CONFIRMED")) {
                return;
            }
            // ops/bin/load's mix, drawn in its order: paid, then shipped, else perhaps cancelled
            URI order = orderService.resolve("/orders/" + history.orderId + "/");
            boolean paid = draws.nextDouble() < MIX.pay();
            if (paid && !step(history, order.resolve("pay"), "PAID")) {
                return;
            }
            boolean shipped = paid && draws.nextDouble() < MIX.ship();
            if (shipped) {
                step(history, order.resolve("ship"), "SHIPPED");
            } else if (draws.nextDouble() < MIX.cancel()) {
                step(history, order.resolve("cancel"), "CANCELLED");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private boolean step(History history, URI uri, String status) throws InterruptedException {
        history.attempted = status;
        if (post(history, uri, "{}", 200) == null) {
            return false;
        }
        answered(history, status);
        return true;
    }

    private static void answered(History history, String status) {
        history.acknowledge(status);
        history.attempted = null;
    }

    /** inventory's answer as order-service shows it, read until the order left CREATED; null if never seen. */
    private String awaitAnswer(String orderId) throws InterruptedException {
        long deadline = System.nanoTime() + ANSWER_WAIT.toNanos();
        long pause = 100;
        while (System.nanoTime() < deadline) {
            try {
                HttpResponse<String> answer = http.send(
                        HttpRequest.newBuilder(orderService.resolve("/orders/" + orderId))
                                .timeout(REQUEST_TIMEOUT)
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
                if (answer.statusCode() == 200) {
                    String status = json.readTree(answer.body()).path("status").asText();
                    if (Set.of("CONFIRMED", "REJECTED").contains(status)) {
                        return status;
                    }
                }
            } catch (IOException unreachable) {
                // the platform is down: keep asking until it is back
            }
            Thread.sleep(pause); // polling an HTTP API for a state change: the customer's view
            pause = Math.min(1_000, pause * 2);
        }
        return null;
    }

    /**
     * The answer's JSON if it had {@code status}; else null, and the history's attempt cleared when the request surely
     * did nothing (a 4xx, or the connection refused) and kept when it may have (no answer, or a 5xx).
     */
    private JsonNode post(History history, URI uri, String body, int status) throws InterruptedException {
        try {
            HttpResponse<String> answer = http.send(
                    HttpRequest.newBuilder(uri)
                            .timeout(REQUEST_TIMEOUT)
                            .header("Content-Type", "application/json")
                            .POST(HttpRequest.BodyPublishers.ofString(body))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            count(Integer.toString(answer.statusCode()));
            if (answer.statusCode() == status) {
                return json.readTree(answer.body());
            }
            if (answer.statusCode() < 500) {
                history.attempted = null; // refused: nothing was done
            } // a 5xx may come after the commit (the database's connection broke before it answered): uncertain
            return null;
        } catch (java.net.ConnectException refused) {
            count("refused");
            history.attempted = null;
            return null;
        } catch (IOException noAnswer) {
            count("no answer");
            return null;
        }
    }

    private void count(String answer) {
        answers.computeIfAbsent(answer, key -> new LongAdder()).increment();
    }

    /**
     * How order-service answered the orders' {@code POST}s so far: by status code, {@code refused} (no connection) and
     * {@code no answer} (none within 10 s, or the connection broke).
     */
    public Map<String, Long> answers() {
        Map<String, Long> counts = new TreeMap<>();
        answers.forEach((answer, count) -> counts.put(answer, count.sum()));
        return counts;
    }
}
