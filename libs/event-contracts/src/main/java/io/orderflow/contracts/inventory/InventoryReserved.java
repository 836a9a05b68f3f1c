package io.orderflow.contracts.inventory;

import io.orderflow.contracts.order.OrderEvent;
import io.orderflow.contracts.order.PayloadFields;
import java.util.List;
import java.util.Objects;

/**
 * Inventory reserved every line of an order: {@code items} are the SKUs and quantities now held for it. Published by
 * inventory-service on the {@code inventory} topic, keyed by the order id, for a later step of the order's saga.
 */
public record InventoryReserved(String orderId, List<ReservedLine> items) implements OrderEvent {

    public InventoryReserved {
        PayloadFields.requireId(orderId, "InventoryReserved.orderId");
        if (items == null || items.isEmpty() || items.stream().anyMatch(Objects::isNull)) {
            throw new IllegalArgumentException("InventoryReserved.items must hold at least one line, and no null ones");
        }
        items = List.copyOf(items);
    }
}
