package io.orderflow.ops.load;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.file.FileSystemOptions;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import java.net.ConnectException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

/**
 * {@code POST /orders} at a fixed arrival rate: request {@code i} is due at {@code start + i / rate}, whether or not
 * the earlier ones have been answered (open loop). Its latency runs from the time it was <em>due</em>, not from when
 * it happened to be sent: a service that stalls for a second is charged that second for every request that fell due
 * meanwhile, which a closed-loop generator (send, wait, send) would leave out ("coordinated omission").
 *
 * <p>The generator is the only client, so it bounds itself: at most {@code maxInFlight} requests outstanding. A
 * request due while that many are outstanding is not sent, and counted as such: it means the service is not keeping
 * up with the rate, and the accepted rate shows it.
 *
 * <p>Requests are distinct orders ({@link OrderBodies}: by default a random customer of 100,000, one to three lines of
 * random SKUs of the 1,000 in inventory-service's starting stock), seeded, so every run sends the same sequence. Requests due during the warm-up are sent alike and counted apart.
 *
 * <p>The generator runs on the machine it measures, so every CPU cycle it spends is taken from the service. The JDK's
 * {@code java.net.http.HttpClient} with a virtual thread per request cost 0.56 ms of CPU per request, more than a core
 * at the target 2,000 requests/s. So the requests go out through Vert.x core's asynchronous HTTP/1.1 client instead:
 * no thread per request, one event loop (by default) doing the sockets and recording the answers, keep-alive
 * connections reused from a pool (against a stub service on the same two cores, at 2,000/s: 0.2-0.3 ms of CPU per
 * request, against 0.6 ms for the JDK's client; about 0.06 ms of it is this thread parking until each request is due
 * and waking the event loop). The pool may hold {@code maxInFlight} connections, one per request the bound lets be
 * outstanding, so that it is never a second, hidden bound: no request waits in the client for a connection, its
 * service time is time spent with the service, and the service sees the concurrency the bound allows, as it did with
 * the JDK's client. Connections are opened lazily, one more whenever a request finds every open one busy, and kept
 * open for reuse. The first seconds open many (up to the bound: requests pile up while the client's code loads and
 * compiles, and each opens its own), as the JDK's client did; that is in the warm-up, and an idle connection costs
 * nothing per request (measured: the same CPU per request with 8, 32 or 512 connections).
 *
 * <p>One instance runs once; {@link #run} is called from one thread, which only schedules and sends; the answers are
 * recorded on the event loop(s) into thread-safe counters. The instance owns its Vert.x (threads, connections) and
 * {@link #close} releases it; close it before the service it talks to is stopped.
 */
