package io.orderflow.inventory;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/**
 * inventory-service's own settings, {@code orderflow.inventory-service.*} (environment: {@code ORDERFLOW_INVENTORY_SERVICE_*}), each
 * declared here once with its default; docs/configuration.md lists them.
 */
@ConfigMapping(prefix = "orderflow.inventory-service")
public interface InventoryConfig {

    /** How outcomes leave the service: docs/consumers.md. */
    enum Outcomes {
        /** Staged in the outbox table; an outbox-relay pointed at the database publishes them. */
        OUTBOX,
        /** Published by the service in a Kafka transaction per batch that also commits the batch's offsets. */
        KAFKA_TRANSACTIONS
    }

    /** {@code outbox} or {@code kafka-transactions}. */
    @WithDefault("outbox")
    Outcomes outcomes();

    /** The topic the service publishes its outcomes to in {@code kafka-transactions} mode. */
    @WithDefault("inventory")
    String outcomesTopic();

    /**
     * The {@code transactional.id} of this instance's producer in {@code kafka-transactions} mode: one per instance,
     * the same after a restart (so the restarted instance fences what the dead one left open).
     */
    @WithDefault("inventory-service-0")
    String transactionalId();
}
