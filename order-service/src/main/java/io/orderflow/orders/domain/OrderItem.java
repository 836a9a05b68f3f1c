package io.orderflow.orders.domain;

import java.math.BigDecimal;
import java.util.Objects;

/**
 * One line of an order: {@code quantity} units of {@code sku} at {@code unitPrice} in the order's currency. The price
 * keeps the scale it was given ("9.90" stays "9.90"); an exponent form such as {@code 1E+3} becomes {@code 1000}, as
 * the event contracts do, so that it round-trips through JSON as plain digits.
 */
public record OrderItem(String sku, int quantity, BigDecimal unitPrice) {

    public OrderItem {
        Objects.requireNonNull(sku, "sku");
        Objects.requireNonNull(unitPrice, "unitPrice");
        if (quantity < 1) {
            throw new IllegalArgumentException("quantity of " + sku + " must be at least 1, was " + quantity);
        }
        if (unitPrice.signum() < 0) {
            throw new IllegalArgumentException("unit price of " + sku + " must not be negative, was " + unitPrice);
        }
        unitPrice = unitPrice.scale() < 0 ? unitPrice.setScale(0) : unitPrice;
    }

    /** quantity x unitPrice, exactly (BigDecimal multiplication never rounds). */
    public BigDecimal subtotal() {
        return unitPrice.multiply(BigDecimal.valueOf(quantity));
    }
}
