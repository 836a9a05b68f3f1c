package io.orderflow.ops.bench.orders;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * {@code POST /orders} at a fixed arrival rate: request {@code i} is due at {@code start + i / rate}, whether or not
 * the earlier ones have been answered (open loop). Each request is sent from its own virtual thread, and its latency
 * runs from the time it was <em>due</em>, not from when it happened to be sent: a service that stalls for a second
 * is charged that second for every request that fell due meanwhile, which a closed-loop generator (send, wait, send)
 * would leave out ("coordinated omission").
 *
 * <p>The generator is the only client, so it bounds itself: at most {@code maxInFlight} requests outstanding. A
 * request due while that many are outstanding is not sent, and counted as such: it means the service is not keeping
 * up with the rate, and the accepted rate shows it.
 *
 * <p>Requests are distinct orders: a random customer of 100,000, one to three lines of random SKUs of 10,000 (seeded,
 * so every run sends the same sequence of orders). Requests due during the warm-up are sent alike and counted apart.
 *
 * <p>One instance runs once; {@link #run} is called from one thread, and the virtual threads report into
 * thread-safe counters.
 */
final class OpenLoopLoad {
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration COMPLETION_TIMEOUT = Duration.ofSeconds(60);

    private final HttpClient client;
    private final URI orders;
    private final int rate;
    private final int maxInFlight;
    private final boolean idempotencyKeys;

    private final AtomicInteger inFlight = new AtomicInteger();
    private final LongAdder warmupAccepted = new LongAdder();
    private final LongAdder accepted = new LongAdder();
    private final LongAdder notSent = new LongAdder();
    private final Map<String, LongAdder> failures = new ConcurrentHashMap<>();
    private final Map<String, String> firstFailureDetail = new ConcurrentHashMap<>();
    private final LatencySamples latency = new LatencySamples();
    private final LatencySamples serviceTime = new LatencySamples();
    private final LatencySamples sendLag = new LatencySamples();
    private final Map<String, Long> acceptedAtMicros = new ConcurrentHashMap<>();

    OpenLoopLoad(HttpClient client, URI baseUri, int rate, int maxInFlight, boolean idempotencyKeys) {
        this.client = client;
        this.orders = baseUri.resolve("/orders");
        this.rate = rate;
        this.maxInFlight = maxInFlight;
        this.idempotencyKeys = idempotencyKeys;
    }

    /**
     * Sends from {@code startNanos} ({@link System#nanoTime()}) for {@code warmup} plus {@code measured}, then waits
     * up to a minute for the outstanding answers. Requests due from {@code startNanos + warmup} on are measured.
     */
    Result run(long startNanos, Duration warmup, Duration measured) throws InterruptedException {
        long total = (long) rate * (warmup.toSeconds() + measured.toSeconds());
        long measuredFrom = startNanos + warmup.toNanos();
        double periodNanos = 1e9 / rate;
        SplittableRandom random = new SplittableRandom(42);
        long scheduled = 0;
        for (long i = 0; i < total; i++) {
            long due = startNanos + Math.round(i * periodNanos);
            long wait;
            while ((wait = due - System.nanoTime()) > 0) {
                LockSupport.parkNanos(wait);
            }
            boolean isMeasured = due >= measuredFrom;
            if (isMeasured) {
                scheduled++;
                sendLag.add((System.nanoTime() - due) / 1_000);
            }
            if (inFlight.get() >= maxInFlight) {
                if (isMeasured) {
                    notSent.increment();
                }
                continue;
            }
            String body = orderBody(random);
            inFlight.incrementAndGet();
            Thread.startVirtualThread(() -> send(body, due, isMeasured));
        }
        long deadline = System.nanoTime() + COMPLETION_TIMEOUT.toNanos();
        while (inFlight.get() > 0 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        return new Result(
                scheduled,
                warmupAccepted.sum(),
                accepted.sum(),
                notSent.sum(),
                inFlight.get(),
                failureCounts(),
                Map.copyOf(firstFailureDetail),
                latency.summary(),
                serviceTime.summary(),
                sendLag.summary(),
                Map.copyOf(acceptedAtMicros));
    }

    private Map<String, Long> failureCounts() {
        Map<String, Long> counts = new TreeMap<>();
        failures.forEach((kind, count) -> counts.put(kind, count.sum()));
        return counts;
    }

    private void send(String body, long due, boolean isMeasured) {
        HttpRequest.Builder request = HttpRequest.newBuilder(orders)
                .timeout(REQUEST_TIMEOUT)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body));
        if (idempotencyKeys) {
            request.header("Idempotency-Key", UUID.randomUUID().toString());
        }
        long sentAt = System.nanoTime();
        try {
            HttpResponse<String> response = client.send(request.build(), HttpResponse.BodyHandlers.ofString());
            long answeredAt = System.nanoTime();
            long answeredWallMicros = WallClock.micros();
            if (response.statusCode() != 201) {
                failed("HTTP " + response.statusCode(), response.body(), isMeasured);
                return;
            }
            if (!isMeasured) {
                warmupAccepted.increment();
                return;
            }
            String location = response.headers().firstValue("Location").orElse("");
            String orderId = location.substring(location.lastIndexOf('/') + 1);
            accepted.increment();
            latency.add((answeredAt - due) / 1_000);
            serviceTime.add((answeredAt - sentAt) / 1_000);
            acceptedAtMicros.put(orderId, answeredWallMicros);
        } catch (IOException e) {
            failed(e.getClass().getSimpleName(), String.valueOf(e.getMessage()), isMeasured);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            failed("interrupted", "", isMeasured);
        } finally {
            inFlight.decrementAndGet();
        }
    }

    private void failed(String kind, String detail, boolean isMeasured) {
        if (isMeasured) {
            failures.computeIfAbsent(kind, k -> new LongAdder()).increment();
            firstFailureDetail.putIfAbsent(kind, detail.length() > 300 ? detail.substring(0, 300) + "..." : detail);
        }
    }

    /** One order as the REST API takes it; 1-3 lines, quantities 1-5, prices with cents. */
    static String orderBody(SplittableRandom random) {
        StringBuilder body = new StringBuilder(200)
                .append("{\"customerId\":\"customer-")
                .append(random.nextInt(100_000))
                .append("\",\"currency\":\"EUR\",\"channel\":\"web\",\"items\":[");
        int lines = 1 + random.nextInt(3);
        for (int line = 0; line < lines; line++) {
            if (line > 0) {
                body.append(',');
            }
            int cents = 100 + random.nextInt(99_900);
            body.append("{\"sku\":\"SKU-")
                    .append(random.nextInt(10_000))
                    .append("\",\"quantity\":")
                    .append(1 + random.nextInt(5))
                    .append(",\"unitPrice\":\"")
                    .append(cents / 100)
                    .append(cents % 100 < 10 ? ".0" : ".")
                    .append(cents % 100)
                    .append("\"}");
        }
        return body.append("]}").toString();
    }

    /**
     * What the generator saw in the measured window.
     *
     * @param scheduled requests that fell due in the window
     * @param warmupAccepted 201s for requests due during the warm-up (not otherwise counted)
     * @param accepted 201s for requests due in the window, however late they came
     * @param notSent requests not sent because {@code maxInFlight} were outstanding
     * @param unanswered requests still outstanding a minute after the last one was due
     * @param failures other answers and errors, by kind ("HTTP 500", "HttpTimeoutException")
     * @param failureDetails the first body or message of each kind
     * @param latency from due to answered, accepted requests only
     * @param serviceTime from sent to answered, accepted requests only
     * @param sendLag how late the generator itself dispatched each request (CPU starvation of the driver)
     * @param acceptedAtMicros order id to the wall time its 201 arrived, for the window's accepted orders
     */
    record Result(
            long scheduled,
            long warmupAccepted,
            long accepted,
            long notSent,
            long unanswered,
            Map<String, Long> failures,
            Map<String, String> failureDetails,
            LatencySamples.Summary latency,
            LatencySamples.Summary serviceTime,
            LatencySamples.Summary sendLag,
            Map<String, Long> acceptedAtMicros) {

        long failed() {
            return failures.values().stream().mapToLong(Long::longValue).sum();
        }
    }
}
