package io.orderflow.ops.load;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What happens to an order after it is accepted, as the load's mix says: paid with probability {@code pay}, then
 * shipped with probability {@code ship}; an order not shipped is cancelled with probability {@code cancel}. Each
 * order's transitions run in order on a virtual thread of their own ({@code POST /orders/{id}/pay}, {@code /ship},
 * {@code /cancel}), so a slow answer delays only its order. The draws are seeded by the order id, so an order's fate
 * does not depend on timing. Outcomes are counted per transition and answer ("pay 200", "ship 409", "cancel
 * ConnectException").
 *
 * <p><b>Inventory's answer first.</b> An order is paid only once inventory has reserved it (the saga: it is
 * {@code CONFIRMED}), so before paying, the lifecycle reads the order ({@code GET /orders/{id}}) until it has left
 * {@code CREATED}: after 100 ms, then at doubling intervals up to 1 s, for at most {@code answerTimeout}. The answer is
 * counted ("inventory CONFIRMED", "inventory REJECTED", or "inventory unanswered" when the time ran out, a failure). A
 * rejected order ends there. An order that is not to be paid but cancelled is cancelled at once, which may cross
 * inventory's answer in flight; if inventory rejected it first, the cancel's 409 is counted as "cancel after
 * rejection", not as a failure.
 *
 * <p>Thread-safe: {@link #start} is called from the generator's event loop; {@link #awaitAll} from the main thread.
 */
final class OrderLifecycles implements AutoCloseable {

    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final Duration FIRST_LOOK = Duration.ofMillis(100);
    private static final Duration LONGEST_LOOK = Duration.ofSeconds(1);
    /** The outcomes that are not failures though their answer is not 200. */
    private static final Set<String> EXPECTED =
            Set.of("inventory CONFIRMED", "inventory REJECTED", "cancel after rejection");

    private final URI orders;
    private final double pay;
    private final double ship;
    private final double cancel;
    private final Duration answerTimeout;
    private static final Pattern STATUS = Pattern.compile("\"status\"\\s*:\\s*\"([A-Z]+)\"");
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();
    private final Map<String, LongAdder> outcomes = new ConcurrentHashMap<>();

    OrderLifecycles(URI baseUrl, double pay, double ship, double cancel, Duration answerTimeout) {
        this.orders = baseUrl.resolve("/orders/");
        this.pay = pay;
        this.ship = ship;
        this.cancel = cancel;
        this.answerTimeout = answerTimeout;
    }

    /** Starts {@code orderId}'s lifecycle; returns at once. */
    void start(String orderId) {
        threads.execute(() -> run(orderId));
    }

    private void run(String orderId) {
        SplittableRandom draws = new SplittableRandom(orderId.hashCode());
        boolean paid = false;
        if (draws.nextDouble() < pay) {
            String answer = inventorysAnswer(orderId);
            record("inventory " + answer);
            if (!answer.equals("CONFIRMED")) {
                return; // rejected (final), or no answer in time (a failure, counted)
            }
            paid = transition(orderId, "pay", "{\"paymentReference\":\"pay-load\"}");
        }
        boolean shipped = paid
                && draws.nextDouble() < ship
                && transition(orderId, "ship", "{\"carrier\":\"load\",\"trackingNumber\":\"T-" + orderId + "\"}");
        if (!shipped && draws.nextDouble() < cancel) {
            transition(orderId, "cancel", "{\"reason\":\"load generator\"}");
        }
    }

    /**
     * The order's status once it has left CREATED ("CONFIRMED" or "REJECTED", or another status a cancel set), or
     * "unanswered" if it had not within {@code answerTimeout}.
     */
    private String inventorysAnswer(String orderId) {
        long deadline = System.nanoTime() + answerTimeout.toNanos();
        Duration look = FIRST_LOOK;
        while (true) {
            try {
                Thread.sleep(look); // polling the order as a client would, not synchronisation
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return "interrupted";
            }
            String status = status(orderId);
            if (status != null && !status.equals("CREATED")) {
                return status;
            }
            if (System.nanoTime() > deadline) {
                return "unanswered";
            }
            look = look.multipliedBy(2).compareTo(LONGEST_LOOK) > 0 ? LONGEST_LOOK : look.multipliedBy(2);
        }
    }

    /** The order's {@code status} as {@code GET /orders/{id}} shows it, or null if it could not be read. */
    private String status(String orderId) {
        try {
            HttpResponse<String> response = http.send(
                    HttpRequest.newBuilder(orders.resolve(orderId))
                            .timeout(TIMEOUT)
                            .GET()
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != 200) {
                return null;
            }
            Matcher status = STATUS.matcher(response.body());
            return status.find() ? status.group(1) : null;
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    private void record(String outcome) {
        outcomes.computeIfAbsent(outcome, k -> new LongAdder()).increment();
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
            if (response.statusCode() == 409 && action.equals("cancel") && "REJECTED".equals(status(orderId))) {
                record("cancel after rejection");
                return false;
            }
        } catch (IOException e) {
            outcome = e.getClass().getSimpleName();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            outcome = "interrupted";
        }
        record(action + " " + outcome);
        return accepted;
    }

    /** Transitions so far by action and answer, e.g. {@code {"pay 200": 812, "ship 200": 480}}. */
    Map<String, Long> outcomes() {
        Map<String, Long> counts = new TreeMap<>();
        outcomes.forEach((key, count) -> counts.put(key, count.sum()));
        return counts;
    }

    /** Outcomes {@code key} so far, e.g. "inventory REJECTED". */
    long count(String key) {
        LongAdder count = outcomes.get(key);
        return count == null ? 0 : count.sum();
    }

    /** Accepted transitions of {@code action} so far. */
    long accepted(String action) {
        LongAdder count = outcomes.get(action + " 200");
        return count == null ? 0 : count.sum();
    }

    /**
     * Transitions that were not accepted (any answer but 200, or none), and orders inventory did not answer in time;
     * a rejection, and a cancel that came after it, are not failures.
     */
    long failed() {
        return outcomes().entrySet().stream()
                .filter(entry -> !entry.getKey().endsWith(" 200") && !EXPECTED.contains(entry.getKey()))
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
