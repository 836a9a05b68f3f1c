package io.orderflow.orders.domain;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * An order as it is after its latest committed change: an immutable snapshot handed from the service layer to the
 * REST layer. {@code version} is 1 at creation and grows by one per transition; it is also the aggregate version of
 * the outbox row that recorded the change. The detail fields ({@code paymentReference}, {@code carrier},
 * {@code trackingNumber}, {@code cancellationReason}, {@code rejectionReason}) are null until the transition that sets
 * them; {@code shortSkus} (the SKUs inventory could not reserve) is empty unless the order was rejected for them.
 */
public record Order(
        UUID id,
        String customerId,
        String currency,
        String channel,
        OrderStatus status,
        List<OrderItem> items,
        BigDecimal total,
        long version,
        Instant createdAt,
        Instant updatedAt,
        String paymentReference,
        String carrier,
        String trackingNumber,
        String cancellationReason,
        String rejectionReason,
        List<String> shortSkus) {

    public Order {
        items = List.copyOf(items);
        shortSkus = shortSkus == null ? List.of() : List.copyOf(shortSkus);
    }

    /** {@code order} as it is created at {@code now}: CREATED, version 1, none of the transitions' details yet. */
    public static Order created(UUID id, NewOrder order, Instant now) {
        return new Order(
                id,
                order.customerId(),
                order.currency(),
                order.channel(),
                OrderStatus.CREATED,
                order.items(),
                order.total(),
                1,
                now,
                now,
                null,
                null,
                null,
                null,
                null,
                List.of());
    }
}
