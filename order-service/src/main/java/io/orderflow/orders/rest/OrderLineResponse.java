package io.orderflow.orders.rest;

import io.orderflow.orders.domain.OrderItem;
import java.math.BigDecimal;
import org.eclipse.microprofile.openapi.annotations.enums.SchemaType;
import org.eclipse.microprofile.openapi.annotations.media.Schema;

/** A line of an order as the API shows it; amounts are JSON strings in plain notation, as in the events. */
public record OrderLineResponse(
        String sku,
        int quantity,
        @Schema(type = SchemaType.STRING, examples = "9.95") BigDecimal unitPrice) {

    static OrderLineResponse of(OrderItem item) {
        return new OrderLineResponse(item.sku(), item.quantity(), item.unitPrice());
    }
}
