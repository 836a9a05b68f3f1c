package io.orderflow.orders.rest;

import io.orderflow.orders.domain.Order;
import io.orderflow.orders.domain.OrderStatus;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.eclipse.microprofile.openapi.annotations.enums.SchemaType;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

/**
 * An order as the API shows it. Amounts are JSON strings ({@code "19.90"}), like the event contracts, so no client
 * reads them through a double; absent optional fields are omitted. {@code version} is 1 at creation and +1 per
 * transition. A {@code REJECTED} order carries inventory's {@code rejectionReason} and, when the reason is stock, the
 * {@code shortSkus}.
 */
public record OrderResponse(
        UUID id,
        String customerId,
        String currency,
        String channel,
        OrderStatus status,
        List<OrderLineResponse> items,

        @Schema(type = SchemaType.STRING, examples = "19.90")
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

    static OrderResponse of(Order order) {
        return new OrderResponse(
                order.id(),
                order.customerId(),
                order.currency(),
                order.channel(),
                order.status(),
                order.items().stream().map(OrderLineResponse::of).toList(),
                order.total(),
                order.version(),
                order.createdAt(),
                order.updatedAt(),
                order.paymentReference(),
                order.carrier(),
                order.trackingNumber(),
                order.cancellationReason(),
                order.rejectionReason(),
                order.shortSkus().isEmpty() ? null : order.shortSkus());
    }
}
