package io.orderflow.orders.persistence;

import io.orderflow.orders.domain.OrderItem;
import jakarta.persistence.Column;
import jakarta.persistence.Embeddable;
import java.math.BigDecimal;

/**
 * A row of {@code order_lines}, as a value of its order's {@link OrderRow#lines} collection: lines are written once,
 * with the order, and never change. Their {@code line_no} (1, 2, ...) is the list position, see {@link OrderRow}.
 */
@Embeddable
public class OrderLineRow {

    @Column(name = "sku", nullable = false)
    private String sku;

    @Column(name = "quantity", nullable = false)
    private int quantity;

    @Column(name = "unit_price", nullable = false)
    private BigDecimal unitPrice;

    protected OrderLineRow() {}

    OrderLineRow(OrderItem item) {
        this.sku = item.sku();
        this.quantity = item.quantity();
        this.unitPrice = item.unitPrice();
    }

    OrderItem toItem() {
        return new OrderItem(sku, quantity, unitPrice);
    }
}
