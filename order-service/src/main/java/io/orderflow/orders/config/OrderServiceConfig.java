package io.orderflow.orders.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.time.Duration;

/**
 * The service's own settings, under {@code orderflow.order-service.*} (environment: {@code ORDERFLOW_ORDER_SERVICE_*}),
 * each declared here once with its default; docs/configuration.md lists them all, and {@code ConfigurationDocsTest}
 * keeps the two in step. Datasource, HTTP and Flyway settings are Quarkus's own ({@code quarkus.datasource.*} and so
 * on).
 */
@ConfigMapping(prefix = "orderflow.order-service")
public interface OrderServiceConfig {

    /** The {@code producer} written into every event envelope. */
    @WithDefault("order-service")
    String producer();

    /** The reason recorded in OrderCancelled when {@code POST /orders/{id}/cancel} gives none. */
    @WithDefault("requested by customer")
    String defaultCancelReason();

    Metrics metrics();

    Idempotency idempotency();

    Placement placement();

    WarmUp warmUp();

    /** What the service runs once at start, before it reports ready: see {@code WarmUp}. */
    interface WarmUp {

        /**
         * Rounds of the order path (create, read, pay, ship, cancel) in transactions that are rolled back, so that the
         * first requests find compiled code; {@code 0} reports ready at once.
         */
        @WithDefault("300")
        int rounds();
    }

    /** How {@code POST /orders} is written: group commit, see {@code OrderPlacement}. */
    interface Placement {

        /**
         * Threads writing batches of new orders, each with its own connection while it writes. One makes the largest
         * batches (what queued while it committed the last one); a second overlaps a commit that stalls, at the cost of
         * batches half as large and about twice the database's work per order.
         */
        @WithDefault("1")
        int writers();

        /**
         * How long a writer waits for more orders after taking the first of a batch; {@code 0s} writes what is queued
         * at once. Each order waits at most this much longer; PostgreSQL commits that many fewer times.
         */
        @WithDefault("2ms")
        Duration linger();

        /** The most orders one transaction writes. */
        @WithDefault("128")
        int maxBatch();

        /** Orders that may wait to be written; beyond it {@code POST /orders} answers 503 at once. */
        @WithDefault("10000")
        int queueCapacity();
    }

    interface Idempotency {

        /**
         * How long an {@code Idempotency-Key} is remembered. A retry within it replays the original order; after it the
         * key is forgotten, and the same key creates a new order. Clients retry within seconds or minutes; a day
         * covers a retry after an outage, as common payment APIs do.
         */
        @WithDefault("24h")
        Duration retention();

        /** How often keys past their retention are deleted; {@code 0s} never (tests, or a purge run elsewhere). */
        @WithDefault("1h")
        Duration purgeEvery();
    }

    interface Metrics {

        /**
         * How old the order counts behind the {@code orders_by_status} gauge may be before a scrape recounts them
         * ({@code SELECT status, count(*) FROM orders GROUP BY status}); 0 recounts on every scrape.
         */
        @WithDefault("5s")
        Duration statusCountsMaxAge();

        /**
         * How long an order may wait for inventory's answer (the saga) before the {@code orders_awaiting_inventory_overdue}
         * gauge counts it, and the alert {@code OrdersAwaitingInventory} fires.
         */
        @WithDefault("30s")
        Duration inventoryAnswerOverdueAfter();
    }
}
