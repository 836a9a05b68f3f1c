package io.orderflow.orders.service;

import io.agroal.api.AgroalDataSource;
import io.orderflow.consumer.ConsumedEvent;
import io.orderflow.contracts.EventCatalog;
import io.orderflow.contracts.EventCodec;
import io.orderflow.contracts.EventEnvelope;
import io.orderflow.contracts.Topics;
import io.orderflow.contracts.inventory.InventoryReserved;
import io.orderflow.contracts.inventory.ReservedLine;
import io.orderflow.orders.config.OrderServiceConfig;
import io.orderflow.orders.domain.NewOrder;
import io.orderflow.orders.domain.OrderItem;
import io.orderflow.orders.saga.InventoryAnswers;
import io.quarkus.runtime.LaunchMode;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.transaction.TransactionManager;
import java.math.BigDecimal;
import java.net.ConnectException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.eclipse.microprofile.config.ConfigProvider;
import org.eclipse.microprofile.health.HealthCheck;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;
import org.jboss.logging.Logger;

/**
 * The order path, run at start before the service reports ready, so that the first real requests find it compiled.
 *
 * <p>A JVM starts by interpreting: each method is compiled only after some hundred calls. A service that reports ready
 * at once meets its first load with nothing compiled, and on a laptop that runs the whole platform every service compiles
 * at the same time, on the same cores, as its first requests arrive: README's 100 orders a second waited seconds in
 * the first ten seconds of a fresh platform. So the service runs {@code orderflow.order-service.warm-up.rounds} rounds
 * of what a request does (place an order through {@link PlacementBatch} with an idempotency key, confirm it through the
 * saga's handler as inventory's answer would, read it, pay, ship, cancel a second one: the locks, the statements, the
 * outbox events and their JSON), each round in one transaction
 * that is rolled back. Nothing of it stays: no order, no outbox row, no idempotency key, no event, no metric (the
 * placement's batch-size summary is {@link OrderPlacement}'s, which the warm-up passes by). Then, once the HTTP server
 * listens, as many rounds of the lifecycle's requests ({@code GET}, {@code pay}, {@code ship}, {@code cancel}) for an
 * order that cannot exist, the nil UUID: each answers 404 and writes nothing, and application.properties keeps them out
 * of {@code http_server_requests_seconds}.
 *
 * <p>Readiness ({@code /q/health/ready}) reports this check down until the rounds are done, with the rounds completed
 * (and a failure, if one stopped them) in its data; the HTTP port answers meanwhile. A round that fails ends the warm-up with a warning, and the service reports ready anyway: a warm-up is
 * an optimisation, never a reason not to serve.
 */
@ApplicationScoped
@Readiness
public class WarmUp implements HealthCheck {

    private static final Logger log = Logger.getLogger(WarmUp.class);
    private static final String NAME = "warm-up";
    /** The order the HTTP rounds ask for; application.properties keeps its requests out of the HTTP metrics. */
    private static final Duration SERVER_START = Duration.ofMinutes(1);

    static final String NO_ORDER = "00000000-0000-0000-0000-000000000000";

    private final AgroalDataSource dataSource;
    private final TransactionManager transactions;
    private final PlacementBatch batches;
    private final OrderLifecycle lifecycle;
    private final InventoryAnswers answers;
    private final EventCodec inventoryEvents = new EventCodec(EventCatalog.inventoryEvents());
    private final Clock clock;
    private final int rounds;
    private volatile int completed;
    private volatile int requests;
    private volatile String failure;
    private volatile boolean done;

    WarmUp(
            AgroalDataSource dataSource,
            TransactionManager transactions,
            PlacementBatch batches,
            OrderLifecycle lifecycle,
            InventoryAnswers answers,
            Clock clock,
            OrderServiceConfig config) {
        this.dataSource = dataSource;
        this.transactions = transactions;
        this.batches = batches;
        this.lifecycle = lifecycle;
        this.answers = answers;
        this.clock = clock;
        this.rounds = config.warmUp().rounds();
        this.done = rounds == 0;
    }

    void start(@Observes StartupEvent event) {
        if (!done) {
            Thread.ofPlatform().name("warm-up").daemon(true).start(this::run);
        }
    }

    @Override
    public HealthCheckResponse call() {
        var response = HealthCheckResponse.named(NAME)
                .status(done)
                .withData("rounds", rounds)
                .withData("completed", completed)
                .withData("requests", requests);
        return (failure == null ? response : response.withData("failure", failure)).build();
    }

