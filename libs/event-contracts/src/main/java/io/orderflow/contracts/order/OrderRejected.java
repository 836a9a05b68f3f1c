package io.orderflow.contracts.order;

import java.util.List;

/**
 * Inventory could not reserve an order, so order-service rejected it: nothing of it is reserved, and it can be neither
 * paid nor shipped. {@code reason} is inventory's, in words; {@code shortSkus} names the SKUs that were unknown or short
 * (empty when the reason is not about stock). Published by order-service, through its outbox, when it applies
 * inventory's {@code InventoryRejected}; an order is rejected at most once.
 */
public record OrderRejected(String orderId, String reason, List<String> shortSkus) implements OrderEvent {

    public OrderRejected {
        PayloadFields.requireId(orderId, "OrderRejected.orderId");
        PayloadFields.requireText(reason, "OrderRejected.reason", PayloadFields.MAX_REASON_LENGTH);
        shortSkus = shortSkus == null ? List.of() : shortSkus;
        int index = 0;
        for (String sku : shortSkus) {
            PayloadFields.requireId(sku, "OrderRejected.shortSkus[" + index++ + "]");
        }
        shortSkus = List.copyOf(shortSkus);
    }
}