public final class OpenLoopLoad implements AutoCloseable {
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);
    private static final Duration COMPLETION_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(10);

    private final Vertx vertx;
    private final HttpClient client;
    private final RequestOptions post;
    private final int rate;
    private final int maxInFlight;
    private final boolean idempotencyKeys;
    private final OrderBodies bodies;
    private final Consumer<String> onAccepted;

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

    /** A generator with one event loop, which is plenty for a few thousand requests a second. */
    public OpenLoopLoad(URI baseUri, int rate, int maxInFlight, boolean idempotencyKeys) {
        this(baseUri, rate, maxInFlight, idempotencyKeys, 1);
    }

    public OpenLoopLoad(URI baseUri, int rate, int maxInFlight, boolean idempotencyKeys, int eventLoops) {
        this(baseUri, rate, maxInFlight, idempotencyKeys, eventLoops, OrderBodies.uniform(), orderId -> {});
    }

    /**
     * A generator sending {@code bodies}' orders and telling {@code onAccepted} each accepted order's id, on the event
     * loop (it must not block: {@code ops/bin/load} hands the id to a thread of its own for the order's lifecycle).
     */
    public OpenLoopLoad(
            URI baseUri,
            int rate,
            int maxInFlight,
            boolean idempotencyKeys,
            int eventLoops,
            OrderBodies bodies,
            Consumer<String> onAccepted) {
        this.bodies = bodies;
        this.onAccepted = onAccepted;
        if (rate < 1 || maxInFlight < 1 || eventLoops < 1) {
            throw new IllegalArgumentException("rate, maxInFlight and eventLoops must be positive: " + rate + ", "
                    + maxInFlight + ", " + eventLoops);
        }
        this.rate = rate;
        this.maxInFlight = maxInFlight;
        this.idempotencyKeys = idempotencyKeys;
        // Nothing is served from the classpath, so no file cache directory either.
        this.vertx = Vertx.vertx(new VertxOptions()
                .setEventLoopPoolSize(eventLoops)
                .setWorkerPoolSize(1)
                .setInternalBlockingPoolSize(1)
                .setFileSystemOptions(new FileSystemOptions().setClassPathResolvingEnabled(false)));
        this.client = vertx.createHttpClient(
                new HttpClientOptions()
                        .setProtocolVersion(HttpVersion.HTTP_1_1)
                        .setKeepAlive(true)
                        .setPipelining(false)
                        .setConnectTimeout((int) CONNECT_TIMEOUT.toMillis()),
                new PoolOptions().setHttp1MaxSize(maxInFlight).setEventLoopSize(eventLoops));
        URI orders = baseUri.resolve("/orders");
        // Connect (a connection from the pool) and idle (no answer) timeouts of 30 s each.
        this.post = new RequestOptions()
                .setMethod(HttpMethod.POST)
                .setHost(orders.getHost())
                .setPort(orders.getPort() == -1 ? 80 : orders.getPort())
                .setURI(orders.getRawPath())
                .setTimeout(REQUEST_TIMEOUT.toMillis())
                .putHeader("Content-Type", "application/json");
    }

    /**
     * Sends from {@code startNanos} ({@link System#nanoTime()}) for {@code warmup} plus {@code measured}, then waits
     * up to a minute for the outstanding answers. Requests due from {@code startNanos + warmup} on are measured.
     */
    /** Sleeps until {@link System#nanoTime()} reaches {@code nanoTime}: the benchmark's points on the load's timeline. */
    public static void sleepUntil(long nanoTime) throws InterruptedException {
        long wait;
        while ((wait = nanoTime - System.nanoTime()) > 0) {
            Thread.sleep(Duration.ofNanos(wait));
        }
    }

    /** {@link #run} on a platform thread of its own; the future completes with its result or its failure. */
    public CompletableFuture<Result> runInBackground(long startNanos, Duration warmup, Duration measured) {
        CompletableFuture<Result> done = new CompletableFuture<>();
        Thread.ofPlatform().name("open-loop-load").start(() -> {
            try {
                done.complete(run(startNanos, warmup, measured));
            } catch (Throwable t) {
                done.completeExceptionally(t);
            }
        });
        return done;
    }

    public Result run(long startNanos, Duration warmup, Duration measured) throws InterruptedException {
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
            String body = bodies.next(random);
            inFlight.incrementAndGet();
            send(body, due, isMeasured);
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

    /** Closes the client and its connections and stops the event loops; waits up to 10 s for that. */
    @Override
    public void close() {
        try {
            vertx.close()
                    .toCompletionStage()
                    .toCompletableFuture()
                    .get(CLOSE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("the load generator's Vert.x did not close: " + e, e);
        }
    }

    /** Orders accepted in the measured window so far: for a progress line while the load runs. */
    public long acceptedSoFar() {
        return accepted.sum();
    }

    /** Requests of the measured window that failed so far (not a 201, or no answer). */
    public long failedSoFar() {
        return failures.values().stream().mapToLong(LongAdder::sum).sum();
    }

    /** Latency of the measured window's accepted orders so far. */
    public LatencySamples.Summary latencySoFar() {
        return latency.summary();
    }

    private Map<String, Long> failureCounts() {
        Map<String, Long> counts = new TreeMap<>();
        failures.forEach((kind, count) -> counts.put(kind, count.sum()));
        return counts;
    }

    /**
     * Sends asynchronously from the calling thread; the answer is recorded on the event loop, where the request's
     * outstanding count is given back whatever the outcome.
     */
    private void send(String body, long due, boolean isMeasured) {
        String idempotencyKey = idempotencyKeys ? UUID.randomUUID().toString() : null;
        long sentAt = System.nanoTime();
        Future<Answer> answer;
        try {
            answer = client.request(post)
                    .compose(request -> {
                        if (idempotencyKey != null) {
                            request.putHeader("Idempotency-Key", idempotencyKey);
                        }
                        return request.send(Buffer.buffer(body));
                    })
                    .compose(response -> response.body().map(content -> Answer.of(response, content)));
        } catch (RuntimeException e) { // a client closed under the run, say
            answer = Future.failedFuture(e);
        }
        answer.onComplete(outcome -> {
            try {
                if (outcome.succeeded()) {
                    answered(outcome.result(), due, sentAt, isMeasured);
                } else {
                    Throwable e = outcome.cause();
                    failed(failureKind(e), String.valueOf(e.getMessage()), isMeasured);
                }
            } finally {
                inFlight.decrementAndGet();
            }
        });
    }

    private void answered(Answer answer, long due, long sentAt, boolean isMeasured) {
        if (answer.status() != 201) {
            failed("HTTP " + answer.status(), answer.body(), isMeasured);
            return;
        }
        String location = answer.location();
        String orderId = location.substring(location.lastIndexOf('/') + 1);
        onAccepted.accept(orderId);
        if (!isMeasured) {
            warmupAccepted.increment();
            return;
        }
        accepted.increment();
        latency.add((answer.answeredAt() - due) / 1_000);
        serviceTime.add((answer.answeredAt() - sentAt) / 1_000);
        acceptedAtMicros.put(orderId, answer.answeredWallMicros());
    }

    /**
     * The exception's class name, except where that is an implementation's: Vert.x fails a request that timed out
     * with an internal {@code NoStackTraceTimeoutException}, Netty a refused connection with an
     * {@code AnnotatedConnectException}.
     */
    public static String failureKind(Throwable e) {
        if (e instanceof TimeoutException) {
            return "TimeoutException";
        }
        if (e instanceof ConnectException) {
            return "ConnectException";
        }
        return e.getClass().getSimpleName();
    }

    private void failed(String kind, String detail, boolean isMeasured) {
        if (isMeasured) {
            failures.computeIfAbsent(kind, k -> new LongAdder()).increment();
            firstFailureDetail.putIfAbsent(kind, detail.length() > 300 ? detail.substring(0, 300) + "..." : detail);
        }
    }

    /** One order as the REST API takes it, of a uniformly drawn customer: {@link OrderBodies#uniform}. */
    public static String orderBody(SplittableRandom random) {
        return OrderBodies.uniform().next(random);
    }

    /** A whole answer, taken when its last byte arrived. */
    private record Answer(int status, String location, String body, long answeredAt, long answeredWallMicros) {
        static Answer of(HttpClientResponse response, Buffer content) {
            long answeredAt = System.nanoTime();
            long answeredWallMicros = WallClock.micros();
            String location = response.getHeader("Location");
            return new Answer(
                    response.statusCode(),
                    location == null ? "" : location,
                    response.statusCode() == 201 ? "" : content.toString(StandardCharsets.UTF_8),
                    answeredAt,
                    answeredWallMicros);
        }
    }

    /**
     * What the generator saw in the measured window.
     *
     * @param scheduled requests that fell due in the window
     * @param warmupAccepted 201s for requests due during the warm-up (not otherwise counted)
     * @param accepted 201s for requests due in the window, however late they came
     * @param notSent requests not sent because {@code maxInFlight} were outstanding
     * @param unanswered requests still outstanding a minute after the last one was due
     * @param failures other answers and errors, by kind ("HTTP 500", "TimeoutException", "ConnectException")
     * @param failureDetails the first body or message of each kind
     * @param latency from due to answered, accepted requests only
     * @param serviceTime from sent to answered, accepted requests only
     * @param sendLag how late the generator itself dispatched each request (CPU starvation of the driver)
     * @param acceptedAtMicros order id to the wall time its 201 arrived, for the window's accepted orders
     */
    public record Result(
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

        public long failed() {
            return failures.values().stream().mapToLong(Long::longValue).sum();
        }
    }
}
