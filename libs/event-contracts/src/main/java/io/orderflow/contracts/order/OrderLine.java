package io.orderflow.contracts.order;

import java.math.BigDecimal;

/** One line of an order: how many of a stock-keeping unit, at which unit price (in the order's currency). */
public record OrderLine(String sku, int quantity, BigDecimal unitPrice) {

    public OrderLine {
        PayloadFields.requireId(sku, "OrderLine.sku");
        if (quantity < 1) {
            throw new IllegalArgumentException("OrderLine.quantity must be at least 1, was " + quantity);
        }
        unitPrice = PayloadFields.requireAmount(unitPrice, "OrderLine.unitPrice");
    }
}
