package io.orderflow.contracts.order;

import java.math.BigDecimal;
import java.util.List;
import java.util.Objects;

/**
 * An order was placed. Version 1.1 (issue: "v2") added the optional {@code channel}; version 1.0 ("v1") has every
 * other field.
 *
 * <p>{@code total} is authoritative and is not checked against the lines: it may include shipping, tax or discounts
 * that the lines do not carry. {@code channel} is where the order came from, e.g. "web", "mobile", "api"; it stays a
 * string rather than an enum so that a producer can add a channel without breaking readers. A 1.0 payload has no
 * channel, and this reader then reports {@link #UNKNOWN_CHANNEL} rather than inventing one.
 */
public record OrderCreated(
        String orderId, String customerId, String currency, List<OrderLine> items, BigDecimal total, String channel)
        implements OrderEvent {

    /** The channel of an order whose event did not say (a version 1.0 payload). */
    public static final String UNKNOWN_CHANNEL = "unknown";

    public OrderCreated {
        PayloadFields.requireId(orderId, "OrderCreated.orderId");
        PayloadFields.requireId(customerId, "OrderCreated.customerId");
        PayloadFields.requireCurrency(currency, "OrderCreated.currency");
        if (items == null || items.isEmpty()) {
            throw new IllegalArgumentException("OrderCreated.items must hold at least one line");
        }
        if (items.stream().anyMatch(Objects::isNull)) {
            throw new IllegalArgumentException("OrderCreated.items must not contain null lines");
        }
        items = List.copyOf(items);
        total = PayloadFields.requireAmount(total, "OrderCreated.total");
        channel = channel == null
                ? UNKNOWN_CHANNEL
                : PayloadFields.requireText(channel, "OrderCreated.channel", PayloadFields.MAX_CHANNEL_LENGTH);
    }
}
