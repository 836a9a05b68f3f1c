package io.orderflow.contracts.inventory;

import io.orderflow.contracts.order.OrderEvent;
import io.orderflow.contracts.order.PayloadFields;
import java.util.List;

/**
 * Inventory could not reserve an order, so it reserved none of it: {@code reason} says why in words, and
 * {@code shortSkus} names the SKUs that were unknown or short (empty when the reason is not about stock, such as an
 * order cancelled before it was reserved).
 */
public record InventoryRejected(String orderId, String reason, List<String> shortSkus) implements OrderEvent {

    public InventoryRejected {
        PayloadFields.requireId(orderId, "InventoryRejected.orderId");
        PayloadFields.requireText(reason, "InventoryRejected.reason", PayloadFields.MAX_REASON_LENGTH);
        shortSkus = shortSkus == null ? List.of() : shortSkus;
        int index = 0;
        for (String sku : shortSkus) {
            PayloadFields.requireId(sku, "InventoryRejected.shortSkus[" + index++ + "]");
        }
        shortSkus = List.copyOf(shortSkus);
    }
}
