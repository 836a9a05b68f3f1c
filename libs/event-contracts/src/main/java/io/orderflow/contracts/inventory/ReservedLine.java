package io.orderflow.contracts.inventory;

import io.orderflow.contracts.order.PayloadFields;

/** One SKU of a reservation and how many units of it are held. */
public record ReservedLine(String sku, int quantity) {

    public ReservedLine {
        PayloadFields.requireId(sku, "ReservedLine.sku");
        if (quantity < 1) {
            throw new IllegalArgumentException("ReservedLine.quantity must be at least 1, was " + quantity);
        }
    }
}
