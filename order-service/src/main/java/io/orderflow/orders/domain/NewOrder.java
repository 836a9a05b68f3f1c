package io.orderflow.orders.domain;

import java.math.BigDecimal;
import java.util.List;
import java.util.Objects;

/**
 * What a client asks to create: validated input, before the order has an id, a status or a version. {@code channel}
 * is null when the client did not say (OrderCreated then reports "unknown", see the event contracts).
 */
public record NewOrder(String customerId, String currency, String channel, List<OrderItem> items) {

    public NewOrder {
        Objects.requireNonNull(customerId, "customerId");
        Objects.requireNonNull(currency, "currency");
        if (items == null || items.isEmpty()) {
            throw new IllegalArgumentException("an order needs at least one item");
        }
        items = List.copyOf(items);
    }

    /** The sum of quantity x unitPrice over the items, exact, in the largest scale of the unit prices. */
    public BigDecimal total() {
        return items.stream().map(OrderItem::subtotal).reduce(BigDecimal.ZERO, BigDecimal::add);
    }
}