    private void run() {
        long started = System.nanoTime();
        try {
            rehearse(rounds);
            log.infof(
                    "warmed up: %d rounds of the order path in %d ms",
                    rounds, (System.nanoTime() - started) / 1_000_000);
        } catch (Exception e) {
            failure = String.valueOf(e);
            log.warnf(e, "warm-up stopped after %d of %d rounds; the service is ready, but cold", completed, rounds);
        } finally {
            done = true;
        }
    }

    /** {@code count} rounds of the order path, rolled back, then as many of the HTTP requests; on this thread. */
    void rehearse(int count) throws Exception {
        for (int round = 0; round < count; round++) {
            roundRolledBack(round);
            completed = round + 1;
        }
        try (HttpClient http = HttpClient.newHttpClient()) {
            URI orders = URI.create("http://localhost:" + httpPort() + "/orders/" + NO_ORDER);
            for (int round = 0; round < count; round++) {
                unknownOrderOverHttp(http, orders);
                requests += 4;
            }
        }
    }

    /**
     * The lifecycle's HTTP path for an order that cannot exist (the nil UUID; order ids are random): routing, JSON
     * bodies, validation, the lifecycle's lock and read, the problem answer. Each must be 404, and writes nothing.
     */
    private static void unknownOrderOverHttp(HttpClient http, URI order) throws Exception {
        List<HttpRequest> requests = List.of(
                HttpRequest.newBuilder(order).GET().build(),
                post(order, "/pay", "{\"paymentReference\":\"warm-up\"}"),
                post(order, "/ship", "{\"carrier\":\"warm-up\",\"trackingNumber\":\"warm-up\"}"),
                post(order, "/cancel", "{\"reason\":\"warm-up\"}"));
        for (HttpRequest request : requests) {
            int status = send(http, request);
            if (status != 404) {
                throw new IllegalStateException(request.method() + " " + request.uri() + " answered " + status);
            }
        }
    }

    /** {@code request}'s status; until the HTTP server listens (it starts after the startup event), waits for it. */
    private static int send(HttpClient http, HttpRequest request) throws Exception {
        long deadline = System.nanoTime() + SERVER_START.toNanos();
        while (true) {
            try {
                return http.send(request, HttpResponse.BodyHandlers.discarding())
                        .statusCode();
            } catch (ConnectException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(50); // polling a port that is about to open
            }
        }
    }

    private static HttpRequest post(URI order, String action, String json) {
        return HttpRequest.newBuilder(URI.create(order + action))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json))
                .build();
    }

    /** The port the HTTP server listens on: the configured one, or in tests the one it was given. */
    private static int httpPort() {
        String key = LaunchMode.current() == LaunchMode.TEST ? "quarkus.http.test-port" : "quarkus.http.port";
        return ConfigProvider.getConfig().getValue(key, Integer.class);
    }

    private void roundRolledBack(int round) throws Exception {
        transactions.begin();
        try {
            NewOrder order = new NewOrder(
                    "warm-up",
                    "EUR",
                    "web",
                    List.of(new OrderItem("WARM-UP-1", 1 + round % 3, new BigDecimal("9.99"))));
            PlacementRequest paid = PlacementRequest.of(order, "warm-up-" + UUID.randomUUID(), null);
            PlacementRequest cancelled = PlacementRequest.of(order, null, null);
            try (Connection connection = dataSource.getConnection()) {
                batches.write(connection, List.of(paid, cancelled), clock.instant());
                answers.applyAll(connection, List.of(reserved(paid.orderId(), order)));
            }
            lifecycle.get(paid.orderId());
            lifecycle.pay(paid.orderId(), "warm-up", null);
            lifecycle.ship(paid.orderId(), "warm-up", "warm-up", null);
            lifecycle.cancel(cancelled.orderId(), "warm-up", null);
        } finally {
            transactions.rollback();
        }
    }

    /** Inventory's answer that reserves {@code order}, as the saga's consumer would read it from the topic. */
    private ConsumedEvent reserved(UUID orderId, NewOrder order) {
        InventoryReserved event = new InventoryReserved(
                orderId.toString(),
                order.items().stream()
                        .map(item -> new ReservedLine(item.sku(), item.quantity()))
                        .toList());
        EventEnvelope envelope =
                inventoryEvents.wrap(event, UUID.randomUUID(), clock.instant(), "inventory-service", null);
        return new ConsumedEvent(
                new ConsumerRecord<>(Topics.INVENTORY, 0, 0, event.orderId(), inventoryEvents.encode(envelope)),
                envelope,
                event);
    }
}
