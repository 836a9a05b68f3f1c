package io.orderflow.ops.load;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * What happens to an order after it is accepted, as the load's mix says: paid with probability {@code pay}, then
 * shipped with probability {@code ship}; an order not shipped is cancelled with probability {@code cancel}. Each
 * order's transitions run in order on a virtual thread of their own ({@code POST /orders/{id}/pay}, {@code /ship},
 * {@code /cancel}), so a slow answer delays only its order. The draws are seeded by the order id, so an order's fate
 * does not depend on timing. Outcomes are counted per transition and answer ("pay 200", "ship 409", "cancel
 * ConnectException").
 *
 * <p>Thread-safe: {@link #start} is called from the generator's event loop; {@link #awaitAll} from the main thread.
 */
final class OrderLifecycles implements AutoCloseable {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);

    private final URI orders;
    private final double pay;
    private final double ship;
    private final double cancel;
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
    private final Map<String, LongAdder> outcomes = new ConcurrentHashMap<>();

    OrderLifecycles(URI baseUrl, double pay, double ship, double cancel) {
        this.orders = baseUrl.resolve("/orders/");
        this.pay = pay;
        this.ship = ship;
        this.cancel = cancel;
    }

    /** Starts {@code orderId}'s lifecycle; returns at once. */
    void start(String orderId) {
        threads.execute(() -> run(orderId));
    }

    private void run(String orderId) {
        SplittableRandom draws = new SplittableRandom(orderId.hashCode());
        boolean paid = draws.nextDouble() < pay && transition(orderId, "pay", "{\"paymentReference\":\"pay-load\"}");
        boolean shipped = paid
                && draws.nextDouble() < ship
                && transition(orderId, "ship", "{\"carrier\":\"load\",\"trackingNumber\":\"T-" + orderId + "\"}");
        if (!shipped && draws.nextDouble() < cancel) {
            transition(orderId, "cancel", "{\"reason\":\"load generator\"}");
        }
    }

    /** Sends one transition; true when it was accepted (200). */
    private boolean transition(String orderId, String action, String body) {
        String outcome;
        boolean accepted = false;
        try {
            HttpResponse<Void> response = http.send(
                    HttpRequest.newBuilder(orders.resolve(orderId + "/" + action))
                            .timeout(TIMEOUT)
                            .header("Content-Type", "application/json")
                            .POST(HttpRequest.BodyPublishers.ofString(body))
                            .build(),
                    HttpResponse.BodyHandlers.discarding());
            outcome = Integer.toString(response.statusCode());
            accepted = response.statusCode() == 200;
        } catch (IOException e) {
            outcome = e.getClass().getSimpleName();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            outcome = "interrupted";
        }
        outcomes.computeIfAbsent(action + " " + outcome, k -> new LongAdder()).increment();
        return accepted;
    }

    /** Transitions so far by action and answer, e.g. {@code {"pay 200": 812, "ship 200": 480}}. */
    Map<String, Long> outcomes() {
        Map<String, Long> counts = new TreeMap<>();
        outcomes.forEach((key, count) -> counts.put(key, count.sum()));
        return counts;
    }

    /** Accepted transitions of {@code action} so far. */
    long accepted(String action) {
        LongAdder count = outcomes.get(action + " 200");
        return count == null ? 0 : count.sum();
    }

    /** Transitions that were not accepted (any answer but 200, or none). */
    long failed() {
        return outcomes().entrySet().stream()
                .filter(entry -> !entry.getKey().endsWith(" 200"))
                .mapToLong(Map.Entry::getValue)
                .sum();
    }

    /** Waits up to {@code timeout} for every started lifecycle to end; false if some had not. */
    boolean awaitAll(Duration timeout) throws InterruptedException {
        threads.shutdown();
        return threads.awaitTermination(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    @Override
    public void close() {
        threads.shutdownNow();
        http.close();
    }
}
